// cost.js: entity sizes as the service counts them, the money of a month,
// and the Cosmos DB request-unit model, from requests as the runner
// records them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { COSMOS_RU, LATENCY, PRICES, SECONDS_A_MONTH, byteSize, modelledMs, msText, requestMs, dollars, entitySize, isTableRequest, monthlyRequests, monthlyStorage, requestUnits, ruText, writesOf } from "../cost.js";

const table = [["DataServiceVersion", "3.0"]];
const entry = (method, url, body, extra = {}) => ({ method, url, requestBody: body, requestHeaders: table, status: 204, ...extra });

test("entitySize: the service's count, type by type", () => {
  // 4 + 2×(1 + 2) for the keys.
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1" }), 10);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", s: "héllo" }), 10 + 8 + 2 + 4 + 10);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", n: 5 }), 10 + 8 + 2 + 4);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", n: 2.5 }), 10 + 8 + 2 + 8);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", n: 3000000000 }), 10 + 8 + 2 + 8, "past Int32: a Double");
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", b: false }), 10 + 8 + 2 + 1);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", big: "12", "big@odata.type": "Edm.Int64" }), 10 + 8 + 6 + 8);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", g: "x", "g@odata.type": "Edm.Guid" }), 10 + 8 + 2 + 16);
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", bin: "AAECAw==", "bin@odata.type": "Edm.Binary" }), 10 + 8 + 6 + 4 + 4);
  // The Timestamp, annotations and nulls are not properties.
  assert.equal(entitySize({ PartitionKey: "p", RowKey: "r1", Timestamp: "2026-01-01T00:00:00Z", "odata.etag": "x", gone: null }), 10);
  // A merge names its keys in the URL.
  assert.equal(entitySize({ n: 1 }, { partitionKey: "p", rowKey: "r1" }), 10 + 8 + 2 + 4);
});

test("writesOf: single writes, batches, deletes; nothing for reads, failures and other services", () => {
  const base = "http://127.0.0.1:10002/devstoreaccount1";
  assert.deepEqual(writesOf(entry("POST", `${base}/T`, JSON.stringify({ PartitionKey: "p", RowKey: "r1", n: 5 }))), {
    written: 1,
    deleted: 0,
    bytes: 24,
    sizes: [{ table: "T", bytes: 24 }],
  });
  const merge = writesOf(entry("MERGE", `${base}/T(PartitionKey='p',RowKey='r1')`, JSON.stringify({ n: 1 })));
  assert.equal(merge.bytes, 24);
  assert.equal(writesOf(entry("DELETE", `${base}/T(PartitionKey='p',RowKey='r1')`, "")).deleted, 1);
  const batch = [
    "--batch_1",
    "Content-Type: multipart/mixed; boundary=changeset_1",
    "",
    "--changeset_1",
    "Content-Type: application/http",
    "",
    `POST ${base}/T HTTP/1.1`,
    "Content-Type: application/json",
    "",
    JSON.stringify({ PartitionKey: "p", RowKey: "r1" }),
    "--changeset_1",
    "Content-Type: application/http",
    "",
    `DELETE ${base}/T(PartitionKey='p',RowKey='r2') HTTP/1.1`,
    "If-Match: *",
    "",
    "--changeset_1",
    "Content-Type: application/http",
    "",
    `PUT ${base}/T(PartitionKey='p',RowKey='r3') HTTP/1.1`,
    "",
    JSON.stringify({ PartitionKey: "p", RowKey: "r3", s: "ab" }),
    "--changeset_1--",
    "--batch_1--",
  ].join("\r\n");
  assert.deepEqual(writesOf(entry("POST", `${base}/$batch`, batch)), { written: 2, deleted: 1, bytes: 10 + 10 + 8 + 2 + 4 + 4, sizes: [{ table: "T", bytes: 10 }, { table: "T", bytes: 28 }] });
  assert.equal(writesOf(entry("POST", `${base}/T`, "{}", { status: 409 })).written, 0, "a refused write wrote nothing");
  const failed = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n--changesetresponse_1\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 409 Conflict\r\n\r\n{}\r\n--changesetresponse_1--\r\n--batchresponse_1--";
  assert.equal(writesOf(entry("POST", `${base}/$batch`, batch, { status: 202, responseBody: failed })).written, 0, "a batch whose change set failed wrote nothing");
  assert.equal(writesOf({ method: "PUT", url: "http://127.0.0.1:10001/devstoreaccount1/q", requestHeaders: [], status: 201 }).written, 0, "a queue");
  assert.equal(writesOf(entry("POST", `${base}/Tables`, JSON.stringify({ TableName: "T" }))).written, 0, "a table made");
  assert.equal(isTableRequest({ requestHeaders: [["dataserviceversion", "3.0"]] }), true);
  assert.equal(isTableRequest({ requestHeaders: [["x-ms-version", "2026-04-06"]] }), false);
});

test("money: a month of requests and storage at the price list's figures", () => {
  assert.equal(PRICES.transactionsPer10k, 0.00036);
  assert.equal(PRICES.gbMonth, 0.045);
  assert.equal(SECONDS_A_MONTH, 730 * 3600);
  const m = monthlyRequests(6, 40);
  assert.equal(m.transactions, 6 * 40 * 2628000);
  assert.equal(dollars(m.dollars), "$22.71");
  assert.equal(dollars(monthlyStorage(2 ** 40)), "$46.08", "a TiB");
  assert.equal(dollars(0), "$0.00");
  assert.equal(dollars(0.001), "<$0.01");
  assert.equal(dollars(1234.5), "$1,234.50");
  assert.equal(byteSize(412), "412 bytes");
  assert.equal(byteSize(15.3 * 1024), "15.3 KiB");
  assert.equal(byteSize(300 * 1024 * 1024), "300 MiB");
});

test("request units: Microsoft's table by size for point reads and writes, the model's rule for queries", () => {
  assert.deepEqual(COSMOS_RU[0], [1, 1.0, 4.95]);
  const base = "http://127.0.0.1:10002/devstoreaccount1";
  const small = JSON.stringify({ PartitionKey: "p", RowKey: "r1", n: 1 });
  assert.equal(requestUnits(entry("GET", `${base}/T(PartitionKey='p',RowKey='r1')`, "", { status: 200, plan: "point", examined: 1, returned: 1, responseBody: small })), 1);
  const big = JSON.stringify({ PartitionKey: "p", RowKey: "r1", s: "x".repeat(3000) }); // about 6 KiB
  assert.equal(requestUnits(entry("GET", `${base}/T(PartitionKey='p',RowKey='r1')`, "", { status: 200, plan: "point", examined: 1, returned: 1, responseBody: big })), 1.33);
  // A query page: every entity examined, at the size of those returned.
  const page = JSON.stringify({ value: [{ PartitionKey: "p", RowKey: "r1" }, { PartitionKey: "p", RowKey: "r2" }] });
  assert.equal(requestUnits(entry("GET", `${base}/T()`, "", { status: 200, plan: "partition-scan", examined: 40, returned: 2, responseBody: page })), 40);
  assert.equal(requestUnits(entry("GET", `${base}/T()`, "", { status: 200, plan: "table-scan", examined: 0, returned: 0, responseBody: '{"value":[]}' })), 1, "at least 1 RU a page");
  assert.equal(requestUnits(entry("POST", `${base}/T`, small)), 4.95);
  assert.equal(requestUnits(entry("DELETE", `${base}/T(PartitionKey='p',RowKey='r1')`, "")), 4.95);
  assert.equal(requestUnits(entry("POST", `${base}/T`, small, { status: 409 })), 0);
  assert.equal(ruText(4.95), "4.95 RU");
  assert.equal(ruText(1204.4), "1,204 RU");
  assert.equal(ruText(1), "1 RU");
});

test("latency model: a round trip a request, in sequence they add up, in flight together they overlap, chains take their length", () => {
  assert.deepEqual({ ...LATENCY }, { roundTripMs: 10, perHundredExaminedMs: 1 });
  assert.equal(requestMs({}), 10);
  assert.equal(requestMs({ examined: 1000 }), 20, "a full page walks 1,000 entities");
  // One after another: each starts when the one before ended.
  const seq = [1, 2, 3].map((i) => ({ started: 2 * i - 1, ended: 2 * i }));
  assert.equal(modelledMs(seq), 30);
  // Started together, before any ended: the slowest decides.
  const together = [{ started: 1, ended: 4 }, { started: 2, ended: 5, examined: 500 }, { started: 3, ended: 6 }];
  assert.equal(modelledMs(together), 15);
  // A read, then three together after it: 10 + 10.
  const fanOut = [{ started: 1, ended: 2 }, { started: 3, ended: 7 }, { started: 4, ended: 8 }, { started: 5, ended: 6 }];
  assert.equal(modelledMs(fanOut), 20);
  // Which of the overlapping requests ended first does not change the time.
  const other = [{ started: 1, ended: 2 }, { started: 3, ended: 8 }, { started: 4, ended: 6 }, { started: 5, ended: 7 }];
  assert.equal(modelledMs(other), 20);
  // A request started after one of a group ended waits only for that one.
  assert.equal(modelledMs([{ started: 1, ended: 3 }, { started: 2, ended: 5 }, { started: 4, ended: 6 }]), 20);
  // A read then a write for each of three items at once: the chain's two
  // round trips, whichever read or write happened to come back first.
  const chains = (order) => {
    let tick = 0;
    const reads = [0, 1, 2].map(() => ({ started: ++tick }));
    const writes = [];
    for (const i of order) {
      reads[i].ended = ++tick;
      writes[i] = { started: ++tick };
      if (i === order[0]) writes[i].ended = ++tick; // the first write is back before the other reads
    }
    for (const w of writes) w.ended ??= ++tick;
    return modelledMs([...reads, ...writes]);
  };
  assert.equal(chains([0, 1, 2]), 20);
  assert.equal(chains([2, 0, 1]), 20);
  assert.equal(modelledMs([]), 0);
  assert.equal(msText(1204.4), "1,204 ms");
});
