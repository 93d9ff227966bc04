// -scan with the real @azure/data-tables SDK: under report a table scan
// is answered with the X-Tablelab-Scan-Warning header and a line in the
// server's log; under fail it is 400 TableScanRefused, which the SDK
// throws and a test suite sees; with -scan-plans a partition scan counts
// too, and a point read never does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { serverWith, newTable, odataError, count } from "./ownserver.mjs";

const report = await serverWith(["-scan", "report"]);
const fail = await serverWith(["-scan", "fail"]);
const strict = await serverWith(["-scan", "fail", "-scan-plans", "table-scan,partition-scan"]);

async function filled(conn) {
  const table = await newTable(conn, "scanned");
  await table.createEntity({ partitionKey: "p", rowKey: "1", Colour: "red" });
  await table.createEntity({ partitionKey: "q", rowKey: "1", Colour: "blue" });
  return table;
}

test("scans: report answers a table scan with a warning header and logs it", async () => {
  const table = await filled(report.conn);
  const warnings = [];
  const onResponse = (r) => warnings.push(r.headers.get("x-tablelab-scan-warning") ?? "");
  for await (const _ of table.listEntities({ queryOptions: { filter: "Colour eq 'red'" }, onResponse }));
  for await (const _ of table.listEntities({ queryOptions: { filter: "PartitionKey eq 'p'" }, onResponse }));
  assert.match(warnings[0], /^table-scan; name one PartitionKey with eq/);
  assert.equal(warnings[1], "", "a partition scan is not a table scan");
  assert.match(report.log(), new RegExp(`scan: table-scan of ${table.tableName}, \\$filter "Colour eq 'red'"`));
});

test("scans: fail refuses a table scan with 400 TableScanRefused naming the filter", async () => {
  const table = await filled(fail.conn);
  await assert.rejects(count(table, "Colour eq 'red'"), (err) => {
    assert.equal(err.statusCode, 400);
    const e = odataError(err);
    assert.equal(e?.code, "TableScanRefused");
    assert.match(e.message.value, /\$filter "Colour eq 'red'", is a table-scan: it reads every partition of table scanned/);
    assert.match(e.message.value, /name one PartitionKey with eq/);
    return true;
  });
  assert.equal(await count(table, "PartitionKey eq 'p' and Colour eq 'red'"), 1);
  assert.equal((await table.getEntity("q", "1")).Colour, "blue");
});

test("scans: with -scan-plans partition-scan, a partition scan is refused too, a point read is not", async () => {
  const table = await filled(strict.conn);
  await assert.rejects(count(table, "PartitionKey eq 'p'"), (err) => odataError(err)?.code === "TableScanRefused");
  assert.equal(await count(table, "PartitionKey eq 'p' and RowKey ge '1'"), 1);
  assert.equal((await table.getEntity("p", "1")).Colour, "red");
});
