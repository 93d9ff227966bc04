// The docs' runnable examples against the Worker in its Durable Object mode
// (each partition of a table an object of its own): every example of the
// built site (SITE_DIR, pages only) runs in Node with the real SDKs through
// the runner the playground uses (site/play/runner.js), as the parity tier
// runs them against `go run . -memory`, and must print its declared output
// and make the queries its declared plans name. Each example gets a Worker
// of its own, empty, as it gets a store of its own in the browser.
// WORKER_DIR is the folder `go run ./build worker` wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { siteExamples, settled } from "../../browser/examples.mjs";
import { startOnFreePorts } from "./runtime.mjs";
import { devAccount, devKey } from "./signed.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const { run, sdkOf } = await import(path.join(root, "site/play/runner.js"));
const dir = process.env.WORKER_DIR;
const site = process.env.SITE_DIR;
if (!dir || !site) throw new Error("set WORKER_DIR (go run ./build worker) and SITE_DIR (go run ./build site -no-engine -out …)");
const sdk = sdkOf(tables, blobs, queues);
// The Cosmos DB for Table side of an example is the local server's
// profile, not the Worker's: only the Table storage side runs here.
const examples = siteExamples(site);

test("the built site has examples to run", () => {
  assert.ok(examples.length > 0, `no run example in ${site}`);
});

for (const ex of examples) {
  test(`the Worker, real SDK: ${ex.page}#${ex.id}`, async () => {
    const persist = mkdtempSync(path.join(tmpdir(), "tablelab-examples-"));
    const { mf, ports: { blob, queue, table } } = await startOnFreePorts({ dir, persist, vars: { TABLELAB_DEV: "1", TABLELAB_STORAGE: "durable" } });
    let result;
    try {
      const endpoint = (p) => `http://127.0.0.1:${p}/${devAccount}`;
      result = await run(ex.source, {
        sdk,
        connectionString: `DefaultEndpointsProtocol=http;AccountName=${devAccount};AccountKey=${devKey};` +
          `BlobEndpoint=${endpoint(blob)};QueueEndpoint=${endpoint(queue)};TableEndpoint=${endpoint(table)}`,
        clientOptions: { allowInsecureConnection: true },
      });
    } finally {
      await mf.dispose();
      rmSync(persist, { recursive: true, force: true });
    }
    assert.equal(result.error, undefined, `threw ${JSON.stringify(result.error)} after printing:\n${result.output}`);
    assert.equal(settled(result.output), settled(ex.expected), "output against the declared output");
    assert.deepEqual(result.plans, ex.plans, "plans against the declared plans");
  });
}
