// RunHost with a stand-in for the browser's Worker: the page's side of the
// runner Worker relays SDK requests to the engine on the run's store, and
// Stop ends code that never finishes, keeping what it printed.

import { test, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";

import { RunHost } from "../run-host.js";

// FakeWorker plays run-worker.js: ready at once, then whatever the test's
// script does with each message.
class FakeWorker {
  static made = [];
  static script = () => {};
  constructor(url, options) {
    this.url = String(url);
    this.options = options;
    this.terminated = false;
    this.sent = [];
    FakeWorker.made.push(this);
    queueMicrotask(() => this.emit({ ready: true }));
  }
  emit(data) {
    if (!this.terminated) this.onmessage?.({ data });
  }
  postMessage(data) {
    this.sent.push(data);
    FakeWorker.script(this, data);
  }
  terminate() {
    this.terminated = true;
  }
}

const engine = {
  requests: [],
  ops: [],
  async op(store, name, data) {
    this.ops.push([store, name, data]);
    if (data === "NaN") throw new Error("advance takes a number of seconds");
  },
  async connectionString(store) {
    return `TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;SharedAccessSignature=sig-for-${store}`;
  },
  async request(store, req) {
    this.requests.push([store, req]);
    return "HTTP/1.1 204 No Content\r\n\r\n";
  },
};

let saved;
beforeEach(() => {
  saved = globalThis.Worker;
  globalThis.Worker = FakeWorker;
  FakeWorker.made = [];
  engine.requests = [];
  engine.ops = [];
});
afterEach(() => {
  globalThis.Worker = saved;
});

test("a run gets the store's connection string and its requests reach the engine on that store", async () => {
  FakeWorker.script = (w, data) => {
    if ("run" in data) {
      w.emit({ print: "hello" });
      w.emit({ http: 7, req: "DELETE /devstoreaccount1/T HTTP/1.1\r\n\r\n" });
    } else if ("httpReply" in data) {
      w.emit({ request: { method: "DELETE", status: 204 } });
      w.emit({ done: { output: "hello", plans: [], queries: [], requests: [], echoed: data } });
    }
  };
  const host = new RunHost(engine, "run-worker.js");
  const printed = [];
  const result = await host.run("print('hello')", "example-3", { onPrint: (l) => printed.push(l) });
  const [worker] = FakeWorker.made;
  assert.equal(worker.options.type, "module");
  assert.deepEqual(worker.sent[0], {
    run: "print('hello')",
    connectionString: "TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;SharedAccessSignature=sig-for-example-3",
  });
  assert.deepEqual(engine.requests, [["example-3", "DELETE /devstoreaccount1/T HTTP/1.1\r\n\r\n"]]);
  assert.deepEqual(result.echoed, { httpReply: 7, resp: "HTTP/1.1 204 No Content\r\n\r\n" });
  assert.deepEqual(printed, ["hello"]);
  assert.equal(host.running, false);
});

test("stop ends code that never finishes, keeps its output and plans, releases the store's clock, and the next run gets a new worker", async () => {
  FakeWorker.script = (w, data) => {
    if ("run" in data && data.run === "loop") {
      w.emit({ print: "before the loop" });
      w.emit({ request: { method: "GET", status: 200, plan: "table-scan", examined: 4, returned: 1 } });
      // ...and never a "done".
    } else if ("run" in data) {
      w.emit({ done: { output: "fine", plans: [], queries: [], requests: [] } });
    }
  };
  const host = new RunHost(engine, "run-worker.js");
  const pending = host.run("loop", "playground");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(host.running, true);
  host.stop();
  const stopped = await pending;
  assert.equal(FakeWorker.made[0].terminated, true);
  assert.equal(stopped.output, "before the loop");
  assert.deepEqual(stopped.plans, ["table-scan"]);
  assert.equal(stopped.queries[0].examined, 4);
  assert.equal(stopped.error.name, "Stopped");
  assert.equal(host.running, false);
  assert.deepEqual(engine.ops, [["playground", "hold", undefined], ["playground", "release", undefined]]);

  const next = await host.run("print('fine')", "playground");
  assert.equal(next.output, "fine");
  assert.equal(FakeWorker.made.length, 2);
  assert.equal(FakeWorker.made[1].terminated, false);
});

test("a runner worker that fails to load ends the run with its error, not a wait", async () => {
  FakeWorker.script = () => {};
  const host = new RunHost(engine, "run-worker.js");
  const pending = host.run("print(1)", "playground");
  await new Promise((r) => setTimeout(r, 10));
  FakeWorker.made[0].onerror({ message: "SyntaxError: Unexpected token", preventDefault() {} });
  const result = await pending;
  assert.match(result.error.message, /runner worker failed: SyntaxError/);
  assert.equal(FakeWorker.made[0].terminated, true);
});

test("a run keeps the newest requests with their bodies, counts them all and lists every query", async () => {
  FakeWorker.script = (w, data) => {
    if (!("run" in data)) return;
    for (let i = 0; i < 7; i++) {
      const read = i % 2 === 1;
      w.emit({
        request: {
          method: read ? "GET" : "POST",
          url: `http://127.0.0.1:10002/devstoreaccount1/T${i}`,
          status: 200,
          responseBody: `body ${i}`,
          ...(read ? { plan: "point", examined: i, returned: 1 } : {}),
        },
      });
    }
    // As run-worker.js sends it: no requests, plans or queries again.
    w.emit({ done: { output: "", requestCount: 7 } });
  };
  const host = new RunHost(engine, "run-worker.js", { keep: 3 });
  const heard = [];
  const result = await host.run("…", "playground", { onRequest: (r) => heard.push(r.responseBody) });
  assert.equal(heard.length, 7, "every request is heard as it happens");
  assert.deepEqual(result.requests.map((r) => r.responseBody), ["body 4", "body 5", "body 6"]);
  assert.equal(result.requestCount, 7);
  assert.deepEqual(result.plans, ["point", "point", "point"]);
  assert.deepEqual(result.queries.map((q) => [q.url.slice(-2), q.examined]), [["T1", 1], ["T3", 3], ["T5", 5]]);
  assert.equal(result.error, undefined);
});

test("bodies that cross as bytes, as run-worker.js sends them, read as the text they were", async () => {
  const encoder = new TextEncoder();
  const body = '{"PartitionKey":"Zoë","RowKey":"東京 🚀"}';
  FakeWorker.script = (w, data) => {
    if (!("run" in data)) return;
    w.emit({
      request: {
        method: "POST",
        url: "http://127.0.0.1:10002/devstoreaccount1/T",
        status: 201,
        requestBody: encoder.encode(body),
        responseBody: encoder.encode(""),
        ops: [{ table: "T", partition: "Zoë", count: 1, read: false }],
      },
    });
    w.emit({ done: { output: "", requestCount: 1 } });
  };
  const host = new RunHost(engine, "run-worker.js");
  const heard = [];
  const result = await host.run("…", "playground", { onRequest: (r) => heard.push(r) });
  assert.equal(heard[0].requestBody, body);
  assert.equal(heard[0].requestBody, body, "read twice");
  assert.equal(result.requests[0].responseBody, "");
  assert.deepEqual(JSON.parse(JSON.stringify(result.requests[0])).requestBody, body, "the bodies are the entry's own fields");
  assert.deepEqual(result.requests[0].ops, [{ table: "T", partition: "Zoë", count: 1, read: false }]);
});

test("the code's sleep moves the run's store's clock, and a bytes request reaches the engine as bytes", async () => {
  const bytes = new TextEncoder().encode("PUT /devstoreaccount1/c/b HTTP/1.1\r\nHost: 127.0.0.1:10000\r\n\r\n\u0000\u00ff");
  FakeWorker.script = (w, data) => {
    if ("run" in data) {
      w.emit({ advance: 1, seconds: 30 });
    } else if (data.advanceReply === 1) {
      w.emit({ advance: 2, seconds: NaN });
    } else if (data.advanceReply === 2) {
      w.emit({ print: `refused: ${data.error}` });
      w.emit({ http: 3, req: bytes });
    } else if ("httpReply" in data) {
      w.emit({ done: { echoed: data } });
    }
  };
  const host = new RunHost(engine, "run-worker.js");
  const result = await host.run("await sleep(30)", "example-9");
  // The clock stands still for the run, moves only on sleep, and runs
  // again when the run is over.
  assert.deepEqual(engine.ops, [
    ["example-9", "hold", undefined],
    ["example-9", "advance", "30"],
    ["example-9", "advance", "NaN"],
    ["example-9", "release", undefined],
  ]);
  assert.equal(result.output, "refused: advance takes a number of seconds");
  assert.deepEqual(engine.requests, [["example-9", bytes]]);
  assert.equal(result.echoed.httpReply, 3);
});

test("a run's scorecards reach the page as they finish, and a stopped run keeps those it had", async () => {
  const card = (title) => ({ title, rows: [{ name: "by id", plan: "point", reads: 1, examined: 1, returned: 1 }] });
  FakeWorker.script = (w, data) => {
    if (!("run" in data)) return;
    w.emit({ scorecard: card("naive") });
    w.emit({ scorecard: card("pattern") });
    if (data.run !== "stops") w.emit({ done: { output: "", requestCount: 0 } });
  };
  const host = new RunHost(engine, "run-worker.js");
  const heard = [];
  const result = await host.run("…", "example-1", { onScorecard: (c) => heard.push(c.title) });
  assert.deepEqual(heard, ["naive", "pattern"]);
  assert.deepEqual(result.scorecards, [card("naive"), card("pattern")]);

  const pending = host.run("stops", "example-1");
  await new Promise((r) => setTimeout(r, 10));
  host.stop();
  const stopped = await pending;
  assert.equal(stopped.error.name, "Stopped");
  assert.deepEqual(stopped.scorecards.map((c) => c.title), ["naive", "pattern"]);
});
