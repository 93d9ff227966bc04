// The Worker under Miniflare (workerd) on 127.0.0.1: what the SDK walks do
// not show. WORKER_DIR is the folder `go run ./build worker` wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startOnFreePorts } from "./runtime.mjs";
import { tableRequest } from "./signed.mjs";

const dir = process.env.WORKER_DIR;
if (!dir) throw new Error("set WORKER_DIR to the folder go run ./build worker wrote");

// withWorker runs fn(urls) against a fresh Worker with vars, then stops it.
async function withWorker(vars, fn, persist) {
  const own = !persist;
  persist ??= mkdtempSync(path.join(tmpdir(), "tablelab-worker-"));
  const { mf, ports: { blob, queue, table } } = await startOnFreePorts({ dir, persist, vars });
  try {
    return await fn({
      table: `http://127.0.0.1:${table}`,
      queue: `http://127.0.0.1:${queue}`,
      blob: `http://127.0.0.1:${blob}`,
    });
  } finally {
    await mf.dispose();
    if (own) rmSync(persist, { recursive: true, force: true });
  }
}

async function liveHeap(base) {
  const text = await (await fetch(base + "/_tablelab/heap")).text();
  const m = /live=(\d+)/.exec(text);
  assert.ok(m, `heap report: ${text}`);
  return +m[1];
}

const memory = { TABLELAB_DEV: "1", TABLELAB_STORAGE: "memory" };

test("the Go heap stays flat over 20,000 requests (one runtime for the isolate)", async (t) => {
  await withWorker(memory, async ({ table, queue }) => {
    let r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "heap" } });
    assert.equal(r.status, 201);
    // The same 200 keys over and over: the data stops growing early, so
    // whatever grows after that is leaked.
    const round = async (i) => {
      const pk = "p" + (i % 10), rk = "r" + (i % 200);
      switch (i % 5) {
        case 0:
        case 1:
          r = await tableRequest(table, "PUT", `/devstoreaccount1/heap(PartitionKey='${pk}',RowKey='${rk}')`, { body: { N: i, Text: "x".repeat(200) } });
          assert.equal(r.status, 204);
          break;
        case 2:
          r = await tableRequest(table, "GET", `/devstoreaccount1/heap(PartitionKey='${pk}',RowKey='${rk}')`);
          assert.ok(r.status === 200 || r.status === 404, `get ${r.status}`);
          break;
        case 3:
          r = await tableRequest(table, "GET", `/devstoreaccount1/heap()?$filter=PartitionKey%20eq%20'${pk}'&$top=5`);
          assert.equal(r.status, 200);
          break;
        case 4:
          // An answer with no body, and one from another service.
          r = await tableRequest(table, "DELETE", `/devstoreaccount1/heap(PartitionKey='${pk}',RowKey='${rk}')`, { headers: { "if-match": "*" } });
          assert.ok(r.status === 204 || r.status === 404, `delete ${r.status}`);
          r = await fetch(queue + "/devstoreaccount1?comp=list");
          assert.equal(r.status, 403);
          break;
      }
      await r.arrayBuffer();
    };
    for (let i = 0; i < 2000; i++) await round(i);
    const warm = await liveHeap(table);
    for (let i = 2000; i < 20000; i++) await round(i);
    const after = await liveHeap(table);
    t.diagnostic(`live Go heap: ${warm} bytes after 2,000 requests, ${after} after 20,000`);
    // Leaking even one 16 KiB buffer per answer would add 280 MiB.
    assert.ok(after - warm < 2 << 20, `live heap grew from ${warm} to ${after} bytes over 18,000 requests`);
  });
});

test("a request that panics gets a 500 in its service's format, and the next still sees the data", async () => {
  await withWorker(memory, async ({ table, queue }) => {
    let r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "kept" } });
    assert.equal(r.status, 201);
    r = await tableRequest(table, "POST", "/devstoreaccount1/kept", { body: { PartitionKey: "a", RowKey: "1", Word: "still here" } });
    assert.equal(r.status, 201);
    r = await tableRequest(table, "GET", "/devstoreaccount1/kept(PartitionKey='a',RowKey='1')", { headers: { "x-tablelab-test-panic": "1" } });
    assert.equal(r.status, 500);
    assert.equal((await r.json())["odata.error"].code, "InternalError");
    r = await fetch(queue + "/devstoreaccount1?comp=list", { headers: { "x-tablelab-test-panic": "1" } });
    assert.equal(r.status, 500);
    assert.match(await r.text(), /^<\?xml[^]*<Code>InternalError<\/Code>/);
    // The store is the one from before the panics: the runtime lived on.
    r = await tableRequest(table, "GET", "/devstoreaccount1/kept(PartitionKey='a',RowKey='1')");
    assert.equal(r.status, 200);
    assert.equal((await r.json()).Word, "still here");
  });
});

test("requests without a body (GET, DELETE) are answered", async () => {
  await withWorker(memory, async ({ table }) => {
    let r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { value: [] });
    r = await tableRequest(table, "DELETE", "/devstoreaccount1/Tables('none')");
    assert.equal(r.status, 404);
    await r.arrayBuffer();
  });
});

test("the in-isolate mode says it is ephemeral on every answer", async () => {
  await withWorker(memory, async ({ table }) => {
    const r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.equal(r.headers.get("x-tablelab-storage"), "ephemeral");
    await r.arrayBuffer();
  });
});

test("the development key is refused unless the dev flag is set", async () => {
  await withWorker({ TABLELAB_STORAGE: "memory" }, async ({ table }) => {
    const r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.equal(r.status, 500);
    assert.match(await r.text(), /no accounts/);
  });
  const key = Buffer.from("a key of our own, not the world's").toString("base64");
  await withWorker({ TABLELAB_STORAGE: "memory", TABLELAB_ACCOUNTS: `edge:${key}` }, async ({ table }) => {
    let r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.equal(r.status, 403);
    await r.arrayBuffer();
    r = await tableRequest(table, "GET", "/edge/Tables", { account: "edge", key });
    assert.equal(r.status, 200);
    await r.arrayBuffer();
  });
  const dev = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
  await withWorker({ TABLELAB_STORAGE: "memory", TABLELAB_ACCOUNTS: `devstoreaccount1:${dev}` }, async ({ table }) => {
    const r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.equal(r.status, 500);
    assert.match(await r.text(), /well-known key/);
  });
});

const durable = { TABLELAB_DEV: "1", TABLELAB_STORAGE: "durable" };

// batch is a $batch of inserts of rows into table in partition pk, the
// last of which may collide with an entity already there.
function batch(table, base, pk, rows) {
  const b = "batch_x", cs = "changeset_y";
  const parts = rows.map((rk) => [
    `--${cs}`, "Content-Type: application/http", "Content-Transfer-Encoding: binary", "",
    `POST ${base}/devstoreaccount1/${table} HTTP/1.1`, "Content-Type: application/json", "Accept: application/json;odata=nometadata", "Prefer: return-no-content", "",
    JSON.stringify({ PartitionKey: pk, RowKey: rk }),
  ].join("\r\n"));
  return [`--${b}`, `Content-Type: multipart/mixed; boundary=${cs}`, "", ...parts, `--${cs}--`, `--${b}--`, ""].join("\r\n");
}

test("Durable Objects: the data survives a restart of the runtime, and a batch is stored whole or not at all", async () => {
  const persist = mkdtempSync(path.join(tmpdir(), "tablelab-worker-"));
  try {
    await withWorker(durable, async ({ table, queue }) => {
      let r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "kept" } });
      assert.equal(r.status, 201);
      assert.equal(r.headers.get("x-tablelab-storage"), null);
      const send = (rows) => tableRequest(table, "POST", "/devstoreaccount1/$batch", {
        body: batch("kept", table, "p", rows),
        headers: { "content-type": "multipart/mixed; boundary=batch_x" },
      });
      r = await send(["1", "2", "3"]);
      assert.equal(r.status, 202);
      assert.match(await r.text(), /204 No Content/);
      // The last insert collides: none of the three may stay.
      r = await send(["4", "5", "1"]);
      assert.equal(r.status, 202);
      assert.match(await r.text(), /409 Conflict/);
      r = await fetch(queue + "/devstoreaccount1?comp=list");
      assert.equal(r.status, 403, "the Queue service answers from its own object");
      await r.arrayBuffer();
    }, persist);
    await withWorker(durable, async ({ table }) => {
      const r = await tableRequest(table, "GET", "/devstoreaccount1/kept()?$filter=PartitionKey%20eq%20'p'");
      assert.equal(r.status, 200);
      assert.deepEqual((await r.json()).value.map((e) => e.RowKey), ["1", "2", "3"]);
    }, persist);
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
});

test("Durable Objects: a request that panics gets a 500, and the object's data is still there", async () => {
  await withWorker(durable, async ({ table }) => {
    let r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "kept" } });
    assert.equal(r.status, 201);
    r = await tableRequest(table, "GET", "/devstoreaccount1/Tables", { headers: { "x-tablelab-test-panic": "1" } });
    assert.equal(r.status, 500);
    assert.equal((await r.json())["odata.error"].code, "InternalError");
    r = await tableRequest(table, "GET", "/devstoreaccount1/Tables");
    assert.deepEqual(await r.json(), { value: [{ TableName: "kept" }] });
  });
});

// sqliteFiles counts the Durable Objects' SQLite databases Miniflare keeps
// under persist: one for each object that stored something.
function sqliteFiles(persist) {
  let n = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith(".sqlite")) n++;
    }
  };
  walk(persist);
  return n;
}

test("Durable Objects: each partition is an object; a table scan pages across them in key order, after a restart too; deleting the table removes it", async () => {
  const persist = mkdtempSync(path.join(tmpdir(), "tablelab-worker-"));
  const want = [];
  for (const pk of ["m", "a", "z", "f"]) for (const rk of ["2", "1"]) want.push(`${pk}/${rk}`);
  want.sort();
  // pages follows the continuations of a table scan of $top=3.
  const pages = async (table) => {
    const keys = [], sizes = [];
    let next = "";
    for (let i = 0; i < 20; i++) {
      const r = await tableRequest(table, "GET", `/devstoreaccount1/spread()?$top=3${next}`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("x-tablelab-plan"), "table-scan");
      const page = (await r.json()).value;
      keys.push(...page.map((e) => `${e.PartitionKey}/${e.RowKey}`));
      sizes.push(page.length);
      const npk = r.headers.get("x-ms-continuation-nextpartitionkey");
      if (!npk) return { keys, sizes };
      next = `&NextPartitionKey=${encodeURIComponent(npk)}&NextRowKey=${encodeURIComponent(r.headers.get("x-ms-continuation-nextrowkey"))}`;
    }
    assert.fail("no end of pages");
  };
  try {
    await withWorker(durable, async ({ table }) => {
      let r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "spread" } });
      assert.equal(r.status, 201);
      const before = sqliteFiles(persist);
      for (const key of want) {
        const [pk, rk] = key.split("/");
        r = await tableRequest(table, "POST", "/devstoreaccount1/spread", { body: { PartitionKey: pk, RowKey: rk } });
        assert.equal(r.status, 201);
      }
      assert.equal(sqliteFiles(persist) - before, 4, "one object for each of the four partitions");
      r = await tableRequest(table, "GET", "/devstoreaccount1/spread()?$filter=PartitionKey%20eq%20'f'");
      assert.equal(r.headers.get("x-tablelab-plan"), "partition-scan");
      assert.deepEqual((await r.json()).value.map((e) => e.RowKey), ["1", "2"]);
    }, persist);
    await withWorker(durable, async ({ table }) => {
      const { keys, sizes } = await pages(table);
      assert.deepEqual(keys, want);
      assert.deepEqual(sizes, [3, 3, 2]);
      let r = await tableRequest(table, "DELETE", "/devstoreaccount1/Tables('spread')");
      assert.equal(r.status, 204);
      r = await tableRequest(table, "GET", "/devstoreaccount1/spread(PartitionKey='a',RowKey='1')");
      assert.equal(r.status, 404);
      assert.equal((await r.json())["odata.error"].code, "TableNotFound");
      r = await tableRequest(table, "POST", "/devstoreaccount1/Tables", { body: { TableName: "spread" } });
      assert.equal(r.status, 201);
      assert.deepEqual((await pages(table)).keys, [], "the table made again is empty");
    }, persist);
  } finally {
    rmSync(persist, { recursive: true, force: true });
  }
});
