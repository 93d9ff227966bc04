// Parity: every runnable example of the built site runs in Node with the
// real SDKs (@azure/data-tables, @azure/storage-queue, @azure/storage-blob)
// and their own HTTP client against `go run . -memory`, through the same
// runner module the browser uses (site/play/runner.js). Each must print exactly its declared output and
// make the queries its declared plans name, and print what the browser
// printed (the record site.test.mjs leaves in out/). An example with a
// Table storage | Cosmos DB for Table switch runs twice, the second time
// against `go run . -memory -cosmos`, held to its Cosmos output and plans.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { siteExamples, markdownRunBlocks, settled } from "./examples.mjs";
import { startServer, connectionString, distDir, repoRoot, requireDist } from "./server.mjs";
import { readBrowserRecord } from "./record.mjs";

requireDist();
const { run, sdkOf } = await import(join(repoRoot, "site/play/runner.js"));
const sdk = sdkOf(tables, blobs, queues);
const examples = siteExamples(distDir);
const browserSaw = readBrowserRecord();
const nodeSaw = new Map();

// Every run the examples ask for: each example against Table storage,
// and again under the Cosmos profile when it declares that side. key is
// the browser record's name for the run.
const runs = examples.flatMap((ex) => {
  const key = `${ex.page}#${ex.id}`;
  const table = { ex, key, args: [], expected: ex.expected, plans: ex.plans };
  return ex.cosmos ? [table, { ex, key: `${key}@cosmos`, args: ["-cosmos"], ...ex.cosmos }] : [table];
});

// Each example gets a server of its own, empty, as each Run in the
// browser gets a store of its own: two pages may well both make a table
// named Orders.

test("the site renders every run block of content/, each with its source and declared output", () => {
  const declared = markdownRunBlocks(join(repoRoot, "content"));
  assert.ok(declared > 0, "content/ declares no run block");
  assert.equal(examples.length, declared, "figure.run-example elements in dist/ against ```js run blocks in content/");
  for (const ex of examples) {
    assert.ok(ex.source?.trim(), `${ex.page}#${ex.id}: no run-source`);
    assert.ok(ex.expected !== undefined, `${ex.page}#${ex.id}: no declared output (pre.run-expected)`);
  }
});

for (const { ex, key, args, expected, plans } of runs) {
  test(`Node, real SDK over HTTP: ${key}`, async () => {
    const server = await startServer({ args });
    let result;
    try {
      result = await run(ex.source, {
        sdk,
        connectionString: connectionString(server),
        // The SDK's own HTTP client refuses http:// without it; the
        // examples' code stays the browser's, unchanged.
        clientOptions: { allowInsecureConnection: true },
      });
    } finally {
      await server.stop();
    }
    nodeSaw.set(key, result.output);
    assert.equal(result.error, undefined, `threw ${JSON.stringify(result.error)} after printing:\n${result.output}`);
    assert.equal(settled(result.output), settled(expected), "output against the declared output");
    assert.deepEqual(result.plans, plans, "plans against the declared plans");
  });
}

test("Node printed what the browser printed, example by example", (t) => {
  const missing = runs.filter(({ ex, key }) => !browserSaw(key, ex.source));
  if (missing.length === runs.length) {
    const why = "the browser test recorded no example of this build (out/browser-examples.json)";
    if (process.env.CI === "true") assert.fail(why);
    t.skip(why);
    return;
  }
  assert.deepEqual(missing.map(({ key }) => key), [], "examples the browser did not run");
  for (const { ex, key } of runs) {
    assert.ok(nodeSaw.has(key), `${key} did not run in Node`);
    assert.equal(settled(nodeSaw.get(key)), settled(browserSaw(key, ex.source).output), key);
  }
});
