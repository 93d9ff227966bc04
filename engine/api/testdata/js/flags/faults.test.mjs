// -fault with the real @azure/data-tables SDK: injected errors in the
// Table service's format, a retry policy that rides them out, the same
// faults on every run under one seed, a dropped connection, latency, and
// an answer lost after the write was done.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serverWith, clientOf, odataError, count } from "./ownserver.mjs";

// Half the inserts into tables named flaky… meet 503 ServerBusy; reads of
// an entity of dropped… lose their connection; queries of slow… wait
// 300 ms; inserts into lost… are written, then answered 500
// OperationTimedOut.
const rules = (seed) => [
  "-fault-seed", String(seed),
  "-fault", "op=InsertEntity,resource=flaky,p=0.5,error=ServerBusy",
  "-fault", "op=QueryEntity,resource=dropped,error=drop",
  "-fault", "op=QueryEntities,resource=slow,latency=300ms",
  "-fault", "op=InsertEntity,resource=lost,error=OperationTimedOut,when=after",
];
const seven = await serverWith(rules(7));

// outcomes inserts n entities one after another into the table named
// flaky, without retries, and spells what each met: . written, B busy.
let runs = 0;
async function outcomes(conn, n) {
  const pk = `run${++runs}`;
  const flaky = clientOf(conn, { tableName: "flaky" }, { retryOptions: { maxRetries: 0 } });
  await flaky.createTable();
  let spelt = "";
  for (let i = 0; i < n; i++) {
    try {
      await flaky.createEntity({ partitionKey: pk, rowKey: String(i) });
      spelt += ".";
    } catch (err) {
      assert.equal(err.statusCode, 503, err.message);
      assert.equal(odataError(err)?.code, "ServerBusy");
      assert.match(odataError(err)?.message?.value ?? "", /^The server is currently unable to receive requests\. Please retry your request\.\n/);
      spelt += "B";
    }
  }
  return spelt;
}

test("faults: under one seed the same requests meet the same faults, in the service's error format", async () => {
  const first = await outcomes(seven.conn, 30);
  assert.match(first, /B/);
  assert.match(first, /\./);
  const again = await serverWith(rules(7));
  assert.equal(await outcomes(again.conn, 30), first);
  const other = await serverWith(rules(8));
  assert.notEqual(await outcomes(other.conn, 30), first);
});

test("faults: the SDK's retry policy rides out injected ServerBusy", async () => {
  const flaky = clientOf(seven.conn, { tableName: "flaky" }, { retryOptions: { maxRetries: 6, retryDelayInMs: 10, maxRetryDelayInMs: 40 } });
  await flaky.createTable();
  for (let i = 0; i < 20; i++) await flaky.createEntity({ partitionKey: "retried", rowKey: String(i) });
  assert.equal(await count(flaky, "PartitionKey eq 'retried'"), 20);
});

test("faults: a dropped connection is a network error the SDK sees as one", async () => {
  const table = clientOf(seven.conn, { tableName: "dropped" }, { retryOptions: { maxRetries: 0 } });
  await table.createTable();
  await table.createEntity({ partitionKey: "p", rowKey: "r" });
  await assert.rejects(table.getEntity("p", "r"), (err) => {
    assert.equal(err.statusCode, undefined, "no status: no answer came");
    assert.match(`${err.code} ${err.message}`, /ECONNRESET|socket hang up/);
    return true;
  });
});

test("faults: latency delays the operation it names, and only it", async () => {
  const table = clientOf(seven.conn, { tableName: "slow" });
  await table.createTable();
  const marks = [];
  const onResponse = (r) => marks.push(r.headers.get("x-tablelab-fault") ?? "");
  await table.createEntity({ partitionKey: "p", rowKey: "r" }, { onResponse });
  const start = Date.now();
  for await (const _ of table.listEntities({ queryOptions: { filter: "PartitionKey eq 'p'" }, onResponse }));
  assert.ok(Date.now() - start >= 300, `the query took ${Date.now() - start} ms`);
  assert.deepEqual(marks, ["", "latency 300ms"]);
});

test("faults: when=after, the write is done and its answer lost", async () => {
  const table = clientOf(seven.conn, { tableName: "lost" }, { retryOptions: { maxRetries: 0 } });
  await table.createTable();
  await assert.rejects(table.createEntity({ partitionKey: "p", rowKey: "r", N: 1 }), (err) => {
    assert.equal(err.statusCode, 500);
    assert.equal(odataError(err)?.code, "OperationTimedOut");
    return true;
  });
  assert.equal((await table.getEntity("p", "r")).N, 1);
});
