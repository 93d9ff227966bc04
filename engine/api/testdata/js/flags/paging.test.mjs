// -paging production with the real @azure/data-tables SDK: a table scan's
// pages end at each partition, and a page ends after its budget of
// examined entities, empty or not, with a continuation token. Code that
// reads only the first page then misses entities, as it would in
// production; listEntities, which follows the tokens, gets them all. The
// default server answers the same query in one page.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TableTransaction } from "@azure/data-tables";
import { serverWith, newTable } from "./ownserver.mjs";

const production = await serverWith(["-paging", "production", "-page-budget", "10"]);
const full = await serverWith([]);

// fill writes partitions a, b and c of 20 entities each; N is 1 on every
// fifth entity of a and c, and 0 on the rest and on all of b.
async function fill(conn) {
  const table = await newTable(conn, "paged");
  for (const pk of ["a", "b", "c"]) {
    const tx = new TableTransaction();
    for (let i = 0; i < 20; i++) {
      tx.createEntity({ partitionKey: pk, rowKey: String(i).padStart(2, "0"), N: pk !== "b" && i % 5 === 0 ? 1 : 0 });
    }
    await table.submitTransaction(tx.actions);
  }
  return table;
}

// pages reads every page of the query, as byPage hands them over: each
// page's entity count and whether it carries a continuation token.
async function pages(table, filter) {
  const out = [];
  for await (const page of table.listEntities({ queryOptions: { filter } }).byPage()) {
    out.push({ n: page.length, more: Boolean(page.continuationToken) });
  }
  return out;
}

test("paging production: a table scan's first page holds fewer than the query matches; listEntities gets all", async () => {
  const [prod, dflt] = [await fill(production.conn), await fill(full.conn)];
  const filter = "N eq 1";
  // The mistake: one request, first page only.
  const first = async (t) => (await t.listEntities({ queryOptions: { filter } }).byPage().next()).value.length;
  assert.equal(await first(dflt), 8, "the default server answers in one page");
  assert.ok((await first(prod)) < 8, "the first page holds every match");
  // The right way: follow the tokens.
  let all = 0;
  for await (const _ of prod.listEntities({ queryOptions: { filter } })) all++;
  assert.equal(all, 8);
});

test("paging production: pages end at the budget and at partitions, empty ones with a continuation", async () => {
  const table = await fill(production.conn);
  // Each page examines at most 10 entities and one partition: a's two
  // halves, b's two (no match: empty, yet a token), c's two.
  assert.deepEqual(await pages(table, "N eq 1"), [
    { n: 2, more: true },
    { n: 2, more: true },
    { n: 0, more: true },
    { n: 0, more: true },
    { n: 2, more: true },
    { n: 2, more: false },
  ]);
  // A partition scan is paged by the budget alone.
  assert.deepEqual(await pages(table, "PartitionKey eq 'b' and N eq 1"), [
    { n: 0, more: true },
    { n: 0, more: false },
  ]);
  assert.deepEqual(await pages(await fill(full.conn), "N eq 1"), [{ n: 8, more: false }]);
});
