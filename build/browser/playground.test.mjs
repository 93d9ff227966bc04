// The playground as a reader meets it, mistakes included (issue 21): what
// they made is never lost without their say, an error points at its line,
// the editor comes first, and the smaller defects a new user found stay
// fixed. Each test saves a screenshot to out/.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { htmlPages, siteExamples } from "./examples.mjs";
import { outDir } from "./record.mjs";
import { distDir } from "./server.mjs";
import { stopEndlessLoop, editFigure, editorCode, openPlayground, resetStore, setKeep, showPanel, playgroundPage, runInPlayground, setPlaygroundCode, share, sharedProgram } from "./ui.mjs";

const missing = missingBrowser();
if (missing) {
  test("the playground in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  playgroundInChromium();
}

function playgroundInChromium() {
  let site;
  let base;
  const playground = playgroundPage(distDir);

  before(async () => {
    site = await startSite();
    base = site.base;
  });
  after(async () => site?.close());

  const open = (...args) => site.open(...args);
  const shot = (page, name, opts = {}) => page.screenshot({ path: join(outDir, name), ...opts });

  // The program that lists every table of the store with its entities'
  // keys: what a reader would run to see what the store holds.
  const listing = `const service = TableServiceClient.fromConnectionString(connectionString);
for await (const table of service.listTables()) {
  const t = TableClient.fromConnectionString(connectionString, table.name);
  const keys = [];
  for await (const e of t.listEntities()) keys.push(e.partitionKey + "/" + e.rowKey);
  print(table.name + ": " + keys.join(" "));
}`;

  const writeTable = (name, n) => `const t = TableClient.fromConnectionString(connectionString, "${name}");
await t.createTable();
for (let i = 0; i < ${n}; i++) await t.upsertEntity({ partitionKey: "p", rowKey: "r" + i, n: i });
print("wrote ${name}");`;

  // freshPlayground opens the playground with an empty store, keeping
  // changes between runs so a program can fill it.
  async function freshPlayground(opts) {
    const { page, problems } = await open(undefined, opts);
    await openPlayground(page, base + playground);
    await resetStore(page);
    await setKeep(page, true);
    return { page, problems };
  }

  const status = (page) => page.locator("#pg-status").textContent();
  const editorText = (page) => editorCode(page, "#playground");

  test("a failed Import changes nothing and says where the file is wrong", async () => {
    const { page, problems } = await freshPlayground();
    assert.equal((await runInPlayground(page, writeTable("Keepers", 3))).state, "done");
    const bad = join(outDir, "bad-import.json");
    writeFileSync(bad, '{\n  "tablelab": "export/1",\n  "tables": [ {"name": "Broken", "entities": [ {"PartitionKey": "p", \n');
    await page.locator("#pg-import-file").setInputFiles(bad);
    await page.waitForFunction(() => /fail|wrong|could not/i.test(document.getElementById("pg-status").textContent));
    const said = await status(page);
    assert.match(said, /line \d+/, `the message says where: ${said}`);
    assert.match(said, /nothing (was )?changed|unchanged|as it was/i, `the message says the store is unchanged: ${said}`);
    await shot(page, "trust-import-failed.png");
    const after = await runInPlayground(page, listing);
    assert.equal(after.state, "done", after.error);
    assert.equal(after.output, "Keepers: p/r0 p/r1 p/r2", "the reader's table after a failed import");
    // A file whose JSON is sound but whose entity is not: refused whole,
    // naming the entity.
    const badEntity = join(outDir, "bad-entity.json");
    writeFileSync(
      badEntity,
      JSON.stringify({
        tablelab: "export/1",
        tables: [{ name: "Other", entities: [{ PartitionKey: "p", RowKey: "ok" }, { PartitionKey: "p", RowKey: "a/b" }] }],
      }),
    );
    await page.locator("#pg-import-file").setInputFiles(badEntity);
    await page.waitForFunction((before) => document.getElementById("pg-status").textContent !== before, said);
    assert.match(await status(page), /entity 2|RowKey|a\/b/, await status(page));
    assert.equal((await runInPlayground(page, listing)).output, "Keepers: p/r0 p/r1 p/r2", "the store after a refused entity");
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link with data opens in a store of its own; the visitor's tables are replaced only after they confirm", async () => {
    // The sharer's link: a program and a table of theirs.
    const sharer = await freshPlayground();
    assert.equal((await runInPlayground(sharer.page, writeTable("Theirs", 2))).state, "done");
    await sharer.page.locator("#pg-share-data").check();
    const link = await share(sharer.page);
    await resetStore(sharer.page);
    await sharer.page.close();

    // The visitor has a table of their own.
    const { page, problems } = await freshPlayground();
    assert.equal((await runInPlayground(page, writeTable("Mine", 1))).state, "done");
    const openShared = async () => {
      await openPlayground(page, link);
      await page.waitForFunction(() => document.getElementById("pg-store")?.dataset.store === "shared");
    };
    await openShared();
    const store = page.locator("#pg-store");
    assert.equal(await store.getAttribute("data-store"), "shared", "the page says it shows the link's store");
    assert.match(await store.textContent(), /link|shared/i);
    assert.equal((await runInPlayground(page, listing)).output, "Theirs: p/r0 p/r1", "the link's data, in its own store");
    await shot(page, "trust-shared-store.png");
    // Back to their own store: untouched.
    await page.locator("#pg-shared-back").click();
    await page.waitForFunction(() => document.getElementById("pg-store")?.dataset.store !== "shared");
    assert.equal((await runInPlayground(page, listing)).output, "Mine: p/r0", "the visitor's store after going back");

    // Keeping the link's data asks first; cancelling changes nothing.
    await openShared();
    await page.locator("#pg-shared-keep").click();
    const dialog = page.locator("dialog#pg-confirm[open]");
    await dialog.waitFor({ state: "visible" });
    assert.match(await dialog.textContent(), /replace/i);
    await shot(page, "trust-shared-confirm.png");
    await dialog.locator("button[value=cancel]").click();
    assert.equal(await page.locator("#pg-store").getAttribute("data-store"), "shared");
    await page.locator("#pg-shared-back").click();
    await page.waitForFunction(() => document.getElementById("pg-store")?.dataset.store !== "shared");
    assert.equal((await runInPlayground(page, listing)).output, "Mine: p/r0", "after a cancelled keep");
    // Confirmed, the link's tables become the visitor's.
    await openShared();
    await page.locator("#pg-shared-keep").click();
    await page.locator("dialog#pg-confirm[open] button[value=confirm]").click();
    await page.waitForFunction(() => document.getElementById("pg-store")?.dataset.store === "playground");
    assert.equal((await runInPlayground(page, listing)).output, "Theirs: p/r0 p/r1", "after the keep was confirmed");
    // The shared program runs again on it as it ran for the sharer.
    await resetStore(page);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the reader's latest code is a draft: a reload after Share shows the edit, a pasted link opens, a damaged link leaves the editor alone", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await setPlaygroundCode(page, 'print("shared version");');
    const link = await share(page);
    await page.locator("#playground .cm-content").click();
    await page.keyboard.press("ControlOrMeta+End");
    await page.keyboard.insertText('\nprint("edited after sharing");');
    await page.waitForTimeout(600);
    await page.reload({ waitUntil: "load" });
    await page.waitForFunction(() => document.getElementById("playground")?.dataset.state === "ready");
    assert.equal(await editorText(page), 'print("shared version");\nprint("edited after sharing");', "a reload after Share");

    // A link pasted into the open tab opens.
    await setPlaygroundCode(page, 'print("mine");');
    await page.waitForTimeout(600);
    const other = new URL(link);
    await page.evaluate((hash) => (location.hash = hash), other.hash);
    await page.waitForFunction(() => document.querySelector("#playground .cm-content").cmTile.root.view.state.doc.toString() === 'print("shared version");');
    await shot(page, "trust-pasted-link.png");

    // A damaged link says so, and the editor keeps what it had.
    await setPlaygroundCode(page, 'print("still mine");');
    await page.waitForTimeout(600);
    await page.evaluate(() => (location.hash = "code=AAAA%%%broken"));
    await page.waitForFunction(() => /damaged/i.test(document.getElementById("pg-status").textContent));
    assert.doesNotMatch(await status(page), /Opened/);
    assert.equal(await editorText(page), 'print("still mine");', "the editor after a damaged link");
    await shot(page, "trust-damaged-link.png");
    // …and after a reload too.
    await page.goto(base + playground + "#code=Zm9vYmFy%%", { waitUntil: "load" });
    await page.waitForFunction(() => /damaged/i.test(document.getElementById("pg-status").textContent));
    assert.equal(await editorText(page), 'print("still mine");', "a damaged link opened fresh");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a program run twice behaves the same; with Keep changes on, leftovers say so and how to reset", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await resetStore(page);
    await setKeep(page, false);
    const program = `const t = TableClient.fromConnectionString(connectionString, "Twice");
await t.createTable();
await t.createEntity({ partitionKey: "p", rowKey: "only", n: 1 });
let n = 0;
for await (const e of t.listEntities()) n++;
print("entities:", n);`;
    const first = await runInPlayground(page, program);
    const second = await runInPlayground(page);
    assert.equal(first.state, "done", first.error);
    assert.equal(second.state, "done", `the second run: ${second.error}`);
    assert.equal(second.output, first.output);
    assert.match(await status(page), /not kept|discarded|as it was/i, "the status says the run's changes were not kept");
    assert.equal((await runInPlayground(page, listing)).output, "", "the store after runs without Keep changes");
    await shot(page, "trust-run-twice.png");

    // Keep changes is remembered across a reload.
    await setKeep(page, true);
    await openPlayground(page, base + playground);
    assert.equal(await page.locator("#pg-keep").isChecked(), true, "Keep changes after a reload");
    const kept = await runInPlayground(page, program);
    assert.equal(kept.state, "done", kept.error);
    const leftover = await runInPlayground(page, program);
    assert.equal(leftover.state, "error");
    assert.match(leftover.error, /409/);
    assert.match(leftover.error, /EntityAlreadyExists/);
    assert.match(leftover.error, /earlier run|kept/i, `the error says the store kept an earlier run: ${leftover.error}`);
    assert.match(leftover.error, /Reset/, "and how to start again");
    await shot(page, "trust-leftovers.png");
    await resetStore(page);
    await setKeep(page, false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  // markedLine is the 1-based editor line the error mark underlines, and
  // whether the gutter shows a marker.
  const marks = (page, root = "#playground") =>
    page.evaluate((root) => {
      const range = document.querySelector(`${root} .cm-lintRange-error`);
      const lines = [...document.querySelectorAll(`${root} .cm-content .cm-line`)];
      return {
        line: range ? lines.indexOf(range.closest(".cm-line")) + 1 : 0,
        gutter: document.querySelectorAll(`${root} .cm-lint-marker-error`).length,
      };
    }, root);

  test("errors point at their line: syntax and runtime errors are marked in the editor with the reader's line and column", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    const syntax = await runInPlayground(page, 'print("one");\nconst x = 1;\nif (x > 0) { print("two") ]\nprint("three");');
    assert.equal(syntax.state, "error");
    assert.match(syntax.error, /SyntaxError/);
    assert.match(syntax.error, /line 3, column \d+/, syntax.error);
    assert.deepEqual(await marks(page), { line: 3, gutter: 1 }, "the syntax error's mark");
    await shot(page, "trust-syntax-error.png");

    const runtime = await runInPlayground(page, 'print("a");\n\nconst o = null;\n\nprint(o.missing);');
    assert.equal(runtime.state, "error");
    assert.equal(runtime.output, "a");
    assert.match(runtime.error, /TypeError/);
    assert.match(runtime.error, /line 5, column \d+/, runtime.error);
    assert.equal((await marks(page)).line, 5, "the runtime error's mark");

    // An SDK call that fails marks the line that awaited it.
    const service = await runInPlayground(
      page,
      'const t = TableClient.fromConnectionString(connectionString, "Marks");\nawait t.createTable();\n\nawait t.createEntity({ partitionKey: "p", rowKey: "a/b" });',
    );
    assert.equal(service.state, "error");
    assert.equal((await marks(page)).line, 4, "the failed call's mark");
    // Editing clears the marks.
    await page.locator("#playground .cm-content").click();
    await page.keyboard.insertText(" ");
    await page.waitForFunction(() => document.querySelectorAll("#playground .cm-lintRange-error").length === 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a service error shows its status, code and Azure's message, a plain explanation and a link to the page that explains it", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    const ran = await runInPlayground(
      page,
      'const t = TableClient.fromConnectionString(connectionString, "Keys");\nawait t.createTable();\nawait t.createEntity({ partitionKey: "orders", rowKey: "2026/11/27" });',
    );
    assert.equal(ran.state, "error");
    assert.match(ran.error, /400/);
    assert.match(ran.error, /OutOfRangeInput/);
    const explain = page.locator("#pg-error .run-error-explain");
    assert.match(await explain.textContent(), /\//, "the explanation names the character");
    assert.match(await explain.textContent(), /RowKey|key/i);
    const href = await explain.locator("a").getAttribute("href");
    assert.ok(href, "a link to the page that explains it");
    const target = new URL(href, page.url());
    const landed = await (await site.browser.context.request.get(target.href)).text();
    assert.match(landed, new RegExp(`id="${target.hash.slice(1)}"`), `the link's anchor exists: ${target}`);
    await shot(page, "trust-service-error.png");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a filter that compares a property with a literal of another type gets a warning beside its plan", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    const ran = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "People");
await t.createTable();
for (let i = 0; i < 5; i++) await t.upsertEntity({ partitionKey: "p", rowKey: "r" + i, Age: 30 + i });
let n = 0;
for await (const e of t.listEntities({ queryOptions: { filter: "Age gt 'x'" } })) n++;
print("found", n);`,
    );
    assert.equal(ran.state, "done", ran.error);
    assert.equal(ran.output, "found 0");
    const warning = page.locator("#pg-plans li.run-plan .run-plan-warning");
    await warning.first().waitFor({ state: "visible" });
    const text = await warning.first().textContent();
    assert.match(text, /Age/);
    assert.match(text, /Int32/);
    assert.match(text, /String/);
    await shot(page, "trust-type-warning.png");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the editor comes first: editor and Run in the first screen at 1366×768 and 390×844; on a phone Run brings the output into view", async () => {
    for (const [name, viewport] of [
      ["desktop", { width: 1366, height: 768 }],
      ["phone", { width: 390, height: 844 }],
    ]) {
      for (const colorScheme of ["light", "dark"]) {
        const { page, problems } = await open(undefined, { viewport, colorScheme });
        await openPlayground(page, base + playground);
        const run = await page.locator("#pg-run").boundingBox();
        const editor = await page.locator("#playground .cm-editor").boundingBox();
        assert.ok(run && run.y + run.height <= viewport.height, `${name}: Run at ${JSON.stringify(run)}`);
        assert.ok(editor && editor.y + 120 <= viewport.height, `${name}: the editor starts at ${JSON.stringify(editor)}`);
        if (name === "desktop") {
          const panels = await page.locator("#pg-output-panel").boundingBox();
          assert.ok(panels && panels.x >= editor.x + editor.width - 1, `desktop: the output beside the editor, ${JSON.stringify({ panels, editor })}`);
        }
        await shot(page, `playground-first-${name}-${colorScheme}.png`);
        if (name === "phone" && colorScheme === "light") {
          await page.locator("#pg-run").click();
          await page.waitForFunction(() => !["ready", "running"].includes(document.getElementById("playground").dataset.state), null, { timeout: 120000 });
          await page.waitForTimeout(400);
          const out = await page.locator("#pg-output").boundingBox();
          assert.ok(out && out.y >= 0 && out.y < viewport.height, `phone: the output after Run at ${JSON.stringify(out)}`);
          await shot(page, "playground-phone-after-run.png");
        }
        assert.deepEqual(problems, [], `${name} ${colorScheme}`);
        await page.close();
      }
    }
  });

  test("every runnable block has Open in playground, carrying its code", async () => {
    const examples = siteExamples(distDir);
    const byPage = new Map();
    for (const ex of examples) byPage.set(ex.page, [...(byPage.get(ex.page) ?? []), ex]);
    const { page, problems } = await open();
    for (const [path, exs] of byPage) {
      await page.goto(base + path, { waitUntil: "load" });
      await page.waitForFunction(() => [...document.querySelectorAll("figure.run-example a.run-open")].every((a) => a.getAttribute("href")));
      for (const ex of exs) {
        const link = page.locator(`figure[id="${ex.id}"] a.run-open`);
        assert.equal(await link.count(), 1, `${path}#${ex.id}: no Open in playground`);
        const href = new URL(await link.getAttribute("href"), page.url()).href;
        assert.equal(sharedProgram(href), ex.source, `${path}#${ex.id}: the link's code`);
      }
    }
    const [first] = examples;
    await page.goto(base + first.page, { waitUntil: "load" });
    await page.locator(`figure[id="${first.id}"] a.run-open`).click();
    await page.waitForFunction(() => document.getElementById("playground")?.dataset.state === "ready");
    assert.equal(await editorText(page), first.source, "the playground opened with the block's code");
    await shot(page, "open-in-playground.png");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the wire log shows the headers of requests and responses", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    const ran = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "Wired");
await t.createTable();
await t.upsertEntity({ partitionKey: "p", rowKey: "r", n: 1 });
for await (const e of t.listEntities({ queryOptions: { filter: "n eq 1" } })) print(e.rowKey);`,
    );
    assert.equal(ran.state, "done", ran.error);
    await showPanel(page, "pg-wire");
    const query = page.locator("#pg-wire li", { hasText: "$filter" }).first();
    await query.locator("summary").click();
    await query.locator(".pg-wire-headers").first().waitFor();
    const headers = (await query.locator(".pg-wire-headers").allTextContents()).join("\n").toLowerCase();
    for (const name of ["x-ms-version", "x-ms-client-request-id", "x-tablelab-plan", "x-tablelab-examined", "x-ms-request-id"]) {
      assert.ok(headers.includes(name), `the wire log shows ${name}: ${headers}`);
    }
    const write = page.locator("#pg-wire li[data-method=PUT], #pg-wire li[data-method=PATCH]").first();
    await write.locator("summary").click();
    await write.locator(".pg-wire-headers").first().waitFor();
    assert.match((await write.locator(".pg-wire-headers").allTextContents()).join("\n").toLowerCase(), /etag/);
    await query.screenshot({ path: join(outDir, "wire-headers.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the small defects: Stop says stopped, an error is never a match, summaries render, titles, extension-less URLs and a styled 404", async () => {
    const { page, problems } = await open();
    await openPlayground(page, base + playground);
    await stopEndlessLoop(page);
    const said = await status(page);
    assert.match(said, /stopped/i);
    assert.doesNotMatch(said, /error/i);

    // A docs example that prints what it should and then throws does not
    // show a match.
    const [ex] = siteExamples(distDir).filter((e) => !e.cosmos);
    await page.goto(base + ex.page, { waitUntil: "load" });
    const figure = page.locator(`figure[id="${ex.id}"]`);
    await editFigure(page, ex.id);
    await page.keyboard.press("ControlOrMeta+a");
    await page.keyboard.press("Delete");
    const lines = ex.expected.replace(/\n$/, "").split("\n");
    await page.keyboard.insertText(`${lines.map((l) => `print(${JSON.stringify(l)});`).join("\n")}\nthrow new Error("after the output");`);
    await figure.locator("button.run-button").click();
    await page.waitForFunction((id) => !["ready", "running"].includes(document.getElementById(id).dataset.state), ex.id, { timeout: 60000 });
    assert.equal(await figure.getAttribute("data-state"), "error");
    assert.notEqual(await figure.getAttribute("data-matches"), "true");
    assert.equal(await figure.locator(".run-check-ok").count(), 0, "no ✓ on a run that threw");

    // Related pages' summaries show no Markdown; no title repeats the
    // site's name.
    for (const path of htmlPages(distDir)) {
      await page.goto(base + path, { waitUntil: "domcontentloaded" });
      const title = await page.title();
      assert.doesNotMatch(title, /tablelab · tablelab/, `${path}: ${title}`);
      const related = await page.locator("aside.related").allTextContents();
      assert.doesNotMatch(related.join(" "), /`/, `${path}: related summaries`);
    }

    // A page asked for without .html is served; a missing one gets the
    // site's own 404 page.
    const bare = await page.goto(base + "patterns/log-tail", { waitUntil: "load" });
    assert.equal(bare.status(), 200);
    assert.equal(await page.locator("h1").textContent(), "Log tail");
    assert.equal(await page.locator("nav.site-nav a[aria-current=page]").count(), 1, "the page's links work from there");
    const missingPage = await site.open(undefined, { expect: [404] });
    const resp = await missingPage.page.goto(base + "patterns/no-such-pattern", { waitUntil: "load" });
    assert.equal(resp.status(), 404);
    assert.match(await resp.headerValue("content-type"), /text\/html/);
    assert.match(await missingPage.page.locator("h1").textContent(), /not found|no page/i);
    const styled = await missingPage.page.evaluate(() => getComputedStyle(document.body).fontFamily);
    assert.doesNotMatch(styled, /^"?Times/, "the 404 page has the site's styles");
    assert.ok((await missingPage.page.locator("a[href]").count()) > 3, "the 404 page links into the site");
    await shot(missingPage.page, "not-found.png");
    assert.deepEqual(missingPage.problems, []);
    await missingPage.page.close();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("fast between pages: every docs page under 250 KB before a Run; the first result's times, cold and on a second page (figures, out/speed.json)", async (t) => {
    const examples = siteExamples(distDir);
    const { page, problems } = await open();
    const cdp = await site.browser.context.newCDPSession(page);
    await cdp.send("Network.enable");
    let bytes = 0;
    cdp.on("Network.loadingFinished", (e) => (bytes += e.encodedDataLength));
    // Each page from a cold cache, read but not run: what a reader's
    // first visit costs.
    const heavy = [];
    let heaviest = ["", 0];
    for (const path of htmlPages(distDir)) {
      if (path === playground) continue;
      await cdp.send("Network.clearBrowserCache");
      bytes = 0;
      await page.goto(base + path, { waitUntil: "load" });
      await page.waitForLoadState("networkidle");
      if (bytes > heaviest[1]) heaviest = [path, bytes];
      if (bytes > 250_000) heavy.push(`${path}: ${bytes} bytes`);
    }
    assert.deepEqual(heavy, [], "docs pages over 250 KB before a Run");

    // The first result: from the navigation to a page until its first
    // example has run, cold, then on a second page with the cache warm.
    const firstResult = async (path) => {
      const ex = examples.find((e) => e.page === path);
      const start = Date.now();
      await page.goto(base + path, { waitUntil: "domcontentloaded" });
      await page.waitForFunction((id) => document.getElementById(id)?.dataset.state === "ready", ex.id);
      await page.locator(`figure[id="${ex.id}"] button.run-button`).click();
      await page.waitForFunction((id) => !["ready", "running"].includes(document.getElementById(id).dataset.state), ex.id, { timeout: 120000 });
      assert.equal(await page.locator(`figure[id="${ex.id}"]`).getAttribute("data-matches"), "true", `${path}#${ex.id}`);
      return Date.now() - start;
    };
    await cdp.send("Network.clearBrowserCache");
    await page.evaluate(() => sessionStorage.clear());
    const cold = await firstResult("patterns/log-tail.html");
    const second = await firstResult("patterns/index-entities.html");
    const third = await firstResult("patterns/high-volume-delete.html");
    const figures = { heaviestPage: heaviest[0], heaviestBytes: heaviest[1], coldFirstResultMs: cold, secondPageFirstResultMs: second, thirdPageFirstResultMs: third };
    writeFileSync(join(outDir, "speed.json"), JSON.stringify(figures, null, 1));
    t.diagnostic(`heaviest docs page before a Run: ${heaviest[0]}, ${heaviest[1]} bytes; first result: cold ${cold} ms, second page ${second} ms, third ${third} ms (loopback, this machine's load)`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
