// Plain words for the errors a learner meets, each with the page of the
// guide that explains it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, existsSync } from "node:fs";
import { explainError, isLeftover, firstLine } from "../explain.js";

const cases = [
  [{ code: "OutOfRangeInput", detail: "The 'RowKey' parameter of value '2026/11/27' is out of range.\nRequestId:x" }, /RowKey '2026\/11\/27' contains “\/”/, "concepts/data-model"],
  [{ code: "OutOfRangeInput", detail: "The 'PartitionKey' parameter of value 'a\u0001' is out of range." }, /control character U\+0001/, "concepts/data-model"],
  [{ code: "OutOfRangeInput", detail: `The 'PartitionKey' parameter of value '${"x".repeat(1100)}' is out of range.` }, /at most 1 KiB/, "concepts/data-model"],
  [{ code: "EntityAlreadyExists", detail: "The specified entity already exists." }, /upsertEntity/, "concepts/concurrency"],
  [{ code: "UpdateConditionNotSatisfied", detail: "The update condition specified in the request was not satisfied." }, /ETag/, "concepts/concurrency"],
  [{ code: "ConditionNotMet", detail: "x" }, /ETag/, "concepts/concurrency"],
  [{ code: "PropertyValueTooLarge", detail: "x" }, /64 KiB/, "concepts/data-model"],
  [{ code: "TooManyProperties", detail: "x" }, /255/, "concepts/data-model"],
  [{ code: "InvalidInput", detail: "Unexpected 'gtt' at position 5 in $filter (positions count from 1)." }, /filter/i, "reference/filter"],
  [{ code: "InvalidInput", detail: "Property n: The value 'abc' is not a valid Edm.Int32." }, /type/, "reference/types"],
  [{ code: "InvalidInput", detail: "100:The batch request operation exceeds the maximum 100 changes per change set." }, /100 actions/, "concepts/transactions"],
  [{ code: "InvalidDuplicateRow", detail: "1:The batch request contains multiple changes with same row key." }, /only once/, "concepts/transactions"],
  [{ name: "Error", message: "All operations in a transaction must target the same partitionKey" }, /one PartitionKey/, "concepts/transactions"],
  [{ code: "TableNotFound", detail: "The table specified does not exist." }, /createTable/, "concepts/data-model"],
  [{ code: "AuthorizationPermissionMismatch", detail: "x" }, /permissions/, "concepts/shared-access-signatures"],
  [{ code: "ServerBusy", detail: "The server is busy." }, /back-off/, "concepts/hot-partitions"],
  [{ code: "MessageNotFound", detail: "x" }, /pop receipt/, "reference/queues-and-blobs"],
];

test("explainError: plain words and a page for the errors a learner meets", () => {
  for (const [error, words, page] of cases) {
    const got = explainError(error);
    assert.ok(got, `no explanation for ${JSON.stringify(error).slice(0, 80)}`);
    assert.match(got.text, words, error.code);
    assert.ok(got.page.startsWith(page), `${error.code}: ${got.page}`);
  }
  assert.equal(explainError({ name: "TypeError", message: "x is not a function" }), null);
  assert.equal(explainError(undefined), null);
});

test("explainError: every page and anchor it links to is in content/", () => {
  for (const [error] of cases) {
    const [page, anchor] = explainError(error).page.split("#");
    const md = new URL(`../../../content/${page.replace(/\.html$/, ".md")}`, import.meta.url);
    assert.ok(existsSync(md), `${page}: no ${md.pathname}`);
    if (!anchor) continue;
    // goldmark's heading ids: lower case, words joined by hyphens.
    const ids = readFileSync(md, "utf8")
      .split("\n")
      .filter((l) => /^#{2,4} /.test(l))
      .map((l) => l.replace(/^#+ /, "").toLowerCase().replace(/[^\w\s-]/g, "").trim().replace(/\s+/g, "-"));
    assert.ok(ids.includes(anchor), `${page}#${anchor} not among ${ids.join(", ")}`);
  }
});

test("isLeftover and firstLine", () => {
  assert.equal(isLeftover({ code: "EntityAlreadyExists" }), true);
  assert.equal(isLeftover({ code: "TableNotFound" }), false);
  assert.equal(firstLine("a\nRequestId:1"), "a");
});
