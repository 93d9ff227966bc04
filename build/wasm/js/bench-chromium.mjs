// The wasm benchmark in headless Chromium: the workload of wasm/bench
// (workload.mjs) against worker.js and app.wasm in a real Web Worker,
// served from 127.0.0.1. Three ways in, chosen by the second argument:
//
//   worker  the requests made inside the Worker and sent through
//           tablelab.serve, one awaited call each (the Promise API, in
//           Chromium's V8; bench.mjs's bridge hands worker.js's
//           onmessage its messages instead);
//   page    the requests made on the page and posted to worker.js, one
//           message and one awaited answer each, as the site does;
//   echo    the page's messages, the same and as many, posted to a
//           Worker that only posts each request back as its answer: the
//           round trip's floor, which no engine can go under.
//
// Prints wasm/bench's lines: name, operations, ns per operation. The
// time is the page's or the Worker's clock (performance.now), not CPU
// time: Chromium's processes are not this one's children to account.
//
//   TABLELAB_ENGINE_DIR=dir node bench-chromium.mjs [n] [worker|page|echo]
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { launch } from "../../browser/chromium.mjs";

const n = Number(process.argv[2] ?? 10000);
const way = process.argv[3] ?? "page";
if (!["worker", "page", "echo"].includes(way)) throw new Error(`unknown way ${way}: worker, page or echo`);
const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");

// pass is the workload as the page or the Worker runs it: serve(store,
// req) answers one request. A first, smaller pass warms the engine up.
// With check unset (the echo), the answers are not responses to check.
const pass = String(async function pass(serve, lines, request, sas, store, n, print, check) {
  const out = [];
  for (const t of ["Bench", "Batch"]) {
    const resp = await serve(store, request("POST", "Tables", sas, `{"TableName":"${t}"}`, "application/json"));
    if (check && !resp.startsWith("HTTP/1.1 2")) throw new Error(`create ${t}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
  }
  for (const line of lines(n)) {
    // Made before the clock starts, each a structured clone: flat text,
    // as a Worker receives it (bench.mjs says why).
    const reqs = Array.from({ length: line.ops }, (_, i) => {
      const [method, target, body, contentType] = line.req(i);
      return structuredClone(request(method, target, sas, body, contentType));
    });
    const want = `\r\nX-Tablelab-Returned: ${line.returned}\r\n`;
    const start = performance.now();
    for (const req of reqs) {
      const resp = await serve(store, req);
      if (!check) continue;
      if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`${line.name}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
      if (line.returned && !resp.includes(want)) throw new Error(`${line.name}: not ${line.returned} entities returned`);
    }
    const ns = ((performance.now() - start) * 1e6) / line.ops;
    if (print) out.push(`${line.name}\t${line.ops}\t${Math.round(ns)}`);
  }
  return out;
});

const warm = Math.max(Math.floor(n / 5), 1000);

// The Worker that runs the workload itself: worker.js, then the passes.
const benchWorker = `
const announce = self.postMessage.bind(self);
let engineReady;
const engineStarted = new Promise((resolve) => (engineReady = resolve));
self.postMessage = (msg) => (msg && msg.ready ? engineReady() : announce(msg));
importScripts("worker.js");
self.onmessage = async () => {
  try {
    await engineStarted;
    const { lines, request } = await import("./workload.mjs");
    const serve = (store, req) => tablelab.serve(store, req);
    const sas = await tablelab.sas();
    const pass = ${pass};
    await pass(serve, lines, request, sas, "warm-up", ${warm}, false, true);
    announce({ lines: await pass(serve, lines, request, sas, "bench", ${n}, true, true) });
  } catch (err) {
    announce({ error: String(err && err.stack ? err.stack : err) });
  }
};`;

// The Worker of the echo: worker.js's messages, each request posted
// straight back as the answer.
const echoWorker = `
self.onmessage = (e) => {
  const { id, req } = e.data;
  self.postMessage({ id, resp: req });
};
self.postMessage({ ready: true });`;

const page = `<!doctype html><meta charset="utf-8"><title>bench</title>
<script type="module">
import { lines, request } from "./workload.mjs";
const pass = ${pass};
window.bench = async () => {
  if (${JSON.stringify(way)} === "worker") {
    const w = new Worker("bench-worker.js");
    return await new Promise((resolve, reject) => {
      w.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve(e.data.lines));
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage("go");
    });
  }
  // talk posts each message to w and resolves to the answer with its id.
  const talk = (w) => {
    const waiting = new Map();
    let next = 0;
    let ready;
    const started = new Promise((resolve) => (ready = resolve));
    w.onmessage = (e) => {
      if (e.data.ready) return ready();
      const p = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      e.data.error !== undefined ? p.reject(new Error(e.data.error)) : p.resolve(e.data.resp ?? e.data.result);
    };
    const post = (msg) => new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      w.postMessage({ id, ...msg });
    });
    return { started, post };
  };
  const engine = new Worker("worker.js");
  const { started, post } = talk(engine);
  await started;
  const sas = await post({ op: "sas" });
  let serve = (store, req) => post({ store, req });
  const echo = ${JSON.stringify(way)} === "echo";
  if (echo) {
    // The same requests, signed with the same token, to a Worker with no
    // engine.
    engine.terminate();
    const { started, post } = talk(new Worker("echo.js"));
    await started;
    serve = (store, req) => post({ store, req });
  }
  await pass(serve, lines, request, sas, "warm-up", ${warm}, false, !echo);
  return await pass(serve, lines, request, sas, "bench", ${n}, true, !echo);
};
</script>`;

const files = {
  "/": ["text/html", () => page],
  "/bench-worker.js": ["text/javascript", () => benchWorker],
  "/echo.js": ["text/javascript", () => echoWorker],
  "/workload.mjs": ["text/javascript", () => readFileSync(new URL("./workload.mjs", import.meta.url))],
  "/worker.js": ["text/javascript", () => readFileSync(join(dir, "worker.js"))],
  "/wasm_exec.js": ["text/javascript", () => readFileSync(join(dir, "wasm_exec.js"))],
  "/app.wasm": ["application/wasm", () => readFileSync(join(dir, "app.wasm"))],
};
const server = createServer((req, res) => {
  const f = files[new URL(req.url, "http://127.0.0.1").pathname];
  if (!f) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": f[0] }).end(f[1]());
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { context, close } = await launch();
try {
  const tab = await context.newPage();
  const errors = [];
  tab.on("pageerror", (err) => errors.push(String(err)));
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => typeof window.bench === "function");
  const lines = await tab.evaluate(() => window.bench());
  if (errors.length) throw new Error(errors.join("\n"));
  console.log(lines.join("\n"));
} finally {
  await close();
  server.close();
}
