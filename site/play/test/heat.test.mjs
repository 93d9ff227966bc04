import { test } from "node:test";
import assert from "node:assert/strict";

import { Heat, operationsOf, PARTITION_TARGET } from "../heat.js";

const base = "http://127.0.0.1:10002/devstoreaccount1";
const sas = "sv=2019-02-02&ss=t&srt=sco&sp=rwdlau&se=2099-12-31T00%3A00%3A00Z&sig=abc";
const at = (second) => new Date(Date.UTC(2026, 4, 1, 12, 0, second)).toUTCString();

// insert is a recorded insert of one entity, as the runner notes it.
const insert = (table, pk, second, status = 204) => ({
  method: "POST",
  url: `${base}/${table}?${sas}`,
  requestBody: JSON.stringify({ PartitionKey: pk, RowKey: "r", n: 1 }),
  status,
  date: at(second),
});

// batch is a $batch of n inserts into pk, laid out as the SDK writes one.
function batch(table, pk, n, second) {
  const parts = [];
  for (let i = 0; i < n; i++) {
    parts.push(
      `--changeset_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n` +
        `POST ${base}/${table} HTTP/1.1\r\nContent-Type: application/json\r\n\r\n` +
        JSON.stringify({ PartitionKey: pk, RowKey: `r${i}` }) + "\r\n",
    );
  }
  return { method: "POST", url: `${base}/$batch?${sas}`, requestBody: `--batch_1\r\n${parts.join("")}--changeset_1--\r\n--batch_1--\r\n`, status: 202, date: at(second) };
}

test("operationsOf: writes by their entity's partition, a batch by its operations, reads by what they examined", () => {
  assert.deepEqual(operationsOf(insert("Orders", "c'1", 0)), [{ table: "Orders", partition: "c'1", count: 1, read: false }]);
  assert.deepEqual(operationsOf(batch("Orders", "day-1", 42, 0)), [{ table: "Orders", partition: "day-1", count: 42, read: false }]);
  const entityUrl = `${base}/Orders(PartitionKey='it''s%20here',RowKey='r1')?${sas}`;
  for (const method of ["PUT", "MERGE", "PATCH", "DELETE"]) {
    assert.deepEqual(operationsOf({ method, url: entityUrl, status: 204 }), [{ table: "Orders", partition: "it's here", count: 1, read: false }], method);
  }
  assert.deepEqual(operationsOf({ method: "GET", url: entityUrl, status: 200, plan: "point", examined: 1, returned: 1 }), [
    { table: "Orders", partition: "it's here", count: 1, read: true },
  ]);
  const query = (filter, plan, examined) => ({
    method: "GET",
    url: `${base}/Orders()?$filter=${encodeURIComponent(filter)}&${sas}`,
    status: 200,
    plan,
    examined,
    returned: 1,
  });
  assert.deepEqual(operationsOf(query("PartitionKey eq 'a''b' and RowKey ge 'x'", "range", 30)), [{ table: "Orders", partition: "a'b", count: 30, read: true }]);
  assert.deepEqual(operationsOf(query("PartitionKey eq 'a' and n gt 3", "partition-scan", 500)), [{ table: "Orders", partition: "a", count: 500, read: true }]);
  // A table scan's entities belong to no one partition.
  assert.deepEqual(operationsOf(query("n gt 3", "table-scan", 900)), [{ table: "Orders", partition: null, count: 900, read: true }]);
  // Tables, other services and requests that never got an answer: none.
  assert.deepEqual(operationsOf({ method: "POST", url: `${base}/Tables?${sas}`, requestBody: '{"TableName":"Orders"}', status: 201 }), []);
  assert.deepEqual(operationsOf({ method: "PUT", url: "http://127.0.0.1:10001/devstoreaccount1/jobs", status: 201 }), []);
  assert.deepEqual(operationsOf({ ...insert("Orders", "a", 0), status: 0 }), []);
});

test("Heat: a burst into one partition goes over the target in its second; spread over partitions, none does", () => {
  const hot = new Heat();
  for (let b = 0; b < 25; b++) hot.add(batch("Log", "2026-05-01T12", 100, 0));
  hot.add(insert("Log", "2026-05-01T12", 1));
  hot.add(insert("Log", "other", 1));
  let s = hot.summary();
  assert.equal(s.seconds, 2);
  assert.equal(s.over, 1);
  assert.deepEqual(
    s.partitions.map((p) => [p.partition, p.peak, p.peakSecond, p.perSecond, p.over]),
    [
      ["2026-05-01T12", 2500, 0, [2500, 1], true],
      ["other", 1, 1, [0, 1], false],
    ],
  );

  const spread = new Heat();
  for (let b = 0; b < 25; b++) spread.add(batch("Log", `shard-${b % 5}`, 100, 0));
  s = spread.summary(3);
  assert.equal(s.over, 0);
  assert.equal(s.count, 5);
  assert.equal(s.more, 2);
  assert.deepEqual(s.partitions.map((p) => [p.partition, p.peak]), [["shard-0", 500], ["shard-1", 500], ["shard-2", 500]]);
  assert.ok(s.partitions.every((p) => p.peak <= PARTITION_TARGET));
});

test("Heat: exactly the target is not over it; a request without a Date counts in the last second seen; table scans apart", () => {
  const h = new Heat();
  for (let b = 0; b < 20; b++) h.add(batch("T", "p", 100, 3));
  h.add({ ...insert("T", "q", 0), date: undefined });
  h.add({ method: "GET", url: `${base}/T()?$filter=n%20gt%201&${sas}`, status: 200, plan: "table-scan", examined: 2001, returned: 0, date: at(4) });
  const s = h.summary();
  assert.equal(s.over, 0);
  assert.deepEqual(s.partitions.map((p) => [p.partition, p.total, p.perSecond]), [["p", 2000, [2000, 0]], ["q", 1, [1, 0]]]);
  assert.deepEqual(s.scans, [{ table: "T", total: 2001, peak: 2001, peakSecond: 1, perSecond: [0, 2001] }]);
});

test("Heat: an entry that carries its operations (the runner worker's) is counted by them, its body unread", () => {
  const h = new Heat();
  const worked = { ...batch("Log", "p", 100, 0), ops: operationsOf(batch("Log", "p", 100, 0)) };
  h.add({ ...worked, requestBody: undefined });
  h.add({ method: "POST", url: `${base}/$batch?${sas}`, status: 202, date: at(0), ops: [{ table: "Log", partition: "q", count: 7, read: false }] });
  assert.deepEqual(h.summary().partitions.map((p) => [p.partition, p.total]), [["p", 100], ["q", 7]]);
});
