// The runner against a real tablelab server, twice: with the committed
// browser bundle of @azure/data-tables sending each request as one text
// through engineHttpClient (the playground's path, a SAS connection
// string), and with the SDK's Node build and its own HTTP client (the
// parity run's path, the account key). Both must print the same output and
// report the same plans.
//
// Needs `npm ci` in ../vendor-src (for the Node build of the SDK) and Go.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import { run, formatValue, withoutSdkImports, sdkOf, summarizeReads, scorecardLine, PLAN_COST } from "../runner.js";
import { engineHttpClient } from "../engine-http-client.js";
import * as bundle from "../vendor/azure-storage.js";
import * as nodeSdk from "../vendor-src/node_modules/@azure/data-tables/dist/esm/index.js";
import * as nodeBlobs from "../vendor-src/node_modules/@azure/storage-blob/dist/esm/index.js";
import * as nodeQueues from "../vendor-src/node_modules/@azure/storage-queue/dist/esm/index.js";
import { startServer, relay, devKey } from "./server.mjs";
import { Heat } from "../heat.js";

let server;
let browserEnv;
let nodeEnv;
// The same, with all three SDKs and all three services: the browser's
// with an account SAS for ss=bqt, as the engine worker issues one.
let browserStorageEnv;
let nodeStorageEnv;

before(async () => {
  server = await startServer();
  const sas = nodeSdk.generateAccountSas(new nodeSdk.AzureNamedKeyCredential("devstoreaccount1", devKey), {
    expiresOn: new Date(Date.now() + 3600e3),
    permissions: { query: true, add: true, update: true, delete: true, write: true, list: true },
    resourceTypes: "sco",
  });
  browserEnv = {
    sdk: bundle.tables,
    connectionString: `TableEndpoint=${server.endpoint};SharedAccessSignature=${sas.replace(/^\?/, "")}`,
    httpClient: engineHttpClient(relay, bundle.createHttpHeaders),
  };
  nodeEnv = {
    sdk: nodeSdk,
    connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${devKey};TableEndpoint=${server.endpoint}/`,
  };
  const e = server.endpoints;
  const storageSas = nodeBlobs
    .generateAccountSASQueryParameters(
      {
        expiresOn: new Date(Date.now() + 3600e3),
        permissions: nodeBlobs.AccountSASPermissions.parse("rwdlacup"),
        resourceTypes: "sco",
        services: "bqt",
      },
      new nodeBlobs.StorageSharedKeyCredential("devstoreaccount1", devKey),
    )
    .toString();
  browserStorageEnv = {
    sdk: sdkOf(bundle.tables, bundle.blobs, bundle.queues),
    connectionString: `BlobEndpoint=${e.blob};QueueEndpoint=${e.queue};TableEndpoint=${e.table};SharedAccessSignature=${storageSas}`,
    httpClient: engineHttpClient(relay, bundle.createHttpHeaders),
  };
  nodeStorageEnv = {
    sdk: sdkOf(nodeSdk, nodeBlobs, nodeQueues),
    connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${devKey};BlobEndpoint=${e.blob};QueueEndpoint=${e.queue};TableEndpoint=${e.table}`,
  };
});

after(() => server?.stop());

// program writes a table of five entities in one batch, then reads it by
// point, range and scan, with text that is not ASCII on the way.
const program = (table) => `
const client = TableClient.fromConnectionString(connectionString, "${table}");
await client.createTable();
const tx = new TableTransaction();
for (let i = 0; i < 5; i++) {
  tx.createEntity({ partitionKey: "p1", rowKey: "r" + i, n: i, name: "Zoë ✓ " + i });
}
const batch = await client.submitTransaction(tx.actions);
print("batch", batch.status, batch.subResponses.length);
const e = await client.getEntity("p1", "r2");
print(e.n, e.name);
for await (const x of client.listEntities({ queryOptions: {
  filter: "PartitionKey eq 'p1' and RowKey eq 'r0'", select: ["name"] } })) print(x.name);
const keys = [];
const range = client.listEntities({ queryOptions: {
  filter: odata\`PartitionKey eq \${"p1"} and RowKey ge \${"r1"} and RowKey lt \${"r4"}\` } });
for await (const x of range) keys.push(x.rowKey);
print(keys.join(","));
const big = [];
for await (const x of client.listEntities({ queryOptions: { filter: "n gt 2" } })) big.push(x.rowKey);
console.log(big, { count: big.length });
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserEnv],
  ["Node SDK over HTTP", () => nodeEnv],
]) {
  test(`run: ${name}`, async () => {
    const r = await run(program("Run" + name.length), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.equal(r.output, 'batch 202 5\n2 Zoë ✓ 2\nZoë ✓ 0\nr1,r2,r3\n["r3","r4"] {"count":2}');
    // getEntity, then the three queries: every read reports its plan.
    assert.deepEqual(r.plans, ["point", "point", "range", "table-scan"]);
    assert.deepEqual(
      r.queries.map((q) => [q.plan, q.examined, q.returned]),
      [["point", 1, 1], ["point", 1, 1], ["range", 3, 3], ["table-scan", 5, 2]],
    );
    assert.match(r.queries[0].url, /Run\d+\(PartitionKey='p1',RowKey='r2'\)/);
    // create table, $batch, four reads, each recorded with its status.
    assert.deepEqual(r.requests.map((q) => q.status), [201, 202, 200, 200, 200, 200]);
    assert.match(r.requests[1].requestBody, /Zoë ✓ 4/);
    assert.match(r.requests[2].responseBody, /"RowKey":"r2"/);
  });
}

test("run: a service error reaches the code as the SDK's RestError", async () => {
  for (const env of [browserEnv, nodeEnv]) {
    const r = await run(
      `const c = TableClient.fromConnectionString(connectionString, "Missing1");
       print("before");
       try { await c.getEntity("a", "b"); }
       catch (e) { print(e.name, e.statusCode, e.details.odataError.code); throw e; }`,
      env,
    );
    assert.equal(r.output, "before\nRestError 404 TableNotFound");
    assert.match(r.error?.detail, /^The table specified does not exist/);
    assert.equal(r.error?.name, "RestError");
    assert.equal(r.error?.code, "TableNotFound");
    assert.equal(r.error?.statusCode, 404);
  }
});

test("run: a thrown value and a syntax error are reported, not raised", async () => {
  let r = await run("print(1); throw new TypeError('nope')", browserEnv);
  assert.equal(r.output, "1");
  assert.deepEqual(r.error, { name: "TypeError", message: "nope", line: 1, column: 17 });
  r = await run("print(", browserEnv);
  assert.equal(r.error?.name, "SyntaxError");
  r = await run("throw 'text'", browserEnv);
  assert.equal(r.error?.message, "uncaught: text");
});

test("run: an error carries the line and column of the reader's code where it happened", async () => {
  // A syntax error: V8 says what, acorn says where.
  let r = await run('print("a");\n\nif (x) { print("b") ]', browserEnv);
  assert.equal(r.error?.name, "SyntaxError");
  assert.deepEqual([r.error.line, r.error.column], [3, 21]);
  // A runtime error: the innermost line of the reader's own, in a
  // function of theirs too; an SDK import removed above keeps the lines.
  r = await run('import { TableClient } from "@azure/data-tables";\nconst f = () => {\n  return null.x;\n};\nf();', browserEnv);
  assert.equal(r.error?.name, "TypeError");
  assert.deepEqual([r.error.line, r.error.column], [3, 15]);
  for (const env of [browserEnv, nodeEnv]) {
    // An SDK call's error: the line that made the call, though the error
    // is raised where the response is read.
    r = await run('const t = TableClient.fromConnectionString(connectionString, "Place1");\nawait t.createTable();\n\n  await t.createEntity({ partitionKey: "p", rowKey: "a/b" });', env);
    assert.equal(r.error?.code, "OutOfRangeInput");
    assert.deepEqual([r.error.line, r.error.column], [4, 11]);
    // …and a query's, at the loop that reads its pages.
    r = await run('const t = TableClient.fromConnectionString(connectionString, "Place2");\nawait t.createTable();\nfor await (const e of t.listEntities({ queryOptions: { filter: "Age gtt 3" } })) print(e);', env);
    assert.equal(r.error?.code, "InvalidInput");
    assert.equal(r.error.line, 3);
  }
});

test("run: the requests carry their headers both ways", async () => {
  for (const env of [browserEnv, nodeEnv]) {
    const r = await run('const t = TableClient.fromConnectionString(connectionString, "Heads1");\nawait t.createTable();\nfor await (const e of t.listEntities()) print(e);', env);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const query = r.requests[1];
    const names = (list) => list.map(([k]) => k.toLowerCase());
    assert.ok(names(query.requestHeaders).includes("x-ms-version"), JSON.stringify(query.requestHeaders));
    assert.ok(names(query.responseHeaders).includes("x-tablelab-plan"), JSON.stringify(query.responseHeaders));
    assert.ok(names(query.responseHeaders).includes("x-ms-request-id"));
  }
});

test("run: clients made with the constructor and a SAS credential are recorded too", async () => {
  const sas = browserEnv.connectionString.split("SharedAccessSignature=")[1];
  const r = await run(
    `const svc = new TableServiceClient("${server.endpoint}", new AzureSASCredential("${sas}"));
     await svc.createTable("Ctor1");
     const names = [];
     for await (const t of svc.listTables()) names.push(t.name);
     print(names.includes("Ctor1"));`,
    browserEnv,
  );
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.output, "true");
  assert.equal(r.requests.length, 2);
  assert.equal(r.requests[0].method, "POST");
  assert.equal(r.requests[0].status, 201);
});

test("run: env.clientOptions replace the default, and the SDK's own checks then apply", async () => {
  const r = await run(
    `await TableClient.fromConnectionString(connectionString, "Strict1").createTable();`,
    { ...nodeEnv, clientOptions: {} },
  );
  assert.match(r.error?.message ?? "", /allowInsecureConnection/);
  // The wire log shows the request that never left, as failed.
  assert.equal(r.requests.length, 1);
  assert.equal(r.requests[0].status, 0);
  assert.match(r.requests[0].error, /allowInsecureConnection/);
});

test("formatValue: the same text in every environment", () => {
  assert.equal(formatValue("a b"), "a b");
  assert.equal(formatValue(3.5), "3.5");
  assert.equal(formatValue(undefined), "undefined");
  assert.equal(formatValue(null), "null");
  assert.equal(formatValue(10n), "10n");
  assert.equal(formatValue(new Date(Date.UTC(2026, 0, 2))), "2026-01-02T00:00:00.000Z");
  assert.equal(formatValue(new RangeError("x")), "RangeError: x");
  assert.equal(formatValue({ a: [1, "b"], n: 2n, bin: new Uint8Array([1, 2]) }), '{"a":[1,"b"],"n":"2n","bin":[1,2]}');
  const loop = {};
  loop.self = loop;
  assert.equal(formatValue(loop), "[object Object]");
});

test("run: code may import the SDK and declare the globals' names, as a module can", async () => {
  const r = await run(
    `import { TableClient, odata } from "@azure/data-tables";
     import {
       TableTransaction,
     } from '@azure/data-tables'
     const connectionString = "shadowed";
     function print(x) { console.log("mine:", x); }
     print(connectionString);
     print(typeof TableClient.fromConnectionString);`,
    browserEnv,
  );
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  assert.equal(r.output, "mine: shadowed\nmine: function");
  const other = await run(`import fs from "node:fs";`, browserEnv);
  assert.equal(other.error?.name, "SyntaxError");
});

test("withoutSdkImports keeps line numbers", () => {
  const code = 'import {\n  TableClient,\n} from "@azure/data-tables";\nprint(1);';
  assert.equal(withoutSdkImports(code), "\n\n\nprint(1);");
  const namespace = 'import * as tables from "@azure/data-tables";';
  assert.equal(withoutSdkImports(namespace), namespace);
  assert.equal(withoutSdkImports('const s = "import x from \'y\'";'), 'const s = "import x from \'y\'";');
});

// queueProgram takes a message, lets its visibility timeout pass (sleep:
// a real wait here, the store's clock in the browser), takes it again and
// deletes it, with a stale pop receipt on the way.
const queueProgram = (name) => `
const queues = QueueServiceClient.fromConnectionString(connectionString);
const q = queues.getQueueClient("${name}");
await q.create();
await q.sendMessage("héllo ✓");
const [a] = (await q.receiveMessages({ visibilityTimeout: 1 })).receivedMessageItems;
print(a.messageText, a.dequeueCount);
print((await q.receiveMessages()).receivedMessageItems.length);
await sleep(1.2);
const [b] = (await q.receiveMessages({ visibilityTimeout: 1 })).receivedMessageItems;
print(b.messageText, b.dequeueCount, b.messageId === a.messageId);
try { await q.deleteMessage(a.messageId, a.popReceipt); } catch (e) { print(e.statusCode, e.code); }
await q.deleteMessage(b.messageId, b.popReceipt);
print((await q.peekMessages()).peekedMessageItems.length);
const names = [];
for await (const item of queues.listQueues({ prefix: "${name}" })) names.push(item.name);
print(names);
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserStorageEnv],
  ["Node SDK over HTTP", () => nodeStorageEnv],
]) {
  test(`run, queues: ${name}`, async () => {
    const queue = "q" + name.length;
    const r = await run(queueProgram(queue), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error) + "\n" + r.output);
    assert.equal(r.output, `héllo ✓ 1\n0\nhéllo ✓ 2 true\n404 MessageNotFound\n0\n["${queue}"]`);
    // Every request is recorded, once, with its service's bodies.
    assert.deepEqual(
      r.requests.map((q) => `${q.method} ${q.status}`),
      ["PUT 201", "POST 201", "GET 200", "GET 200", "GET 200", "DELETE 404", "DELETE 204", "GET 200", "GET 200"],
    );
    assert.match(r.requests[1].requestBody, /<MessageText>héllo ✓<\/MessageText>/);
    assert.match(r.requests[2].responseBody, /<DequeueCount>1<\/DequeueCount>/);
    assert.deepEqual(r.plans, []);
  });
}

// blobProgram uploads text and bytes, lists by prefix and delimiter, reads
// a range and all the bytes back, and fails a conditional write.
const blobProgram = (name) => `
const service = BlobServiceClient.fromConnectionString(connectionString);
const box = service.getContainerClient("${name}");
await box.create();
for (const n of ["a/1.txt", "a/2.txt", "b/3.txt", "top.txt"]) await box.getBlockBlobClient(n).upload("body of " + n, 8 + n.length);
for await (const item of box.listBlobsByHierarchy("/")) print(item.kind, item.name);
const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 7) & 255);
const bin = box.getBlockBlobClient("bin/all bytes.bin");
await bin.upload(bytes, bytes.length);
const back = await readAll(await bin.download());
print(back.length, back.every((b, i) => b === bytes[i]));
print(new TextDecoder().decode(await readAll(await box.getBlockBlobClient("a/2.txt").download(8, 3))));
const props = await bin.getProperties();
print(props.contentLength, props.contentMD5.length);
await bin.upload("newer", 5);
try { await bin.upload("mine", 4, { conditions: { ifMatch: props.etag } }); } catch (e) { print(e.statusCode, e.code); }
async function readAll(download) {
  if (download.blobBody) return new Uint8Array(await (await download.blobBody).arrayBuffer());
  const chunks = [];
  for await (const c of download.readableStreamBody) chunks.push(...c);
  return Uint8Array.from(chunks);
}
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserStorageEnv],
  ["Node SDK over HTTP", () => nodeStorageEnv],
]) {
  test(`run, blobs: ${name}`, async () => {
    const container = "box" + name.length;
    const r = await run(blobProgram(container), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error) + "\n" + r.output);
    assert.equal(r.output, "prefix a/\nprefix b/\nblob top.txt\n300 true\na/2\n300 16\n412 ConditionNotMet");
    const upload = r.requests.find((q) => q.method === "PUT" && q.url.includes("all%20bytes"));
    assert.equal(upload.requestBody, "(300 bytes)");
    assert.deepEqual(r.plans, []);
  });
}

// scorecardProgram loads one partition of orders plus a few of another
// customer, then scores four ways of reading them: a point read, a range
// read page by page, a partition scan and a table scan (returned as an
// iterable the scorecard drains), with one read outside any scorecard.
const scorecardProgram = (table) => `
const t = TableClient.fromConnectionString(connectionString, "${table}");
await t.createTable();
const tx = new TableTransaction();
for (let i = 0; i < 12; i++) tx.createEntity({ partitionKey: "c1", rowKey: "o" + String(i).padStart(2, "0"), total: i * 10 });
await t.submitTransaction(tx.actions);
await t.createEntity({ partitionKey: "c2", rowKey: "o00", total: 5 });
await t.getEntity("c2", "o00");
const card = await scorecard("by customer", {
  "one order": () => t.getEntity("c1", "o03"),
  "orders of a customer, 5 a page": async () => {
    for await (const page of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${"c1"} and RowKey ge \${"o"} and RowKey lt \${"p"}\` } }).byPage({ maxPageSize: 5 })) {}
  },
  "a customer's big orders": () => t.listEntities({ queryOptions: { filter: "PartitionKey eq 'c1' and total ge 100" } }),
  "big orders anywhere": () => t.listEntities({ queryOptions: { filter: "total ge 100" } }),
  "nothing read": async () => {},
});
print(card.rows.map((r) => r.reads).join(","));
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserEnv],
  ["Node SDK over HTTP", () => nodeEnv],
]) {
  test(`scorecard: one line a check from its reads, ${name}`, async () => {
    const heard = [];
    const r = await run(scorecardProgram("Score" + name.length), { ...envOf(), onScorecard: (c) => heard.push(c) });
    assert.equal(r.error, undefined, JSON.stringify(r.error) + "\n" + r.output);
    assert.equal(
      r.output,
      [
        "by customer",
        "  one order: point, 1 examined / 1 returned",
        "  orders of a customer, 5 a page: range ×3, 12 examined / 12 returned",
        "  a customer's big orders: partition-scan, 12 examined / 2 returned",
        "  big orders anywhere: table-scan, 13 examined / 2 returned",
        "  nothing read: no reads",
        "1,3,1,1,0",
      ].join("\n"),
    );
    // The scorecard's reads are the run's queries like any other.
    assert.deepEqual(r.plans, ["point", "point", "range", "range", "range", "partition-scan", "table-scan"]);
    assert.equal(r.scorecards.length, 1);
    assert.deepEqual(heard, r.scorecards);
    // Three pages of entities of 36 bytes each (the service's count):
    // the Cosmos DB model charges each entity a page examined 1 RU.
    assert.deepEqual(r.scorecards[0].rows[1], {
      name: "orders of a customer, 5 a page",
      plan: "range",
      reads: 3,
      examined: 12,
      returned: 12,
      requests: 3,
      writes: 0,
      written: 0,
      deleted: 0,
      bytes: 0,
      ru: 12,
      hottest: 12,
      hottestPartition: `Score${name.length}/c1`,
      line: "  orders of a customer, 5 a page: range ×3, 12 examined / 12 returned",
    });
  });
}

// writesProgram writes the ways the SDK can, inside a scorecard with
// volumes: what each check wrote and what a month of it costs must be
// the same through the browser bundle and the Node SDK.
const writesProgram = (table) => `
const t = TableClient.fromConnectionString(connectionString, "${table}");
await t.createTable();
await t.submitTransaction([["create", { partitionKey: "a", rowKey: "1", name: "Zoë", n: 7, big: 2.5, flag: true }]]);
await scorecard("writes", {
  "one insert": () => t.createEntity({ partitionKey: "a", rowKey: "2", name: "Ola" }),
  "a batch": () => t.submitTransaction([
    ["create", { partitionKey: "a", rowKey: "3", when: new Date(0), id: { value: "9f1b2c3d-0000-4000-8000-000000000001", type: "Guid" } }],
    ["upsert", { partitionKey: "a", rowKey: "4", big: { value: "12345678901", type: "Int64" } }, "Replace"],
    ["delete", { partitionKey: "a", rowKey: "2" }],
  ]),
  "read, then merge": async () => {
    const e = await t.getEntity("a", "1");
    await t.updateEntity({ partitionKey: "a", rowKey: "1", n: e.n + 1 }, "Merge", { etag: e.etag });
  },
  "a refused write": async () => {
    try {
      await t.createEntity({ partitionKey: "a", rowKey: "1" });
    } catch (e) {
      print("refused:", e.statusCode);
    }
  },
}, { perSecond: { "one insert": 5, "read, then merge": 100 }, entities: { ${table}: 2000000 } });
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserEnv],
  ["Node SDK over HTTP", () => nodeEnv],
]) {
  test(`scorecard: writes counted by the service's entity size, and a month of them priced, ${name}`, async () => {
    const table = "Writes" + name.length;
    const r = await run(writesProgram(table), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error) + "\n" + r.output);
    // Sizes as the service counts them: 4 + 2×(keys) + per property 8 +
    // 2×name + value (a String 4 + 2×length, Int32 4, Double, Int64 and
    // DateTime 8, Boolean 1, Guid 16): "Ola" is 8 + 26; the batch 60 + 30;
    // the merge 8 + 14. Transactions at $0.00036 per 10,000 over 730
    // hours (5/s × 1 request: $0.473; 100/s × 2: $18.92); storage at
    // $0.045 per GB-month, at the mean of the five entities written (87,
    // 34, 60, 30, 22 bytes).
    assert.equal(
      r.output,
      [
        "writes",
        "  one insert: wrote 1 entity (34 bytes) in 1 request · 5/s: $0.47 a month",
        "  a batch: wrote 2 entities (90 bytes), deleted 1 entity in 1 request",
        "  read, then merge: point, 1 examined / 1 returned; wrote 1 entity (22 bytes) in 1 request · 100/s: $18.92 a month",
        "refused: 409",
        "  a refused write: wrote nothing in 1 request",
        `  stored: 2,000,000 entities, 88.9 MiB: <$0.01 a month`,
        "  in all: $19.40 a month",
      ].join("\n"),
    );
    const rows = Object.fromEntries(r.scorecards[0].rows.map((row) => [row.name, row]));
    assert.deepEqual([rows["a batch"].written, rows["a batch"].deleted, rows["a batch"].bytes, rows["a batch"].requests], [2, 1, 90, 1]);
    assert.equal(rows["read, then merge"].requests, 2);
    assert.equal(r.scorecards[0].stored.entities, 2000000);
  });
}

// latencyProgram reads the same five entities one after another and
// all at once: the latency model must give both envs the same times.
const latencyProgram = (table) => `
const t = TableClient.fromConnectionString(connectionString, "${table}");
await t.createTable();
await t.submitTransaction([1, 2, 3, 4, 5].map((i) => ["create", { partitionKey: "p", rowKey: "r" + i }]));
const keys = ["r1", "r2", "r3", "r4", "r5"];
await scorecard("five reads", {
  "in sequence": async () => { for (const k of keys) await t.getEntity("p", k); },
  "in parallel": () => Promise.all(keys.map((k) => t.getEntity("p", k))),
  "one query": () => t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${"p"}\` } }),
  "a read, then four at once": async () => {
    await t.getEntity("p", "r1");
    await Promise.all(keys.slice(1).map((k) => t.getEntity("p", k)));
  },
}, { latency: true, perSecond: { "in parallel": 10 } });
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserEnv],
  ["Node SDK over HTTP", () => nodeEnv],
]) {
  test(`scorecard: the latency model's time, the same whatever carries the requests, ${name}`, async () => {
    const r = await run(latencyProgram("Latency" + name.length), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error) + "\n" + r.output);
    assert.equal(
      r.output,
      [
        "five reads",
        "  in sequence: point ×5, 5 examined / 5 returned · 50 ms",
        "  in parallel: point ×5, 5 examined / 5 returned · 10 ms · 10/s: $4.73 a month",
        "  one query: partition-scan, 5 examined / 5 returned · 10 ms",
        "  a read, then four at once: point ×5, 5 examined / 5 returned · 20 ms",
        "  in all: $4.73 a month",
      ].join("\n"),
    );
    assert.deepEqual(r.scorecards[0].rows.map((row) => row.ms), [50, 10, 10, 20]);
  });
}

test("scorecard: volumes that name no check, or are not numbers, are refused before anything runs", async () => {
  for (const [options, message] of [
    [`{ perSecond: { "nope": 3 } }`, /perSecond names "nope", which is not one of the checks/],
    [`{ perSecond: { "a": "fast" } }`, /must be a number of times a second/],
    [`{ entities: "many" }`, /entities must be a number of entities/],
    [`{ entities: { Nothing: 10 } }`, /no entity of Nothing was written in this run/],
  ]) {
    const r = await run(`await scorecard("v", { a: async () => {} }, ${options});`, browserEnv);
    assert.equal(r.error?.name, "TypeError", options);
    assert.match(r.error.message, message);
  }
});

test("scorecard: a check that throws ends the program with its error; a check that is not a function is refused", async () => {
  let r = await run(
    `const t = TableClient.fromConnectionString(connectionString, "ScoreMissing");
     await scorecard("missing", { "a read": () => t.getEntity("a", "b"), "never run": () => t.getEntity("c", "d") });`,
    browserEnv,
  );
  assert.equal(r.output, "missing");
  assert.equal(r.error?.statusCode, 404);
  assert.equal(r.requests.length, 1);
  r = await run(`await scorecard("bad", { "not code": 42 });`, browserEnv);
  assert.equal(r.output, "bad");
  assert.equal(r.error?.name, "TypeError");
  assert.match(r.error.message, /"not code" is not a function/);
});

test("summarizeReads and scorecardLine: the costliest plan, the sums, thousands grouped", () => {
  const reads = [
    { plan: "range", examined: 1500, returned: 10 },
    { plan: "table-scan", examined: 10000, returned: 3 },
    { plan: "point", examined: 1, returned: 1 },
  ];
  const s = summarizeReads(reads);
  assert.deepEqual(s, { plan: "table-scan", reads: 3, examined: 11501, returned: 14 });
  assert.equal(scorecardLine({ name: "x", ...s }), "  x: table-scan ×3, 11,501 examined / 14 returned");
  assert.equal(scorecardLine({ name: "y", ...summarizeReads([{ plan: "partition-scan", examined: 1234567, returned: 0 }]) }), "  y: partition-scan, 1,234,567 examined / 0 returned");
  assert.equal(scorecardLine({ name: "z", ...summarizeReads([]) }), "  z: no reads");
  assert.deepEqual(PLAN_COST, ["point", "range", "index", "partition-scan", "table-scan"]);
  // Cosmos DB for Table's index: dearer than a range, cheaper than a scan.
  assert.equal(summarizeReads([{ plan: "index", examined: 4, returned: 4 }, { plan: "range", examined: 9, returned: 2 }]).plan, "index");
  assert.equal(summarizeReads([{ plan: "index", examined: 4, returned: 4 }, { plan: "partition-scan", examined: 9, returned: 2 }]).plan, "partition-scan");
});

// heatProgram writes and reads two partitions every way the SDK can, so
// that the heat model is held to the requests the SDK really sends.
const heatProgram = (table) => `
const t = TableClient.fromConnectionString(connectionString, "${table}");
await t.createTable();
const tx = new TableTransaction();
for (let i = 0; i < 40; i++) tx.createEntity({ partitionKey: "hot", rowKey: "r" + String(i).padStart(2, "0") });
await t.submitTransaction(tx.actions);
await t.createEntity({ partitionKey: "it's cold", rowKey: "a" });
await t.upsertEntity({ partitionKey: "it's cold", rowKey: "b" }, "Replace");
await t.updateEntity({ partitionKey: "it's cold", rowKey: "a", n: 1 }, "Merge");
await t.getEntity("it's cold", "a");
await t.deleteEntity("it's cold", "b");
for await (const _ of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${"hot"} and RowKey lt \${"r10"}\` } }));
for await (const _ of t.listEntities({ queryOptions: { filter: "RowKey ge 'r30'" } }));
`;

for (const [name, envOf] of [
  ["browser bundle through the engine transport", () => browserEnv],
  ["Node SDK over HTTP", () => nodeEnv],
]) {
  test(`heat: what the SDK sends is counted per partition, ${name}`, async () => {
    const r = await run(heatProgram("Heat" + name.length), envOf());
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    assert.ok(r.requests.every((q) => !Number.isNaN(Date.parse(q.date))), "every request has the store's Date");
    const heat = new Heat();
    for (const q of r.requests) heat.add(q);
    const s = heat.summary();
    // hot: 40 inserts in a batch and a range that examined 10;
    // it's cold: insert, upsert, merge, a point read and a delete.
    assert.deepEqual(s.partitions.map((p) => [p.partition, p.total]), [["hot", 50], ["it's cold", 5]]);
    // The table scan examined all 41 left, counted apart.
    assert.deepEqual(s.scans.map((x) => [x.table, x.total]), [["Heat" + name.length, 41]]);
  });
}
