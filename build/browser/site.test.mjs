// The built site in real headless Chromium (Debian's, driven by
// playwright-core), served by `go run . -memory -site-addr`: every page
// opens without a console error, every run example prints its declared
// output and shows its declared plans, share links, export → reset →
// import and reload persistence work, the main thread stays responsive
// while the engine loads 100,000 entities, and screenshots land in out/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { engineIn } from "./engineworker.mjs";
import { htmlPages, siteExamples, settled } from "./examples.mjs";
import { insertBatch, request } from "./rawhttp.mjs";
import { outDir, writeBrowserRecord } from "./record.mjs";
import { connectionString, distDir, requireDist, startServer } from "./server.mjs";
import { TableClient } from "@azure/data-tables";
import { stopEndlessLoop, editFigure, openPlayground, playgroundPage, resetStore, setKeep, showPanel, runFigure, runInPlayground, setPlaygroundCode, share, sharedProgram, switchFigure } from "./ui.mjs";

const missing = missingBrowser();
if (missing) {
  test("the site in Chromium", (t) => {
    // Under CI the test command must have installed the browser.
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  siteInChromium();
}

function siteInChromium() {
  requireDist();
  const pages = htmlPages(distDir);
  const examples = siteExamples(distDir);
  const playground = playgroundPage(distDir);
  let site, browser, base;

  before(async () => {
    site = await startSite();
    browser = site.browser;
    base = site.base;
  });
  after(async () => site?.close());

  const open = (...args) => site.open(...args);

  test("every page opens, with a title, working links and no console error", async () => {
    assert.ok(pages.length >= 4, `dist/ has ${pages.length} pages`);
    const found = [];
    const linked = new Set();
    for (const path of pages) {
      const { page, problems } = await open(path);
      await page.waitForLoadState("networkidle");
      if (!(await page.title()).trim()) found.push(`${path}: no <title>`);
      if ((await page.locator("h1").count()) === 0) found.push(`${path}: no <h1>`);
      // An SVG <a> (the pattern map's nodes) has an object for .href: read
      // the attribute and resolve it as the page does.
      const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => new URL(a.getAttribute("href"), document.baseURI).href));
      for (const href of hrefs) {
        const u = new URL(href);
        if (u.origin === new URL(base).origin) linked.add(u.origin + u.pathname);
      }
      found.push(...problems.map((p) => `${path}: ${p}`));
      await page.close();
    }
    // Every link within the site reaches something that exists.
    const { page } = await open("index.html");
    for (const url of linked) {
      const status = await page.evaluate(async (u) => (await fetch(u)).status, url);
      if (status !== 200) found.push(`link ${url}: HTTP ${status}`);
    }
    await page.close();
    // Every page is reachable from some page's links (the navigation).
    for (const path of pages) {
      const url = base + path;
      const folder = path.endsWith("index.html") && linked.has(url.slice(0, -"index.html".length));
      if (!linked.has(url) && !folder) found.push(`${path} is linked from no page`);
    }
    assert.deepEqual(found, []);
  });

  test("search finds pages and headings from the index, and its links land on them", async () => {
    // search.json is MiniSearch's serialized index: a document a section,
    // its id the page's URL, with #anchor for a heading's section.
    const index = JSON.parse(readFileSync(join(distDir, "search.json"), "utf8"));
    const docs = Object.entries(index.documentIds).map(([short, id]) => ({ id, ...index.storedFields[short] }));
    const { page, problems } = await open("index.html");
    // Every page a reader can reach is in the index (the playground too).
    const indexed = docs.filter((d) => !d.id.includes("#")).map((d) => d.id).sort();
    // The 404 page is no page to find.
    assert.deepEqual(indexed, pages.filter((p) => p !== "404.html").sort(), "search.json's pages against dist/'s");
    const section = docs.find((d) => d.id.includes("#") && d.heading?.length > 12);
    assert.ok(section, "no heading in the index");
    const [url, id] = section.id.split("#");
    await page.locator("#search-input").fill(section.heading);
    const hit = page.locator(`#search-results [role=option][href$="${section.id}"]`);
    await hit.waitFor({ state: "visible" });
    assert.equal(await hit.locator(".result-section").textContent(), section.heading);
    await hit.click();
    await page.waitForURL((u) => u.pathname.endsWith(`/${url}`) && u.hash === `#${id}`);
    assert.equal(await page.locator(`[id="${id}"]`).count(), 1, `the heading #${id} on ${url}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("every run example prints its declared output and shows its declared plans", async (t) => {
    assert.ok(examples.length > 0, "the site has no run example");
    const record = {};
    const byPage = groupByPage(examples);
    for (const [path, exs] of byPage) {
      const { page, problems } = await open(path);
      for (const ex of exs) {
        let got;
        try {
          got = await runFigure(page, ex.id);
        } catch (err) {
          // Name the example: a timeout alone does not say which one hung.
          err.message = `${path}#${ex.id}: ${err.message}`;
          throw err;
        }
        record[`${path}#${ex.id}`] = { source: ex.source, output: got.output, plans: got.plans };
        assert.equal(got.state, "done", `${path}#${ex.id}: ended ${got.state}: ${got.error}`);
        assert.equal(got.matches, "true", `${path}#${ex.id}: the page's own check of its output and plans`);
        assert.equal(settled(got.output), settled(ex.expected), `${path}#${ex.id}: output`);
        assert.deepEqual(got.plans, ex.plans, `${path}#${ex.id}: plans shown`);
        if (!ex.cosmos) continue;
        // The same code again under the Cosmos DB for Table profile, by
        // its switch, and back: each side shows its own answers.
        const key = `${path}#${ex.id}@cosmos`;
        const cosmos = await switchFigure(page, ex.id, "cosmos");
        record[key] = { source: ex.source, output: cosmos.output, plans: cosmos.plans };
        assert.equal(cosmos.state, "done", `${key}: ended ${cosmos.state}: ${cosmos.error}`);
        assert.equal(cosmos.pressed, "cosmos", `${key}: the switch shows the side that ran`);
        assert.equal(cosmos.matches, "true", `${key}: the page's own check of its Cosmos output and plans`);
        assert.equal(settled(cosmos.output), settled(ex.cosmos.expected), `${key}: output`);
        assert.deepEqual(cosmos.plans, ex.cosmos.plans, `${key}: plans shown`);
        const back = await switchFigure(page, ex.id, "table");
        assert.equal(back.matches, "true", `${path}#${ex.id}: switched back to Table storage`);
        assert.equal(settled(back.output), settled(ex.expected), `${path}#${ex.id}: output after switching back`);
      }
      assert.deepEqual(problems, [], `${path}: problems`);
      await page.close();
    }
    writeBrowserRecord(record);
    t.diagnostic(`${examples.length} examples on ${byPage.size} pages`);
  });

  test("a docs page becomes interactive (a figure, not asserted)", async (t) => {
    const first = examples.find((e) => e.page !== "index.html") ?? examples[0];
    const { page, problems } = await open();
    // Cold: nothing of the site in the HTTP cache, as on a first visit.
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("Network.clearBrowserCache");
    const start = Date.now();
    await page.goto(base + first.page, { waitUntil: "domcontentloaded" });
    const dcl = Date.now() - start;
    await page.waitForFunction((id) => document.getElementById(id)?.dataset.state === "ready", first.id);
    const ready = Date.now() - start;
    const got = await runFigure(page, first.id);
    const output = Date.now() - start;
    t.diagnostic(
      `docs page ${first.page}, cold cache, loopback: DOMContentLoaded ${dcl} ms, Run ready ${ready} ms, ` +
        `first example's output (engine started on that Run) ${output} ms after navigation`,
    );
    assert.equal(settled(got.output), settled(first.expected));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the engine worker: export → reset → import brings the tables back", async () => {
    const { page, problems } = await open("index.html");
    const engine = await engineIn(page, "export-check");
    const table = "Exported";
    const entities = [
      { PartitionKey: "p1", RowKey: "a", Name: "Zoë ✓ 東京", Count: 7, Flag: true, Ratio: 0.25 },
      {
        PartitionKey: "p1",
        RowKey: "b",
        Big: "9007199254740993",
        "Big@odata.type": "Edm.Int64",
        When: "2026-11-23T10:00:00.0000000Z",
        "When@odata.type": "Edm.DateTime",
      },
      {
        PartitionKey: "p2",
        RowKey: "c",
        Id: "0b9bd3c1-7f5e-4c5e-9a51-6f2f00a3c4d1",
        "Id@odata.type": "Edm.Guid",
        Bytes: "AAEC/w==",
        "Bytes@odata.type": "Edm.Binary",
      },
    ];
    assert.equal((await engine.serve("POST", "/devstoreaccount1/Tables", { TableName: table })).status, 201);
    for (const e of entities) {
      const r = await engine.serve("POST", `/devstoreaccount1/${table}`, e, { Prefer: "return-no-content" });
      assert.equal(r.status, 204, r.body);
    }
    const fullMetadata = { Accept: "application/json;odata=fullmetadata" };
    const before = await engine.serve("GET", `/devstoreaccount1/${table}()`, undefined, fullMetadata);
    assert.equal(before.status, 200, before.body);
    assert.equal(before.json.value.length, 3);

    const text = await engine.op("export");
    assert.match(text, /"tablelab"\s*:\s*"export\/1"/);
    await engine.op("reset");
    const gone = await engine.serve("GET", `/devstoreaccount1/${table}()`);
    assert.equal(gone.status, 404, "the table after reset");
    assert.deepEqual((await engine.serve("GET", "/devstoreaccount1/Tables")).json.value, []);

    await engine.op("import", text);
    const after = await engine.serve("GET", `/devstoreaccount1/${table}()`, undefined, fullMetadata);
    assert.equal(after.status, 200, after.body);
    // Every property and its type come back; a write on import stamps a
    // new Timestamp (and so a new ETag), as engine/dump documents.
    const values = (r) =>
      r.json.value.map((e) => {
        const out = {};
        for (const [k, v] of Object.entries(e)) {
          if (!/^(odata\.|Timestamp)/.test(k)) out[k] = v;
        }
        return out;
      });
    assert.deepEqual(values(after), values(before));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the playground store keeps its tables, ETags and Timestamps across a reload", async () => {
    const { page, problems } = await open("index.html");
    let engine = await engineIn(page, "playground");
    await engine.op("reset");
    const table = "Kept";
    assert.equal((await engine.serve("POST", "/devstoreaccount1/Tables", { TableName: table })).status, 201);
    const { body, contentType } = insertBatch(
      table,
      Array.from({ length: 5 }, (_, i) => ({ PartitionKey: "p", RowKey: `r${i}`, N: i })),
      "kept1",
    );
    const batch = await engine.serve("POST", "/devstoreaccount1/$batch", body, { "Content-Type": contentType });
    assert.equal(batch.status, 202, batch.body);
    const read = async () => {
      const r = await engine.serve("GET", `/devstoreaccount1/${table}()`, undefined, {
        Accept: "application/json;odata=fullmetadata",
      });
      assert.equal(r.status, 200, r.body);
      return r.json.value.map((e) => [e.RowKey, e["odata.etag"], e.Timestamp, e.N]);
    };
    // A batch that fails on its last operation (the entity exists)
    // leaves nothing behind, now or after the reload.
    const failing = insertBatch(table, [{ PartitionKey: "p", RowKey: "new" }, { PartitionKey: "p", RowKey: "r0" }], "kept2");
    const refused = await engine.serve("POST", "/devstoreaccount1/$batch", failing.body, { "Content-Type": failing.contentType });
    assert.match(refused.body, /HTTP\/1\.1 409/, "the batch's answer");
    const before = await read();
    assert.equal(before.length, 5);
    await page.reload({ waitUntil: "load" });
    engine = await engineIn(page, "playground");
    assert.deepEqual(await read(), before);
    await engine.op("reset");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the main thread stays responsive while the engine loads 100,000 entities", async (t) => {
    const { page, problems } = await open("index.html");
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
      }).observe({ type: "longtask" });
    });
    const engine = await engineIn(page, "load-check");
    const table = "Load";
    assert.equal((await engine.serve("POST", "/devstoreaccount1/Tables", { TableName: table })).status, 201);
    // 1,000 batches of 100, ten partitions of 10,000: the way a bulk load
    // should cross the boundary (one message per request).
    const batches = [];
    for (let b = 0; b < 1000; b++) {
      const pk = `p${Math.floor(b / 100)}`;
      const rows = Array.from({ length: 100 }, (_, i) => ({
        PartitionKey: pk,
        RowKey: String(b * 100 + i).padStart(6, "0"),
        Name: `entity ${b * 100 + i}`,
        Amount: (b * 100 + i) % 997,
      }));
      batches.push(insertBatch(table, rows, `load${b}`));
    }
    const start = Date.now();
    // The batches go into the page a few at a time, so that handing them
    // over is not itself a long task of the page's main thread.
    const statuses = [];
    for (let i = 0; i < batches.length; i += 20) {
      const requests = batches
        .slice(i, i + 20)
        .map(({ body, contentType }) =>
          request("POST", engine.signed("/devstoreaccount1/$batch"), body, { "Content-Type": contentType }),
        );
      statuses.push(
        ...(await page.evaluate(async (requests) => {
          const out = [];
          for (const req of requests) {
            const { resp } = await window.__engine.call({ store: "load-check", req });
            out.push(Number(resp.slice(9, 12)));
          }
          return out;
        }, requests)),
      );
    }
    const loadMs = Date.now() - start;
    assert.deepEqual([...new Set(statuses)], [202], "every batch accepted");
    const long = await page.evaluate(() => window.__longTasks);
    t.diagnostic(`100,000 entities in ${loadMs} ms; main-thread long tasks (ms): [${long.join(", ")}]`);
    assert.ok(long.every((d) => d <= 200), `long tasks over 200 ms: ${long.join(", ")}`);
    let seen = 0;
    let next = "";
    do {
      const r = await engine.serve("GET", `/devstoreaccount1/${table}()?$select=RowKey${next}`);
      assert.equal(r.status, 200, r.body);
      seen += r.json.value.length;
      const npk = r.headers["x-ms-continuation-nextpartitionkey"];
      next = npk
        ? `&NextPartitionKey=${encodeURIComponent(npk)}&NextRowKey=${encodeURIComponent(r.headers["x-ms-continuation-nextrowkey"])}`
        : "";
    } while (next);
    assert.equal(seen, 100000, "entities stored");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a share link reopens the same program: unicode, newlines, a long program", async () => {
    const lines = ["// Grüße, 東京, emoji 🚀 and a tab:\there", "const quote = `back\\`tick ${1 + 1} \"dq\" 'sq'`;"];
    for (let i = 0; i < 400; i++) lines.push(`print(${JSON.stringify(`line ${i}: ✓ ünïcödé ${"·".repeat(i % 7)}`)});`);
    lines.push("print(quote);", "", "  // trailing spaces   ", "");
    const program = lines.join("\n");
    const expected = [...Array.from({ length: 400 }, (_, i) => `line ${i}: ✓ ünïcödé ${"·".repeat(i % 7)}`), "back`tick 2 \"dq\" 'sq'"];

    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    const first = await runInPlayground(page, program);
    assert.equal(first.state, "done", first.error);
    assert.deepEqual(first.output.split("\n"), expected, "the program as typed runs");
    const link = await share(page);
    assert.equal(sharedProgram(link), program, "the link, decoded outside the page");
    assert.ok(new URL(link).pathname.endsWith(playground), `the link keeps the page's file name: ${link}`);

    // A fresh page opens the link: the editor holds the program, which
    // runs the same, and sharing it again gives the same program.
    const reopened = await open();
    await openPlayground(reopened.page, link);
    const again = await runInPlayground(reopened.page);
    assert.equal(again.state, "done", again.error);
    assert.deepEqual(again.output.split("\n"), expected, "the reopened program runs the same");
    assert.equal(sharedProgram(await share(reopened.page)), program, "shared again from the reopened page");
    assert.deepEqual(problems, []);
    assert.deepEqual(reopened.problems, []);
    await page.close();
    await reopened.page.close();
  });

  test("the playground: export → reset → import, and a reload keeps the store", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await resetStore(page);
    await setKeep(page, true);
    const write = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "Kept");
await t.createTable();
const tx = new TableTransaction();
for (let i = 0; i < 3; i++) tx.createEntity({ partitionKey: "p", rowKey: "r" + i, name: "Zoë " + i, n: i });
await t.submitTransaction(tx.actions);
print("written");`,
    );
    assert.equal(write.state, "done", write.error);
    const listing = `const service = TableServiceClient.fromConnectionString(connectionString);
for await (const table of service.listTables()) {
  print("table", table.name);
  const t = TableClient.fromConnectionString(connectionString, table.name);
  for await (const e of t.listEntities()) print(e.partitionKey, e.rowKey, e.name, e.n, e.etag, e.timestamp);
}`;
    const before = await runInPlayground(page, listing);
    assert.equal(before.state, "done", before.error);
    assert.equal(before.output.split("\n").length, 4, before.output);
    assert.match(before.output, /^table Kept\np r0 Zoë 0 0 W\/"datetime'/);

    // A reload keeps the tables, their entities, ETags and Timestamps.
    await openPlayground(page, base + playground);
    const reloaded = await runInPlayground(page, listing);
    assert.equal(reloaded.output, before.output, "the store after a reload");

    // Export downloads the store; Reset empties it; Import brings it back.
    const [download] = await Promise.all([page.waitForEvent("download"), page.locator("#pg-export").click()]);
    const file = join(outDir, "playground-export.json");
    await download.saveAs(file);
    assert.match(readFileSync(file, "utf8"), /"tablelab"\s*:\s*"export\/1"/);
    // The local server imports the browser's export: the same entities,
    // read back with the SDK over HTTP.
    const local = await startServer({ args: ["-import", file] });
    try {
      const client = TableClient.fromConnectionString(connectionString(local.tablePort), "Kept", {
        allowInsecureConnection: true,
      });
      const rows = [];
      for await (const e of client.listEntities()) rows.push(`${e.partitionKey} ${e.rowKey} ${e.name} ${e.n}`);
      const fromBrowser = before.output.split("\n").slice(1).map((l) => l.split(" ").slice(0, 5).join(" "));
      assert.deepEqual(rows, fromBrowser, "the export as `go run . -import` serves it");
    } finally {
      await local.stop();
    }
    await resetStore(page);
    const empty = await runInPlayground(page, listing);
    assert.equal(empty.output, "", "the store after Reset");
    await page.locator("#pg-import-file").setInputFiles(file);
    await page.waitForFunction(() => /^Imported/.test(document.getElementById("pg-status").textContent));
    const imported = await runInPlayground(page, listing);
    // Import writes each entity again, which stamps new Timestamps and
    // ETags (engine/dump says so); everything else comes back.
    const withoutStamps = (out) => out.split("\n").map((l) => l.split(" ").slice(0, 5).join(" "));
    assert.deepEqual(withoutStamps(imported.output), withoutStamps(before.output), "the store after Import");
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the playground's main thread stays responsive while a program loads 100,000 entities", async (t) => {
    const { page, problems } = await open();
    await page.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
      }).observe({ type: "longtask" });
    });
    await openPlayground(page, base + playground);
    await resetStore(page);
    await page.evaluate(() => (window.__longTasks.length = 0));
    const start = Date.now();
    const load = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "Load");
await t.createTable();
for (let b = 0; b < 1000; b++) {
  const tx = new TableTransaction();
  for (let i = 0; i < 100; i++) {
    const n = b * 100 + i;
    tx.createEntity({ partitionKey: "p" + Math.floor(b / 100), rowKey: String(n).padStart(6, "0"), name: "entity " + n, amount: n % 997 });
  }
  await t.submitTransaction(tx.actions);
}
let count = 0;
for await (const page of t.listEntities({ queryOptions: { select: ["RowKey"] } }).byPage({ maxPageSize: 1000 })) count += page.length;
print(count);`,
    );
    const ms = Date.now() - start;
    const long = await page.evaluate(() => window.__longTasks);
    t.diagnostic(`playground: 100,000 entities loaded and counted in ${ms} ms; main-thread long tasks (ms): [${long.join(", ")}]`);
    assert.equal(load.state, "done", load.error);
    assert.equal(load.output, "100000");
    assert.ok(long.every((d) => d <= 200), `long tasks over 200 ms: ${long.join(", ")}`);
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("keyboard: Ctrl+Enter runs an example; the theme toggle is remembered across a reload", async () => {
    const ex = examples[0];
    const { page, problems } = await open(ex.page);
    await page.waitForFunction((id) => document.getElementById(id)?.dataset.state === "ready", ex.id);
    await editFigure(page, ex.id);
    await page.keyboard.press("Control+Enter");
    await page.waitForFunction((id) => !["ready", "running"].includes(document.getElementById(id).dataset.state), ex.id, {
      timeout: 60000,
    });
    const printed = await page.locator(`figure[id="${ex.id}"] .run-printed`).textContent();
    assert.equal(settled(printed), settled(ex.expected), "output of a keyboard run");

    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    const before = (await theme()) ?? "light";
    await page.locator("#theme-toggle").click();
    const toggled = await theme();
    assert.notEqual(toggled, before);
    await page.reload({ waitUntil: "load" });
    assert.equal(await theme(), toggled, "the theme after a reload");
    await page.locator("#theme-toggle").click();
    assert.equal(await theme(), before === "dark" ? "dark" : "light");
    // Back to following the system, which the dark-mode screenshot uses.
    await page.evaluate(() => localStorage.clear());
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the playground: an endless loop stops on Stop, and a service error shows its code and status", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await stopEndlessLoop(page);

    // The next run starts afresh, and a 404 arrives as the SDK raises it.
    const missing = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "NoSuchTable");
print("reading");
await t.getEntity("p", "r");`,
    );
    assert.equal(missing.state, "error");
    assert.equal(missing.output, "reading");
    assert.match(missing.error, /RestError/);
    assert.match(missing.error, /\b404\b/);
    assert.match(missing.error, /TableNotFound|ResourceNotFound/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the playground's queue and blob starters: a message back at once after sleep(30), folders, a range, a 412; the wire log names each request's service; both kept across a reload", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await resetStore(page);
    await setKeep(page, true);
    const starter = async (title) => {
      const index = await page.locator("#pg-starter option").evaluateAll((os, t) => os.findIndex((o) => o.textContent.startsWith(t)), title);
      assert.ok(index > 0, `no starter "${title}"`);
      await page.locator("#pg-starter").selectOption({ index });
      const start = Date.now();
      const ran = await runInPlayground(page);
      return { ...ran, ms: Date.now() - start };
    };
    const queueOutput = [
      "A took: ship order 42 | dequeueCount 1",
      "B finds: 0 messages",
      "B took: ship order 42 | dequeueCount 2",
      "A's delete: 404 MessageNotFound",
      "left: 0 messages",
    ].join("\n");
    // Twice: a starter runs again on the kept store.
    for (let i = 0; i < 2; i++) {
      const q = await starter("Queues");
      assert.equal(q.state, "done", q.error);
      assert.equal(q.output, queueOutput);
      // sleep(30) moved the engine's clock; nobody waited 30 seconds.
      assert.ok(q.ms < 25000, `the queue starter took ${q.ms} ms`);
    }
    const services = () => page.locator("#pg-wire li").evaluateAll((lis) => lis.map((li) => `${li.dataset.service} ${li.dataset.method} ${li.dataset.status}`));
    const queueWire = await services();
    assert.ok(queueWire.length >= 9 && queueWire.every((w) => w.startsWith("queue ")), queueWire.join("; "));
    assert.ok(queueWire.includes("queue DELETE 404"), queueWire.join("; "));
    await page.screenshot({ path: join(outDir, "playground-queue.png"), fullPage: true });

    const b = await starter("Blobs");
    assert.equal(b.state, "done", b.error);
    assert.equal(b.output, "prefix 2026/01/\nprefix 2026/02/\nblob 2026/index.txt\nrange: readme\nconditional write: 412 ConditionNotMet");
    const blobWire = await services();
    assert.ok(blobWire.every((w) => w.startsWith("blob ")), blobWire.join("; "));
    assert.ok(blobWire.includes("blob GET 206") && blobWire.includes("blob PUT 412"), blobWire.join("; "));
    // A request's bodies show when it is opened: the listing's XML.
    await showPanel(page, "pg-wire");
    const listing = page.locator("#pg-wire li", { hasText: "comp=list" }).first();
    await listing.locator("summary").click();
    // …laid out an element a line.
    assert.match(await listing.locator(".pg-wire-body").last().textContent(), /\n {4}<BlobPrefix>\n {6}<Name>2026\/01\/<\/Name>\n/);
    await page.screenshot({ path: join(outDir, "playground-blob.png"), fullPage: true });

    // IndexedDB keeps the blobs and queues across a reload.
    await openPlayground(page, base + playground);
    const kept = await runInPlayground(
      page,
      `const blob = BlobServiceClient.fromConnectionString(connectionString).getContainerClient("photos").getBlobClient("readme.txt");
print(await (await (await blob.download()).blobBody).text());
const jobs = QueueServiceClient.fromConnectionString(connectionString).getQueueClient("jobs");
await jobs.sendMessage("after the reload");`,
    );
    assert.equal(kept.state, "done", kept.error);
    assert.equal(kept.output, "changed by someone else");
    await openPlayground(page, base + playground);
    const message = await runInPlayground(
      page,
      `const jobs = QueueServiceClient.fromConnectionString(connectionString).getQueueClient("jobs");
print((await jobs.peekMessages()).peekedMessageItems.map((m) => m.messageText));`,
    );
    assert.equal(message.output, '["after the reload"]');
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("scorecards: an example's access patterns show as one table each, side by side, with the lines it printed", async () => {
    const path = "reference/scorecards.html";
    const ex = examples.find((e) => e.page === path && /scorecard\(/.test(e.source));
    assert.ok(ex, `${path} has no example calling scorecard`);
    const { page, problems } = await open(path, { viewport: { width: 1280, height: 900 } });
    const got = await runFigure(page, ex.id);
    assert.equal(got.matches, "true", `${got.output} ${got.error}`);
    const figure = page.locator(`figure[id="${ex.id}"]`);
    const cards = await figure.locator(".scorecards table.scorecard").evaluateAll((ts) =>
      ts.map((t) => ({
        title: t.dataset.title,
        top: Math.round(t.getBoundingClientRect().top),
        rows: [...t.querySelectorAll("tr.scorecard-row")].map((r) => r.dataset),
      })),
    );
    // The panel says what the printed lines say, card by card.
    const printed = [];
    for (const c of cards) {
      printed.push(c.title);
      for (const r of c.rows) {
        const times = Number(r.reads) > 1 ? ` ×${r.reads}` : "";
        printed.push(`  ${r.name}: ${r.plan}${times}, ${r.examined} examined / ${r.returned} returned`);
        assert.equal(r.line, printed.at(-1), "the row's data-line is its printed line");
      }
    }
    assert.equal(printed.join("\n"), settled(got.output));
    assert.equal(cards.length, 2);
    assert.equal(cards[0].top, cards[1].top, "two scorecards side by side at desktop width");
    await figure.screenshot({ path: join(outDir, "scorecards.png") });
    await page.setViewportSize({ width: 390, height: 844 });
    const tops = await figure.locator(".scorecards table.scorecard").evaluateAll((ts) => ts.map((t) => t.getBoundingClientRect().top));
    assert.ok(tops[1] > tops[0], "stacked on a phone");
    await figure.locator(".scorecards").screenshot({ path: join(outDir, "phone-scorecards.png") });
    // A scorecard given volumes: its panel shows requests, writes and the
    // month's money, each row's and the whole card's, as printed.
    await page.setViewportSize({ width: 1280, height: 900 });
    const priced = examples.find((e) => e.page === path && /perSecond/.test(e.source));
    assert.ok(priced, `${path} has no example that states volumes`);
    const ran = await runFigure(page, priced.id);
    assert.equal(ran.matches, "true", `${ran.output} ${ran.error}`);
    const money = page.locator(`figure[id="${priced.id}"] .scorecards table.scorecard`);
    const seen = await money.evaluate((t) => ({
      head: [...t.querySelectorAll("thead th")].map((th) => th.textContent),
      lines: [...t.querySelectorAll("tr.scorecard-row")].map((r) => r.dataset.line),
      foot: [...t.querySelectorAll("tfoot tr")].map((r) => r.textContent),
    }));
    assert.deepEqual(seen.head, ["Pattern", "Plan", "Examined", "Returned", "Requests", "Written", "A month"]);
    for (const line of seen.lines) assert.ok(settled(ran.output).split("\n").includes(line), `${line} is a printed line`);
    assert.match(seen.foot.at(-1), /^In all, a month\$[\d,.]+$/);
    assert.equal(seen.foot.at(-1).replace("In all, a month", ""), /in all: (\S+) a month/.exec(ran.output)[1]);
    await money.screenshot({ path: join(outDir, "scorecard-money.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("partition heat: a burst into one partition goes over the 2,000/s line in its one second; the same burst spread over five does not", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await resetStore(page);
    // 2,500 inserts, 100 a batch: the partition is the hour for the burst,
    // the hour and a shard of five for the spread one.
    const burst = (table, key) => `const t = TableClient.fromConnectionString(connectionString, "${table}");
await t.createTable();
for (let b = 0; b < 25; b++) {
  const tx = new TableTransaction();
  for (let i = 0; i < 100; i++) {
    const n = b * 100 + i;
    tx.createEntity({ partitionKey: ${key}, rowKey: String(n).padStart(5, "0"), level: "info" });
  }
  await t.submitTransaction(tx.actions);
}
await sleep(1);
await t.createEntity({ partitionKey: "2026-05-01T13", rowKey: "next", level: "info" });
print("done");`;
    const heatRows = () =>
      page.evaluate(() => {
        const section = document.querySelector("#pg-heat section.heat");
        return {
          over: section?.dataset.over,
          seconds: section?.dataset.seconds,
          rows: [...document.querySelectorAll("#pg-heat li.heat-row")].map((li) => [li.dataset.partition, Number(li.dataset.peak), li.dataset.over]),
        };
      });
    const hot = await runInPlayground(page, burst("HotLog", `"2026-05-01T12"`));
    assert.equal(hot.state, "done", hot.error);
    let heat = await heatRows();
    // However long the page took, the store's clock stood still: the whole
    // burst is one second, and the sleep put the last write in the next.
    assert.deepEqual(heat, {
      over: "1",
      seconds: "2",
      rows: [["2026-05-01T12", 2500, "true"], ["2026-05-01T13", 1, "false"]],
    });
    assert.equal(await page.locator("#pg-heat li.heat-over .heat-over-label").textContent(), " over");
    await showPanel(page, "pg-heat");
    await page.locator("#pg-heat-panel").screenshot({ path: join(outDir, "heat-over.png") });

    const spread = await runInPlayground(page, burst("SpreadLog", `"2026-05-01T12-" + (b % 5)`));
    assert.equal(spread.state, "done", spread.error);
    heat = await heatRows();
    assert.equal(heat.over, "0");
    assert.deepEqual(
      heat.rows,
      [0, 1, 2, 3, 4].map((s) => [`2026-05-01T12-${s}`, 500, "false"]).concat([["2026-05-01T13", 1, "false"]]),
    );
    await showPanel(page, "pg-heat");
    await page.locator("#pg-heat-panel").screenshot({ path: join(outDir, "heat-spread.png") });
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  // A full-page screenshot with every line drawn: the code editor draws
  // only what is near the viewport, so a long example would show gaps in a
  // plain full-page shot. The viewport grows to the page for the shot.
  async function fullShot(page, file) {
    const size = page.viewportSize();
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: size.width, height: Math.min(height, 16000) });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: join(outDir, file), fullPage: true });
    await page.setViewportSize(size);
  }

  test("screenshots of the pattern guide: log tail, index entities and high-volume delete after their examples ran, the Cosmos DB for Table page on both sides of its switch, and the pattern map in light, dark and on a phone (out/)", async (t) => {
    const missing = [];
    for (const path of ["patterns/log-tail.html", "patterns/index-entities.html", "patterns/high-volume-delete.html"]) {
      if (!pages.includes(path)) {
        missing.push(path);
        continue;
      }
      const { page, problems } = await open(path);
      for (const ex of examples.filter((e) => e.page === path)) {
        const got = await runFigure(page, ex.id);
        assert.equal(got.matches, "true", `${path}#${ex.id}: ${got.output} ${got.error}`);
      }
      await fullShot(page, path.replace(/^patterns\//, "pattern-").replace(/\.html$/, ".png"));
      assert.deepEqual(problems, [], path);
      await page.close();
    }
    // The Cosmos DB for Table page with each example run on both sides of
    // its switch: Table storage shown, then Cosmos DB for Table.
    const cosmosPage = "concepts/cosmos-db.html";
    if (pages.includes(cosmosPage)) {
      const { page, problems } = await open(cosmosPage);
      const toggled = examples.filter((e) => e.page === cosmosPage && e.cosmos);
      assert.ok(toggled.length > 0, `${cosmosPage}: no example with the switch`);
      // units reads what a figure shows of request units: each plan's
      // data-ru and the note that sums them as a model.
      const units = (id) =>
        page.locator(`figure[id="${id}"]`).evaluate((f) => ({
          perPlan: [...f.querySelectorAll("li.run-plan")].map((li) => li.dataset.ru),
          note: f.querySelector(".run-units")?.textContent ?? "",
        }));
      for (const ex of toggled) {
        assert.equal((await runFigure(page, ex.id)).matches, "true", `${cosmosPage}#${ex.id}`);
        const table = await units(ex.id);
        assert.ok(table.perPlan.every((ru) => ru === undefined) && table.note === "", `${cosmosPage}#${ex.id}: request units shown on the Table storage side`);
      }
      await fullShot(page, "cosmos-table.png");
      for (const ex of toggled) {
        assert.equal((await switchFigure(page, ex.id, "cosmos")).matches, "true", `${cosmosPage}#${ex.id}@cosmos`);
        // Beside each plan, the model's request units, and a note that
        // says they are a model.
        const cosmos = await units(ex.id);
        assert.equal(cosmos.perPlan.length, ex.cosmos.plans.length, `${cosmosPage}#${ex.id}@cosmos: a plan each`);
        assert.ok(cosmos.perPlan.every((ru) => Number(ru) >= 1), `${cosmosPage}#${ex.id}@cosmos: request units beside each plan: ${cosmos.perPlan}`);
        if (ex === toggled[0]) await page.locator(`figure[id="${ex.id}"] .run-output`).screenshot({ path: join(outDir, "cosmos-units.png") });
        assert.match(cosmos.note, /^Request units, as tablelab models them: reads [\d.,]+ RU, writes [\d.,]+ RU\. How the model counts\.$/);
      }
      await fullShot(page, "cosmos-cosmos.png");
      assert.deepEqual(problems, [], cosmosPage);
      await page.close();
    } else missing.push(cosmosPage);
    const map = "patterns/map.html";
    if (pages.includes(map)) {
      const patterns = pages.filter((p) => p.startsWith("patterns/") && p !== map);
      for (const [file, opts] of [
        ["pattern-map.png", {}],
        ["pattern-map-dark.png", { colorScheme: "dark" }],
        ["pattern-map-phone.png", { viewport: { width: 390, height: 844 } }],
      ]) {
        const { page, problems } = await open(map, opts);
        // A node a pattern page, each a link that lands on its page.
        const nodes = await page.locator("svg.pattern-map-svg a.pm-node").evaluateAll((as) => as.map((a) => new URL(a.getAttribute("href"), location.href).href));
        assert.deepEqual(nodes.map((u) => u.slice(base.length)).sort(), [...patterns].sort(), `${file}: the map's nodes`);
        const box = await page.locator("svg.pattern-map-svg").boundingBox();
        const width = await page.evaluate(() => document.documentElement.clientWidth);
        assert.ok(box && box.x >= 0 && box.x + box.width <= width + 1, `${file}: the map fits the page's width (${JSON.stringify(box)} in ${width})`);
        await page.screenshot({ path: join(outDir, file), fullPage: true });
        assert.deepEqual(problems, [], file);
        await page.close();
      }
      if (patterns.length > 0) {
        const { page } = await open(map);
        const first = page.locator("svg.pattern-map-svg a.pm-node").first();
        const target = new URL(await first.getAttribute("href"), page.url()).pathname;
        await first.click();
        await page.waitForURL((u) => u.pathname === target);
        await page.close();
      }
    } else missing.push(map);
    if (missing.length) {
      const why = `not written yet, so not shown: ${missing.join(", ")}`;
      if (process.env.CI === "true") assert.fail(why);
      t.skip(why);
    }
  });

  test("the case study: its entity chart in light, dark and on a phone; every version's examples run, the latency model's times in the panel, the all-hands over the heat line and the fix under it (out/case-*.png)", async (t) => {
    const overview = "case-study/access-patterns.html";
    if (!pages.includes(overview)) {
      const why = `not written yet, so not shown: ${overview}`;
      if (process.env.CI === "true") assert.fail(why);
      t.skip(why);
      return;
    }
    for (const [file, opts] of [
      ["case-chart.png", {}],
      ["case-chart-dark.png", { colorScheme: "dark" }],
      ["case-chart-phone.png", { viewport: { width: 390, height: 844 } }],
    ]) {
      const { page, problems } = await open(overview, opts);
      const chart = page.locator("figure.entity-chart svg.entity-chart-svg");
      const names = await chart.locator("g.ec-entity").evaluateAll((gs) => gs.map((g) => g.dataset.name));
      assert.deepEqual(names, ["Channel", "Person", "Message", "Membership", "Reaction"], `${file}: the chart's entities`);
      assert.equal(await chart.locator("g.ec-rel").count(), 4, `${file}: the chart's relationships`);
      assert.match(await chart.getAttribute("aria-label"), /^Entity chart: 5 kinds of entity, 4 relationships\. /);
      const box = await chart.boundingBox();
      const width = await page.evaluate(() => document.documentElement.clientWidth);
      assert.ok(box && box.x >= 0 && box.x + box.width <= width + 1, `${file}: the chart fits the page's width (${JSON.stringify(box)} in ${width})`);
      await page.locator("figure.entity-chart").screenshot({ path: join(outDir, file) });
      assert.deepEqual(problems, [], file);
      await page.close();
    }
    const versions = pages.filter((p) => p.startsWith("case-study/v")).sort();
    assert.ok(versions.length >= 3, `${versions.length} versions of the case study`);
    for (const path of versions) {
      const { page, problems } = await open(path);
      const own = examples.filter((e) => e.page === path);
      for (const ex of own) {
        const got = await runFigure(page, ex.id);
        assert.equal(got.matches, "true", `${path}#${ex.id}: ${got.output} ${got.error}`);
      }
      // The closing scorecard: its times in the panel's Time (model)
      // column, as printed, and its money.
      const last = page.locator(`figure[id="${own.at(-1).id}"] .scorecards table.scorecard`).last();
      const head = await last.locator("thead th").allTextContents();
      assert.ok(head.includes("Time (model)") && head.includes("A month"), `${path}: the closing scorecard's columns: ${head}`);
      const rows = await last.locator("tr.scorecard-row").evaluateAll((trs) => trs.map((tr) => ({ line: tr.dataset.line, ms: tr.dataset.ms, cells: [...tr.querySelectorAll("td")].map((td) => td.textContent) })));
      for (const r of rows) {
        assert.ok(r.line.includes(` · ${Number(r.ms).toLocaleString("en-US")} ms`), `${path}: ${r.line} prints its ${r.ms} ms`);
        assert.ok(r.cells.includes(`${Number(r.ms).toLocaleString("en-US")} ms`), `${path}: the panel shows ${r.ms} ms`);
      }
      if (path.includes("all-hands")) {
        const heat = (id) => page.locator(`figure[id="${id}"] section.heat`).evaluate((s) => ({
          over: s.dataset.over,
          rows: [...s.querySelectorAll("li.heat-row")].map((li) => [li.dataset.partition, Number(li.dataset.peak), li.dataset.over]),
        }));
        const [shipped, fixed] = await page.locator("figure.run-example[data-heat]").evaluateAll((fs) => fs.map((f) => f.id));
        const before = await heat(shipped);
        assert.equal(before.over, "1", `the launch design: ${JSON.stringify(before)}`);
        assert.deepEqual(before.rows[0].slice(0, 1).concat(before.rows[0][2]), ["w07_general", "true"]);
        assert.ok(before.rows[0][1] > 2000, `w07_general took ${before.rows[0][1]} in its second`);
        const after = await heat(fixed);
        assert.equal(after.over, "0", `the fix: ${JSON.stringify(after)}`);
        assert.ok(after.rows.every(([, peak, over]) => peak <= 2000 && over === "false"), JSON.stringify(after.rows));
      }
      await fullShot(page, path.replace(/^case-study\//, "case-").replace(/\.html$/, ".png"));
      assert.deepEqual(problems, [], path);
      await page.close();
    }
    const { page } = await open(versions.at(-1), { viewport: { width: 390, height: 844 }, colorScheme: "dark" });
    const ex = examples.filter((e) => e.page === versions.at(-1)).at(-1);
    assert.equal((await runFigure(page, ex.id)).matches, "true");
    await page.locator(`figure[id="${ex.id}"] .scorecards`).screenshot({ path: join(outDir, "case-scorecard-phone-dark.png") });
    await page.close();
  });

  test("screenshots: landing page, playground, phone width, dark mode (out/)", async () => {
    const shots = [
      ["landing.png", "index.html", {}],
      ["phone.png", examples.find((e) => e.page !== "index.html")?.page ?? "index.html", { viewport: { width: 390, height: 844 } }],
      ["phone-playground.png", playground, { viewport: { width: 390, height: 844 } }],
      ["dark.png", "index.html", { colorScheme: "dark" }],
    ];
    // The queues and blobs page after its examples ran, whole.
    const storagePage = pages.find((p) => p.endsWith("queues-and-blobs.html"));
    if (storagePage) {
      const { page, problems } = await open(storagePage);
      for (const ex of examples.filter((e) => e.page === storagePage)) {
        const got = await runFigure(page, ex.id);
        assert.equal(got.matches, "true", `${ex.id}: ${got.output} ${got.error}`);
      }
      await page.screenshot({ path: join(outDir, "queues-and-blobs.png"), fullPage: true });
      assert.deepEqual(problems, [], "queues-and-blobs.png");
      await page.close();
    }
    for (const [file, path, opts] of shots) {
      const { page, problems } = await open(path, opts);
      await page.waitForLoadState("networkidle");
      // The phone's first screen is what a reader sees; the dark page
      // is shown whole.
      await page.screenshot({ path: join(outDir, file), fullPage: file === "dark.png" });
      assert.deepEqual(problems, [], file);
      await page.close();
    }
    // The playground after its first starter program ran.
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await page.locator("#pg-starter").selectOption({ index: 1 });
    const ran = await runInPlayground(page);
    assert.equal(ran.state, "done", ran.error);
    await page.screenshot({ path: join(outDir, "playground.png"), fullPage: true });
    await resetStore(page);
    assert.deepEqual(problems, [], "playground.png");
    await page.close();
  });
}

function groupByPage(list) {
  const m = new Map();
  for (const x of list) {
    if (!m.has(x.page)) m.set(x.page, []);
    m.get(x.page).push(x);
  }
  return m;
}
