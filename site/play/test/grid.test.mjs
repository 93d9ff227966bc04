import { test } from "node:test";
import assert from "node:assert/strict";

import { entitiesOf, edmType, gridOf } from "../grid.js";

test("entitiesOf: a query's list, one entity, or none", () => {
  assert.equal(entitiesOf('{"value":[{"PartitionKey":"a","RowKey":"1"},{"PartitionKey":"b","RowKey":"2"}]}').length, 2);
  assert.deepEqual(entitiesOf('{"PartitionKey":"a","RowKey":"1"}'), [{ PartitionKey: "a", RowKey: "1" }]);
  assert.deepEqual(entitiesOf('{"value":[{"TableName":"T"}]}'), []);
  assert.deepEqual(entitiesOf('{"odata.error":{}}'), []);
  assert.deepEqual(entitiesOf(""), []);
  assert.deepEqual(entitiesOf("not json"), []);
  assert.deepEqual(entitiesOf('{"value":[{"RowKey":"1"},{"RowKey":"2"}]}'), [], "a page that selected no PartitionKey");
  assert.deepEqual(entitiesOf(undefined), []);
});

test("edmType: stated annotations first, then what JSON implies", () => {
  const e = { A: "5", "A@odata.type": "Edm.Int64", B: 3, C: 2.5, D: true, E: "x" };
  assert.equal(edmType(e, "A"), "Edm.Int64");
  assert.equal(edmType(e, "B"), "Edm.Int32");
  assert.equal(edmType(e, "C"), "Edm.Double");
  assert.equal(edmType(e, "D"), "Edm.Boolean");
  assert.equal(edmType(e, "E"), "Edm.String");
});

test("gridOf: keys first, typed columns in order of appearance, Timestamp and ETag last", () => {
  const g = gridOf([
    { "odata.etag": "W/1", PartitionKey: "p", RowKey: "1", Timestamp: "2026-01-01T00:00:00Z", Name: "x", N: 1 },
    { "odata.etag": "W/2", PartitionKey: "p", RowKey: "2", Timestamp: "2026-01-02T00:00:00Z", N: "7", "N@odata.type": "Edm.Int64", When: "2026-01-03T00:00:00Z", "When@odata.type": "Edm.DateTime" },
  ]);
  assert.deepEqual(g.columns.map((c) => c.name), ["PartitionKey", "RowKey", "Name", "N", "When", "Timestamp", "ETag"]);
  assert.deepEqual(g.columns[3].types, ["Edm.Int32", "Edm.Int64"]);
  assert.deepEqual(g.rows[0][2], { value: "x", type: "Edm.String" });
  assert.equal(g.rows[0][4], null);
  assert.deepEqual(g.rows[1][4], { value: "2026-01-03T00:00:00Z", type: "Edm.DateTime" });
  assert.deepEqual(g.rows[1][6], { value: "W/2", type: "" });
  assert.deepEqual(gridOf([]).rows, []);
});
