import { test } from "node:test";
import assert from "node:assert/strict";

import { compareKeys, partitionsOf, lowerIndex, walkStart, mapOf } from "../keyspace.js";

const keys = [
  ["a", "1"], ["a", "2"], ["a", "3"],
  ["b", "1"], ["b", "2"], ["b", "3"], ["b", "4"],
  ["c", "1"],
];
const base = "http://127.0.0.1:10002/devstoreaccount1/";
const q = (path, params = {}) => {
  const u = new URL(base + path);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.href;
};

test("keys order by PartitionKey then RowKey, by code unit", () => {
  assert.equal(compareKeys(["a", "z"], ["b", "a"]), -1);
  assert.equal(compareKeys(["b", "10"], ["b", "9"]), -1);
  assert.equal(compareKeys(["B", ""], ["a", ""]), -1);
  assert.equal(compareKeys(["x", "y"], ["x", "y"]), 0);
});

test("partitions are runs of one PartitionKey", () => {
  assert.deepEqual(partitionsOf(keys), [
    { pk: "a", start: 0, count: 3 },
    { pk: "b", start: 3, count: 4 },
    { pk: "c", start: 7, count: 1 },
  ]);
  assert.deepEqual(partitionsOf([]), []);
});

test("lowerIndex finds the first key not before", () => {
  assert.equal(lowerIndex(keys, ["", ""]), 0);
  assert.equal(lowerIndex(keys, ["b", ""]), 3);
  assert.equal(lowerIndex(keys, ["b", "3"]), 5);
  assert.equal(lowerIndex(keys, ["b", "35"]), 6);
  assert.equal(lowerIndex(keys, ["z", ""]), 8);
});

test("walkStart: continuation, point path, filter bounds", () => {
  assert.deepEqual(walkStart(q("T()", { NextPartitionKey: "b", NextRowKey: "2", $filter: "PartitionKey eq 'a'" })), ["b", "2"]);
  assert.deepEqual(walkStart(q("T(PartitionKey='it''s',RowKey='r 1')")), ["it's", "r 1"]);
  assert.deepEqual(walkStart(q("T()", { $filter: "PartitionKey eq 'b' and RowKey ge '2' and Amount gt 3" })), ["b", "2"]);
  assert.deepEqual(walkStart(q("T()", { $filter: "(PartitionKey eq 'b') and (RowKey gt '2')" })), ["b", "2"]);
  assert.deepEqual(walkStart(q("T()", { $filter: "(PartitionKey eq 'b' and RowKey lt '3')" })), ["b", ""]);
  assert.deepEqual(walkStart(q("T()", { $filter: "PartitionKey ge 'a' and PartitionKey ge 'b'" })), ["b", ""]);
  assert.deepEqual(walkStart(q("T()", { $filter: "Name eq 'PartitionKey eq ''x'''" })), ["", ""]);
  assert.deepEqual(walkStart(q("T()", { $filter: "PartitionKey eq 'b' or PartitionKey eq 'c'" })), ["", ""]);
  assert.deepEqual(walkStart(q("T()")), ["", ""]);
});

test("mapOf: a range walk starts at its bound and spans what the engine examined", () => {
  const query = { url: q("T()", { $filter: "PartitionKey eq 'b' and RowKey ge '2' and N gt 1" }), plan: "range", examined: 3 };
  const m = mapOf(keys, query, [["b", "4"], ["b", "3"], ["zz", "missing"]]);
  assert.deepEqual(m.walked, [4, 7]);
  assert.deepEqual(m.returned, [5, 6]);
  assert.equal(m.plan, "range");
  assert.equal(m.partitions.length, 3);
});

test("mapOf: a table scan walks from the start; a resumed one from its continuation; nothing examined walks nothing", () => {
  assert.deepEqual(mapOf(keys, { url: q("T()", { $filter: "N eq 1" }), plan: "table-scan", examined: 8 }, []).walked, [0, 8]);
  assert.deepEqual(
    mapOf(keys, { url: q("T()", { NextPartitionKey: "b", NextRowKey: "3" }), plan: "table-scan", examined: 100 }, []).walked,
    [5, 8],
  );
  assert.deepEqual(mapOf(keys, { url: q("T()", { $filter: "PartitionKey eq 'q'" }), plan: "partition-scan", examined: 0 }, []).walked, [0, 0]);
  assert.deepEqual(mapOf(keys, null, []).walked, [0, 0]);
});

test("mapOf: an index walks no stretch of the keyspace, and marks what it returned", () => {
  const m = mapOf(keys, { url: q("T()", { $filter: "N eq 1" }), plan: "index", examined: 2 }, [["b", "4"], ["a", "1"]]);
  assert.deepEqual(m.walked, [0, 0]);
  assert.deepEqual(m.returned, [0, 6]);
  assert.equal(m.plan, "index");
});
