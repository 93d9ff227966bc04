// worker.js and app.wasm end to end under Node, through the page's message
// protocol (contract 3). TABLELAB_ENGINE_DIR holds app.wasm, wasm_exec.js
// and worker.js; `go run ./build wasm` and the test command's wasm tier set
// it after building them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { IDBFactory, IDBKeyRange } from "fake-indexeddb";
import { load, request, parseResponse, message, parseMessage } from "./page.mjs";

const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");
const account = "/devstoreaccount1";

// client returns helpers for one store of a loaded worker.
async function client(page, store) {
  const op = async (name, data) => {
    const answer = await page.call({ store, op: name, data });
    if (answer.error !== undefined) throw new Error(`${name}: ${answer.error}`);
    return answer.result;
  };
  const sas = await op("sas");
  const serve = async (method, target, body, headers) => {
    const signed = target + (target.includes("?") ? "&" : "?") + sas;
    const answer = await page.call({ store, req: request(method, signed, body, headers) });
    assert.equal(typeof answer.resp, "string", JSON.stringify(answer));
    return parseResponse(answer.resp);
  };
  // send is serve for the Queue and Blob services: bytes each way.
  const send = async (method, target, host, body, headers) => {
    const signed = target + (target.includes("?") ? "&" : "?") + sas;
    const answer = await page.call({ store, req: message(method, signed, host, body, headers) });
    assert.ok(answer.resp instanceof Uint8Array, JSON.stringify(answer).slice(0, 300));
    return parseMessage(answer.resp);
  };
  return { op, serve, send, sas };
}

const blobHost = "127.0.0.1:10000";
const queueHost = "127.0.0.1:10001";

test("requests and responses cross as raw HTTP text, with the plan headers on reads", async () => {
  const page = await load(dir);
  const c = await client(page, "example-1");
  assert.match(c.sas, /(^|&)sig=/);
  assert.match(c.sas, /(^|&)srt=sco(&|$)/);

  let r = await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Orders" }));
  assert.equal(r.status, 201, r.body);
  r = await c.serve("POST", `${account}/Orders`, JSON.stringify({ PartitionKey: "p1", RowKey: "r1", Total: 12, "Big@odata.type": "Edm.Int64", Big: "9007199254740993", Note: "été 🚀" }));
  assert.equal(r.status, 201, r.body);
  assert.match(r.headers.etag, /^W\/"datetime'/);

  r = await c.serve("GET", `${account}/Orders(PartitionKey='p1',RowKey='r1')`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.statusLine, "HTTP/1.1 200 OK");
  assert.equal(JSON.parse(r.body).Total, 12);

  r = await c.serve("GET", `${account}/Orders()?$filter=${encodeURIComponent("PartitionKey eq 'p1' and RowKey eq 'r1'")}`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers["x-tablelab-plan"], "point");
  assert.equal(r.headers["x-tablelab-examined"], "1");
  assert.equal(r.headers["x-tablelab-returned"], "1");
  assert.equal(Number(r.headers["content-length"]), Buffer.byteLength(r.body));
  const e = JSON.parse(r.body).value[0];
  assert.equal(e.Total, 12);
  assert.equal(e.Big, "9007199254740993");
  assert.equal(e.Note, "été 🚀");

  r = await c.serve("GET", `${account}/Orders()?$filter=${encodeURIComponent("PartitionKey eq 'p1' and Total gt 10")}`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers["x-tablelab-plan"], "partition-scan");
  assert.equal(JSON.parse(r.body).value.length, 1);
});

test("failures answer in the service's format, never a stuck promise", async () => {
  const page = await load(dir);
  const c = await client(page, "example-2");
  // No credentials: the service's 403.
  let answer = await page.call({ store: "example-2", req: request("GET", `${account}/Tables`) });
  let r = parseResponse(answer.resp);
  assert.equal(r.status, 403);
  assert.match(r.body, /"code":"Authorization/);
  // Not HTTP at all.
  answer = await page.call({ store: "example-2", req: "hello" });
  r = parseResponse(answer.resp);
  assert.equal(r.status, 400);
  assert.match(r.body, /"code":"InvalidInput"/);
  // A missing table.
  r = await c.serve("GET", `${account}/Nope()`);
  assert.equal(r.status, 404);
  assert.match(r.body, /TableNotFound/);
  // Ops that fail answer {error}.
  answer = await page.call({ store: "example-2", op: "import", data: "{not json" });
  assert.equal(typeof answer.error, "string");
  answer = await page.call({ store: "example-2", op: "frobnicate" });
  assert.match(answer.error, /unknown op/);
});

test("each named store is a store of its own", async () => {
  const page = await load(dir);
  const a = await client(page, "example-a");
  const b = await client(page, "example-b");
  assert.equal((await a.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "OnlyInA" }))).status, 201);
  const listA = JSON.parse((await a.serve("GET", `${account}/Tables`)).body).value.map((t) => t.TableName);
  const listB = JSON.parse((await b.serve("GET", `${account}/Tables`)).body).value.map((t) => t.TableName);
  assert.deepEqual(listA, ["OnlyInA"]);
  assert.deepEqual(listB, []);
  // Resetting a memory store forgets it.
  await a.op("reset");
  assert.deepEqual(JSON.parse((await a.serve("GET", `${account}/Tables`)).body).value, []);
});

test("the playground survives a reload in IndexedDB: tables, ETags, Timestamps, batches whole", async () => {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  let page = await load(dir, idb);
  let c = await client(page, "playground");
  assert.equal((await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Kept" }))).status, 201);
  const ins = await c.serve("POST", `${account}/Kept`, JSON.stringify({ PartitionKey: "p", RowKey: "1", N: 1 }));
  assert.equal(ins.status, 201);
  // An import writes each partition's run as batches of up to 100.
  const rows = Array.from({ length: 250 }, (_, i) => `{"PartitionKey":"q","RowKey":"${String(i).padStart(3, "0")}","V":${i}}`);
  await c.op("import", `{"tablelab":"export/1","tables":[{"name":"Kept","entities":[${rows.join(",")}]}]}`);
  const before = await c.serve("GET", `${account}/Kept(PartitionKey='p',RowKey='1')`);
  const beforeAll = JSON.parse((await c.serve("GET", `${account}/Kept()`, "", { Accept: "application/json;odata=minimalmetadata" })).body).value;
  assert.equal(beforeAll.length, 251);

  page = await load(dir, idb); // a reload: a fresh worker, the same IndexedDB
  c = await client(page, "playground");
  const after = await c.serve("GET", `${account}/Kept(PartitionKey='p',RowKey='1')`);
  assert.equal(after.status, 200, after.body);
  assert.equal(after.headers.etag, before.headers.etag);
  assert.equal(JSON.parse(after.body).Timestamp, JSON.parse(before.body).Timestamp);
  const afterAll = JSON.parse((await c.serve("GET", `${account}/Kept()`, "", { Accept: "application/json;odata=minimalmetadata" })).body).value;
  assert.deepEqual(afterAll, beforeAll);
  // A new write after the reload gets a later Timestamp than any before.
  const upd = await c.serve("PUT", `${account}/Kept(PartitionKey='p',RowKey='1')`, JSON.stringify({ N: 2 }), { "If-Match": "*" });
  assert.equal(upd.status, 204, upd.body);
  assert.ok(upd.headers.etag > before.headers.etag);

  // Other stores stay in memory.
  const other = await client(page, "example-x");
  assert.deepEqual(JSON.parse((await other.serve("GET", `${account}/Tables`)).body).value, []);

  // Reset empties the playground for good.
  await c.op("reset");
  page = await load(dir, idb);
  c = await client(page, "playground");
  assert.deepEqual(JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value, []);
});

test("a log past the compaction size becomes a snapshot, and a reload reads it back", async () => {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  let page = await load(dir, idb);
  let c = await client(page, "playground");
  const pad = "x".repeat(600);
  const rows = Array.from({ length: 3000 }, (_, i) => `{"PartitionKey":"p${i % 7}","RowKey":"${i}","Pad":"${pad}","I":${i}}`);
  await c.op("import", `{"tablelab":"export/1","tables":[{"name":"Big","entities":[${rows.join(",")}]}]}`);
  // The compaction runs after the write that crossed the size: wait for
  // the snapshot to appear.
  const snapshotKeys = () =>
    new Promise((resolve, reject) => {
      const open = idb.indexedDB.open("tablelab", 1);
      open.onsuccess = () => {
        const req = open.result.transaction("snapshots").objectStore("snapshots").getAllKeys();
        req.onsuccess = () => { open.result.close(); resolve(req.result); };
        req.onerror = () => reject(req.error);
      };
      open.onerror = () => reject(open.error);
    });
  let keys = [];
  for (let i = 0; i < 100 && keys.length === 0; i++) {
    keys = await snapshotKeys();
    if (keys.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  assert.deepEqual(keys, ["playground"]);
  // Writes after the snapshot land in the log.
  assert.equal((await c.serve("POST", `${account}/Big`, JSON.stringify({ PartitionKey: "z", RowKey: "after" }))).status, 201);

  page = await load(dir, idb);
  c = await client(page, "playground");
  let count = 0;
  let next = "";
  do {
    const r = await c.serve("GET", `${account}/Big()?$select=RowKey${next}`);
    count += JSON.parse(r.body).value.length;
    const pk = r.headers["x-ms-continuation-nextpartitionkey"];
    const rk = r.headers["x-ms-continuation-nextrowkey"];
    next = pk ? `&NextPartitionKey=${encodeURIComponent(pk)}&NextRowKey=${encodeURIComponent(rk)}` : "";
  } while (next);
  assert.equal(count, 3001);
});

test("export, reset, import gives back the same tables and entities", async () => {
  const page = await load(dir, { indexedDB: new IDBFactory(), IDBKeyRange });
  const c = await client(page, "playground");
  await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Typed" }));
  await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Empty" }));
  const entity = {
    PartitionKey: "p'1", RowKey: "r 1", S: "line\nbreak \"quoted\" été", I: 7, D: 2.5,
    "L@odata.type": "Edm.Int64", L: "-9223372036854775808",
    "T@odata.type": "Edm.DateTime", T: "2024-01-02T03:04:05.1234567Z",
    "G@odata.type": "Edm.Guid", G: "c9da6455-213d-42c9-9a79-3e9149a57833",
    "B@odata.type": "Edm.Binary", B: "AAH/", Yes: true,
    "N@odata.type": "Edm.Double", N: "NaN",
  };
  assert.equal((await c.serve("POST", `${account}/Typed`, JSON.stringify(entity))).status, 201);
  const read = async () => {
    const tables = JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value.map((t) => t.TableName);
    const r = await c.serve("GET", `${account}/Typed()`, "", { Accept: "application/json;odata=fullmetadata" });
    const value = JSON.parse(r.body).value.map(({ Timestamp, "odata.etag": _, ...rest }) => rest);
    return { tables, value };
  };
  const before = await read();
  const text = await c.op("export");
  assert.equal(JSON.parse(text).tablelab, "export/1");
  await c.op("reset");
  assert.deepEqual(JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value, []);
  await c.op("import", text);
  assert.deepEqual(await read(), before);
  // Importing twice changes nothing but Timestamps.
  await c.op("import", text);
  assert.deepEqual(await read(), before);
});

test("requests and responses larger than the direct bridge's buffer cross whole", async () => {
  const page = await load(dir);
  const c = await client(page, "example-big");
  assert.equal((await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Wide" }))).status, 201);
  // 30,000 characters of three UTF-8 bytes each: a 90 KB request.
  const text = "€".repeat(30000);
  let r = await c.serve("POST", `${account}/Wide`, JSON.stringify({ PartitionKey: "p", RowKey: "wide", Text: text }));
  assert.equal(r.status, 201, r.body.slice(0, 300));
  r = await c.serve("GET", `${account}/Wide(PartitionKey='p',RowKey='wide')`);
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body).Text, text);
  // A page of 1,000 entities: a response of several hundred kilobytes.
  const rows = Array.from({ length: 1000 }, (_, i) => `{"PartitionKey":"q","RowKey":"${String(i).padStart(4, "0")}","Pad":"${"x".repeat(300)}"}`);
  await c.op("import", `{"tablelab":"export/1","tables":[{"name":"Wide","entities":[${rows.join(",")}]}]}`);
  r = await c.serve("GET", `${account}/Wide()?$filter=${encodeURIComponent("PartitionKey eq 'q'")}`);
  assert.equal(r.status, 200);
  assert.equal(Number(r.headers["content-length"]), Buffer.byteLength(r.body));
  assert.ok(r.body.length > 300000);
  assert.equal(JSON.parse(r.body).value.length, 1000);
  assert.equal(r.headers["x-tablelab-returned"], "1000");
});

test("a request held as bytes is answered as bytes, the same as its text", async () => {
  const page = await load(dir);
  const c = await client(page, "example-bytes");
  assert.match(c.sas, /(^|&)ss=bqt(&|$)/);
  const text = request("POST", `${account}/Tables?${c.sas}`, JSON.stringify({ TableName: "Bytes" }));
  const answer = await page.call({ store: "example-bytes", req: new TextEncoder().encode(text) });
  assert.ok(answer.resp instanceof Uint8Array);
  const r = parseMessage(answer.resp);
  assert.equal(r.status, 201, r.text);
  assert.equal(JSON.parse(r.text).TableName, "Bytes");
});

test("advance moves a store's clock on, and nothing else's", async () => {
  const page = await load(dir);
  const a = await client(page, "example-clock-a");
  const b = await client(page, "example-clock-b");
  const date = async (c) => Date.parse((await c.serve("GET", `${account}/Tables`)).headers.date);
  const before = await date(a);
  await a.op("advance", "7200");
  const after = await date(a);
  assert.ok(after - before >= 7200e3 && after - before < 7260e3, `${after - before} ms`);
  assert.ok(Math.abs((await date(b)) - before) < 60e3);
  await assert.rejects(a.op("advance", "-1"), /advance/);
  await assert.rejects(a.op("advance", "soon"), /advance/);
});

test("queues and blobs: routed by port, bodies as bytes, ranges; the playground's kept in IndexedDB a log each; reset empties all three", async () => {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  let page = await load(dir, idb);
  let c = await client(page, "playground");
  let r = await c.send("PUT", `${account}/jobs`, queueHost);
  assert.equal(r.status, 201, r.text);
  r = await c.send("POST", `${account}/jobs/messages`, queueHost, "<QueueMessage><MessageText>kept ✓</MessageText></QueueMessage>");
  assert.equal(r.status, 201, r.text);
  r = await c.send("PUT", `${account}/photos?restype=container`, blobHost);
  assert.equal(r.status, 201, r.text);
  const bytes = Uint8Array.from({ length: 70000 }, (_, i) => (i * 31 + (i >> 8)) & 255);
  r = await c.send("PUT", `${account}/photos/2026/a%20b.bin`, blobHost, bytes, { "x-ms-blob-type": "BlockBlob" });
  assert.equal(r.status, 201, r.text);
  r = await c.send("GET", `${account}/photos/2026/a%20b.bin`, blobHost, "", { "x-ms-range": "bytes=100-199" });
  assert.equal(r.status, 206, r.text);
  assert.deepEqual([...r.body], [...bytes.subarray(100, 200)]);
  r = await c.send("GET", `${account}/photos/2026/a%20b.bin`, blobHost);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers["content-length"], String(bytes.length));
  assert.ok(r.body.length === bytes.length && r.body.every((b, i) => b === bytes[i]), "the blob's bytes, whole");
  r = await c.send("HEAD", `${account}/photos/2026/a%20b.bin`, blobHost);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.headers["content-length"], String(bytes.length));
  assert.equal(r.body.length, 0);
  assert.equal((await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Beside" }))).status, 201);

  // Each service keeps a log of its own.
  const logNames = () =>
    new Promise((resolve, reject) => {
      const open = idb.indexedDB.open("tablelab", 1);
      open.onsuccess = () => {
        const req = open.result.transaction("log").objectStore("log").getAllKeys();
        req.onsuccess = () => { open.result.close(); resolve([...new Set(req.result.map((k) => k[0]))].sort()); };
        req.onerror = () => reject(req.error);
      };
      open.onerror = () => reject(open.error);
    });
  assert.deepEqual(await logNames(), ["playground", "playground/blob", "playground/queue"]);

  page = await load(dir, idb); // a reload: a fresh worker, the same IndexedDB
  c = await client(page, "playground");
  r = await c.send("GET", `${account}/jobs/messages?peekonly=true`, queueHost);
  assert.equal(r.status, 200, r.text);
  assert.match(r.text, /<MessageText>kept ✓<\/MessageText>/);
  r = await c.send("GET", `${account}/photos/2026/a%20b.bin`, blobHost);
  assert.equal(r.status, 200, r.text);
  assert.ok(r.body.length === bytes.length && r.body.every((b, i) => b === bytes[i]), "the blob's bytes after a reload");
  assert.equal(JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value.length, 1);

  await c.op("reset");
  page = await load(dir, idb);
  c = await client(page, "playground");
  r = await c.send("GET", `${account}/jobs/messages?peekonly=true`, queueHost);
  assert.equal(r.status, 404);
  assert.match(r.text, /<Code>QueueNotFound<\/Code>/);
  r = await c.send("GET", `${account}/photos/2026/a%20b.bin`, blobHost);
  assert.equal(r.status, 404);
  assert.match(r.text, /<Code>ContainerNotFound<\/Code>/);
  assert.deepEqual(JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value, []);
});

test("a message's visibility timeout passes when the store's clock is advanced", async () => {
  const page = await load(dir);
  const c = await client(page, "example-visibility");
  assert.equal((await c.send("PUT", `${account}/work`, queueHost)).status, 201);
  assert.equal((await c.send("POST", `${account}/work/messages`, queueHost, "<QueueMessage><MessageText>w</MessageText></QueueMessage>")).status, 201);
  const take = async () => {
    const r = await c.send("GET", `${account}/work/messages?visibilitytimeout=30`, queueHost);
    assert.equal(r.status, 200, r.text);
    return r.text.match(/<DequeueCount>(\d+)<\/DequeueCount>/)?.[1];
  };
  assert.equal(await take(), "1");
  assert.equal(await take(), undefined);
  await c.op("advance", "29");
  assert.equal(await take(), undefined);
  await c.op("advance", "2");
  assert.equal(await take(), "2");
});

test("a request to a store in memory is answered in the turn its message came in, the playground's once IndexedDB has stored it", async () => {
  const page = await load(dir, { indexedDB: new IDBFactory(), IDBKeyRange });
  const sas = (await page.call({ op: "sas" })).result;
  const { globals } = page;
  const answers = [];
  const post = globals.postMessage;
  globals.postMessage = (msg) => answers.push(structuredClone(msg));
  try {
    const create = (id, store) =>
      globals.onmessage({ data: { id, store, req: request("POST", `${account}/Tables?${sas}`, JSON.stringify({ TableName: "Turn" })) } });
    create(1, "example-turn");
    assert.equal(answers.length, 1, "no answer in the message's turn");
    assert.equal(answers[0].id, 1);
    assert.equal(parseResponse(answers[0].resp).status, 201);
    create(2, "playground");
    assert.equal(answers.length, 1, "the playground answered before IndexedDB could store the table");
    for (let i = 0; i < 500 && answers.length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(answers.length, 2, "the playground never answered");
    assert.equal(answers[1].id, 2);
    assert.equal(parseResponse(answers[1].resp).status, 201);
  } finally {
    globals.postMessage = post;
  }
});

test("replace puts an export's tables in place of the playground's as one write, checked first; queues stay; a reload keeps it", async () => {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  let page = await load(dir, idb);
  let c = await client(page, "playground");
  assert.equal((await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Old" }))).status, 201);
  assert.equal((await c.serve("POST", `${account}/Old`, JSON.stringify({ PartitionKey: "p", RowKey: "1" }))).status, 201);
  assert.equal((await c.send("PUT", `${account}/jobs`, queueHost)).status, 201);
  const tables = async () => JSON.parse((await c.serve("GET", `${account}/Tables`)).body).value.map((t) => t.TableName).sort();
  const text = `{"tablelab":"export/1","tables":[\n{"name":"New","entities":[\n{"PartitionKey":"a","RowKey":"1","N":1},\n{"PartitionKey":"a","RowKey":"2","N":2}]}]}`;
  const bad = text.replace(`"RowKey":"2"`, `"RowKey":"2?"`);

  // A bad text rejects with its place and reason, and changes nothing,
  // whether it is replaced or imported.
  await assert.rejects(c.op("replace", bad), { message: "replace: line 4, column 1: table New, entity 2 (PartitionKey 'a', RowKey '2?'): its RowKey holds '?', which a key may not hold (nor any of / \\ # ? or a control character)" });
  await assert.rejects(c.op("import", bad), /line 4, column 1: table New, entity 2/);
  await assert.rejects(c.op("replace", "{\n  \"tablelab\": \"export/1\",\n  \"tables\": [}"), /^Error: replace: line 3, column 14: the text is not valid JSON/);
  assert.deepEqual(await tables(), ["Old"]);

  await c.op("replace", text);
  assert.deepEqual(await tables(), ["New"]);
  assert.equal(JSON.parse((await c.serve("GET", `${account}/New()`)).body).value.length, 2);
  assert.equal((await c.send("GET", `${account}/jobs/messages`, queueHost)).status, 200);

  page = await load(dir, idb); // a reload
  c = await client(page, "playground");
  assert.deepEqual(await tables(), ["New"]);
  assert.equal((await c.send("GET", `${account}/jobs/messages`, queueHost)).status, 200);
});

test("clone copies a store, the playground included, into one in memory that writes never share; never into the playground", async () => {
  const idb = { indexedDB: new IDBFactory(), IDBKeyRange };
  const page = await load(dir, idb);
  const p = await client(page, "playground");
  const s = await client(page, "scratch");
  assert.equal((await p.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Mine" }))).status, 201);
  const ins = await p.serve("POST", `${account}/Mine`, JSON.stringify({ PartitionKey: "p", RowKey: "1", N: 1 }));
  assert.equal(ins.status, 201);
  assert.equal((await p.send("PUT", `${account}/photos?restype=container`, blobHost)).status, 201);
  assert.equal((await p.send("PUT", `${account}/photos/a.txt`, blobHost, "alpha", { "x-ms-blob-type": "BlockBlob" })).status, 201);

  await p.op("clone", "scratch");
  let r = await s.serve("GET", `${account}/Mine(PartitionKey='p',RowKey='1')`);
  assert.equal(r.status, 200, r.body);
  assert.equal(r.headers.etag, ins.headers.etag);
  assert.equal(new TextDecoder().decode((await s.send("GET", `${account}/photos/a.txt`, blobHost)).body), "alpha");

  // A run against the copy leaves the playground as it was.
  assert.equal((await s.serve("PUT", `${account}/Mine(PartitionKey='p',RowKey='1')`, JSON.stringify({ N: 2 }), { "If-Match": "*" })).status, 204);
  assert.equal((await s.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "Extra" }))).status, 201);
  assert.equal((await s.send("DELETE", `${account}/photos/a.txt`, blobHost)).status, 202);
  r = await p.serve("GET", `${account}/Mine(PartitionKey='p',RowKey='1')`);
  assert.equal(JSON.parse(r.body).N, 1);
  assert.equal(r.headers.etag, ins.headers.etag);
  assert.equal((await p.serve("GET", `${account}/Extra()`)).status, 404);
  assert.equal((await p.send("GET", `${account}/photos/a.txt`, blobHost)).status, 200);

  // Cloning again replaces the copy; the playground is never a target.
  await p.op("clone", "scratch");
  assert.equal((await s.serve("GET", `${account}/Extra()`)).status, 404);
  await assert.rejects(s.op("clone", "playground"), /"playground" is the persistent one and cannot be the target of a clone/);
  assert.equal((await p.serve("GET", `${account}/Mine()`)).status, 200);
});

test("a filter that compares a property with a literal of another type is answered with X-Tablelab-Warning", async () => {
  const page = await load(dir);
  const c = await client(page, "example-warning");
  assert.equal((await c.serve("POST", `${account}/Tables`, JSON.stringify({ TableName: "People" }))).status, 201);
  for (const age of [30, 40]) {
    assert.equal((await c.serve("POST", `${account}/People`, JSON.stringify({ PartitionKey: "p", RowKey: `r${age}`, Age: age }))).status, 201);
  }
  let r = await c.serve("GET", `${account}/People()?$filter=${encodeURIComponent("Age gt 'x'")}`);
  assert.equal(r.status, 200, r.body);
  assert.equal(
    r.headers["x-tablelab-warning"],
    "Age is Edm.Int32 on all 2 entities where the filter tested it, but Age gt 'x' compares it with an Edm.String literal: values of different types never compare, so the test was false for every one (a number or a Boolean is written without quotes)",
  );
  r = await c.serve("GET", `${account}/People()?$filter=${encodeURIComponent("Age gt 35")}`);
  assert.equal(JSON.parse(r.body).value.length, 1);
  assert.equal(r.headers["x-tablelab-warning"], undefined);
});
