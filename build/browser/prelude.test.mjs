// The prelude (site/play/prelude.mjs) as content/run-locally.md tells a
// reader to use it: its four files copied into a folder of their own
// beside the SDKs, a script that imports it and then holds a page's
// example as it is written, run with `node` against `go run . -memory`.
// The script must print what the page declares the example prints.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { siteExamples, settled } from "./examples.mjs";
import { outDir } from "./record.mjs";
import { connectionString, distDir, repoRoot, requireDist, startServer } from "./server.mjs";

requireDist();
const run = promisify(execFile);
const examples = siteExamples(distDir);

// The folder sits under out/, inside build/browser, so that the bare
// imports of the SDKs resolve to build/browser/node_modules, as they
// would to a reader's own project's.
mkdirSync(outDir, { recursive: true });
const folder = mkdtempSync(join(outDir, "prelude-"));
after(() => rmSync(folder, { recursive: true, force: true }));
// The files run-locally.md names, no more: the test fails if the prelude
// comes to need another.
for (const file of ["prelude.mjs", "runner.js", "cost.js", "heat.js"]) copyFileSync(join(repoRoot, "site/play", file), join(folder, file));

async function script(name, body) {
  const path = join(folder, name);
  writeFileSync(path, body);
  const server = await startServer();
  try {
    const { stdout } = await run(process.execPath, [path], { env: { ...process.env, TABLELAB_CONNECTION_STRING: connectionString(server) }, timeout: 60000 });
    return stdout;
  } finally {
    await server.stop();
  }
}

for (const [page, what] of [
  ["reference/scorecards.html", /scorecard\(/],
  ["patterns/index-entities.html", /BlobServiceClient/],
  ["concepts/queries.html", /odata`/],
]) {
  test(`a page's example runs in a Node script of its own through the prelude: ${page}`, async () => {
    const ex = examples.find((e) => e.page === page && what.test(e.source));
    assert.ok(ex, `${page} has no example matching ${what}`);
    const out = await script(`${ex.page.replace(/\W+/g, "-")}-${ex.id}.mjs`, `import "./prelude.mjs";\n\n${ex.source}`);
    assert.equal(settled(out), settled(ex.expected));
  });
}

test("run-locally's own example, as the page shows it, prints the text the page says it prints", async () => {
  const md = readFileSync(join(repoRoot, "content/run-locally.md"), "utf8");
  const m = /```js\n(import "\.\/prelude\.mjs";\n[\s\S]*?)```\n[\s\S]*?```text\n([\s\S]*?)```/.exec(md);
  assert.ok(m, "content/run-locally.md shows no script that imports ./prelude.mjs, followed by what it prints");
  assert.equal(settled(await script("run-locally.mjs", m[1])), settled(m[2]));
});

test("the prelude's names can be imported, and print writes as the pages print", async () => {
  const out = await script(
    "named.mjs",
    `import { TableClient, connectionString, print, scorecard, sleep } from "./prelude.mjs";
const t = TableClient.fromConnectionString(connectionString, "PreludeNamed");
await t.createTable();
await t.createEntity({ partitionKey: "p", rowKey: "r", when: new Date(0) });
await sleep(0.01);
print("entity:", (await t.getEntity("p", "r")).when, { n: 1 });
await scorecard("named", { "one": () => t.getEntity("p", "r") }, { perSecond: { one: 10 } });
`,
  );
  assert.equal(
    settled(out),
    ['entity: 1970-01-01T00:00:00.000Z {"n":1}', "named", "  one: point, 1 examined / 1 returned · 10/s: $0.95 a month", "  in all: $0.95 a month"].join("\n"),
  );
});
