// The embed (site/embed) on pages of another origin, in headless Chromium:
// plain HTML pages this test writes, served by a small Node server of its
// own, load dist/embed/tablelab-embed.js from the site `go run .` serves
// on another loopback origin (or from a static host that applies
// dist/_headers). It holds the embed to what issue 24 asks: the README's
// snippet runs as written; marked <pre>s, Markdown's fenced blocks and
// <tablelab-example> become examples with output, plans, the check and
// the keyspace map; stores are shared or not as marked; nothing heavy
// loads before a run and one engine serves the page; the host's styles
// and the embed's stay apart; light and dark follow the page; keyboard
// use and axe-core; a host without the headers fails in words.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, join, normalize } from "node:path";
import { gzipSync } from "node:zlib";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { outDir } from "./record.mjs";
import { distDir, repoRoot } from "./server.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// The origin the README's snippet names: the site `go run .` serves.
const readmeOrigin = "http://localhost:8080";

// The entry script's budget: what every page that includes it loads.
const entryBudget = { raw: 6 * 1024, gzip: 2.5 * 1024 };

// A run on two busy shared cores: the engine's first start included.
const runLimitMs = 120000;

const missing = missingBrowser();
if (missing) {
  test("the embed in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  embedInChromium();
}

/** readmeBlock returns the README's fenced block marked <!-- test: name -->. */
function readmeBlock(name) {
  const md = readFileSync(join(repoRoot, "README.md"), "utf8");
  const m = md.match(new RegExp(`^<!-- test: ${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\`$`, "m"));
  if (!m) throw new Error(`README.md has no block marked <!-- test: ${name} -->`);
  return m[1] + "\n";
}

/**
 * readmeMarkdown returns the Markdown of the README's block marked
 * <!-- test: name --> (fenced by four backticks, as it holds fences), as
 * a CommonMark renderer writes it: its paragraphs and its fences, each
 * fence a <pre><code class="language-…">.
 */
function readmeMarkdown(name) {
  const md = readFileSync(join(repoRoot, "README.md"), "utf8");
  const m = md.match(new RegExp(`^<!-- test: ${name} -->\\n\`\`\`\`markdown\\n([\\s\\S]*?)\\n\`\`\`\`$`, "m"));
  if (!m) throw new Error(`README.md has no Markdown block marked <!-- test: ${name} -->`);
  const html = [];
  for (const part of m[1].split(/^(```[a-z-]*\n[\s\S]*?\n```)$/m)) {
    const fence = part.match(/^```([a-z-]*)\n([\s\S]*?)\n```$/);
    if (fence) html.push(`<pre><code class="language-${fence[1]}">${escape(fence[2])}\n</code></pre>`);
    else html.push(...part.split(/\n{2,}/).map((p) => p.trim()).filter(Boolean).map((p) => `<p>${escape(p)}</p>`));
  }
  return html.join("\n");
}

/** htmlPage is a fresh page holding body. */
function htmlPage(body, { head = "", title = "A page of another site", htmlAttrs = "" } = {}) {
  return `<!doctype html>\n<html lang="en"${htmlAttrs}>\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n<link rel="icon" href="data:,">\n<title>${title}</title>\n${head}</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".json": "application/json", ".wasm": "application/wasm", ".md": "text/plain" };

/**
 * serve starts a Node HTTP server on a free loopback port. handler(req,
 * res) answers; it resolves to {origin, close()}.
 */
function serve(handler) {
  return new Promise((resolve, reject) => {
    const srv = createServer(handler);
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      resolve({ port, close: () => new Promise((r) => (srv.closeAllConnections(), srv.close(r))) });
    });
  });
}

/** hostServer is the other site: pages put by the test, by path. */
async function hostServer() {
  const pages = new Map();
  const srv = await serve((req, res) => {
    const page = pages.get(new URL(req.url, "http://x").pathname);
    if (!page) {
      res.writeHead(404).end("no such page");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", ...page.headers }).end(page.html);
  });
  return {
    // localhost against the embed's 127.0.0.1: another site, not only
    // another origin.
    origin: `http://localhost:${srv.port}`,
    put: (path, html, headers = {}) => pages.set(path, { html, headers }),
    close: srv.close,
  };
}

/**
 * headersFile reads dist/_headers as Cloudflare Pages does: a path (a
 * trailing * matches the rest) and the headers under it.
 */
function headersFile() {
  const rules = [];
  for (const line of readFileSync(join(distDir, "_headers"), "utf8").split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    if (!/^\s/.test(line)) rules.push({ path: line.trim(), headers: {} });
    else {
      const [name, ...value] = line.trim().split(":");
      rules.at(-1).headers[name.trim()] = value.join(":").trim();
    }
  }
  return (path) => {
    const out = {};
    for (const r of rules) if (r.path.endsWith("*") ? path.startsWith(r.path.slice(0, -1)) : path === r.path) Object.assign(out, r.headers);
    return out;
  };
}

/**
 * staticHost serves dist/ as a static host does, with only the headers
 * headersFor(path) gives (and the type of the file).
 */
async function staticHost(headersFor) {
  const srv = await serve((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const file = normalize(join(distDir, path));
    let ok = file.startsWith(distDir + "/");
    try {
      ok &&= statSync(file).isFile();
    } catch {
      ok = false;
    }
    if (!ok) {
      res.writeHead(404, headersFor(path)).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": types[extname(file)] ?? "application/octet-stream", ...headersFor(path) }).end(readFileSync(file));
  });
  return { origin: `http://127.0.0.1:${srv.port}`, close: srv.close };
}

/** sizes is the raw and gzip -9 size of a file of dist/. */
function sizes(path) {
  const data = readFileSync(join(distDir, path));
  return { raw: data.length, gzip: gzipSync(data, { level: 9 }).length };
}

const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

// The examples the pages below hold. Code goes into HTML escaped where it
// must be (& and <).
const escape = (s) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;");

const stock = `const t = TableClient.fromConnectionString(connectionString, "Stock");
await t.createTable();
for (const [i, item] of ["apple", "pear", "plum"].entries()) {
  await t.upsertEntity({ partitionKey: "fruit", rowKey: item, count: i + 1 });
}
print("stocked");`;

const count = `const t = TableClient.fromConnectionString(connectionString, "Stock");
let n = 0;
for await (const e of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${"fruit"}\` } })) n++;
print(n, "in stock");`;

const ownCount = `const t = TableClient.fromConnectionString(connectionString, "Stock");
await t.createTable();
await t.createEntity({ partitionKey: "fruit", rowKey: "fig", count: 1 });
let n = 0;
for await (const e of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${"fruit"}\` } })) n++;
print(n, "in stock");`;

const readings = `const t = TableClient.fromConnectionString(connectionString, "Readings");
await t.createTable();
for (const sensor of ["s1", "s2", "s3"]) {
  const actions = [];
  for (let h = 0; h < 12; h++) {
    actions.push(["create", { partitionKey: sensor, rowKey: String(h).padStart(2, "0"), celsius: 15 + h }]);
  }
  await t.submitTransaction(actions);
}
let n = 0;
const filter = odata\`PartitionKey eq \${"s2"} and RowKey ge \${"04"} and RowKey lt \${"08"}\`;
for await (const r of t.listEntities({ queryOptions: { filter } })) n++;
print(n, "readings");`;

// What Markdown renderers write for a fence whose language is tablelab:
// CommonMark's (goldmark, markdown-it, Python-Markdown's fenced_code)
// and Material for MkDocs' (pymdownx.highlight: the class on a wrapper,
// each line a span with an anchor).
const commonmarkFence = (code) => `<pre><code class="language-tablelab">${escape(code)}\n</code></pre>`;
const materialFence = (code) =>
  `<div class="language-tablelab highlight"><pre><span></span><code>${code
    .split("\n")
    .map((line, i) => `<span id="__span-0-${i + 1}"><a id="__codelineno-0-${i + 1}" name="__codelineno-0-${i + 1}" href="#__codelineno-0-${i + 1}"></a>${escape(line)}\n</span>`)
    .join("")}</code></pre></div>`;

function embedInChromium() {
  let site;
  let host;
  let embed;
  const hosts = [];

  before(async () => {
    site = await startSite({ devPorts: false });
    embed = new URL(site.base).origin;
    host = await hostServer();
  });
  after(async () => {
    for (const h of hosts) await h.close();
    await host?.close();
    await site?.close();
  });

  const script = (origin = embed) => `<script type="module" src="${origin}/embed/tablelab-embed.js"></script>\n`;

  // open puts html on the host at path and opens it, noting the page's
  // problems (console errors, failed requests, HTTP errors) and every
  // request it makes.
  async function open(path, html, opts = {}) {
    host.put(path, html, opts.headers);
    const requests = [];
    const { page, problems } = await site.open(undefined, opts);
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(host.origin + path, { waitUntil: "load" });
    return { page, problems, requests };
  }

  // examples waits until the page's count examples are live.
  async function live(page, count) {
    await page.waitForFunction((n) => {
      const all = document.querySelectorAll("tablelab-example");
      return all.length === n && [...all].every((e) => e.dataset.state && e.dataset.state !== "loading");
    }, count);
  }

  // run clicks Run on the i-th example and waits for that run to end: its
  // state, output, plans ("plan examined/returned"), check and error.
  async function run(page, i) {
    const ex = page.locator("tablelab-example").nth(i);
    await ex.scrollIntoViewIfNeeded();
    // The run has ended when data-state leaves "running".
    await ex.evaluate((e) => {
      e.tablelabEnded = false;
      const watch = new MutationObserver((records) => {
        if (records.some((r) => r.oldValue === "running") && e.dataset.state !== "running") {
          watch.disconnect();
          e.tablelabEnded = true;
        }
      });
      watch.observe(e, { attributes: true, attributeFilter: ["data-state"], attributeOldValue: true });
    });
    await ex.locator("button.run-button").click();
    await page.waitForFunction((i) => document.querySelectorAll("tablelab-example")[i].tablelabEnded, i, { timeout: runLimitMs });
    return ex.evaluate((e) => ({
      state: e.dataset.state,
      output: e.shadowRoot.querySelector(".run-printed")?.textContent ?? "",
      plans: [...e.shadowRoot.querySelectorAll("li.run-plan")].map((li) => `${li.dataset.plan} ${li.dataset.examined}/${li.dataset.returned}`),
      matches: e.dataset.matches,
      check: e.shadowRoot.querySelector(".run-check")?.textContent ?? "",
      error: e.shadowRoot.querySelector(".run-error")?.textContent ?? "",
    }));
  }

  test("the README's snippet, copied as written into a fresh page of another site, runs its example", async () => {
    const snippet = readmeBlock("embed-page");
    assert.ok(snippet.includes(`${readmeOrigin}/embed/tablelab-embed.js`), "the snippet loads the embed from the site go run . serves");
    const { page, problems, requests } = await open("/readme.html", htmlPage(snippet.replaceAll(readmeOrigin, embed), { title: "The README's snippet" }));
    await live(page, 1);
    const r = await run(page, 0);
    assert.deepEqual(r, { state: "done", output: "2024-05-02 10\n2024-05-03 10", plans: ["range 2/2"], matches: "true", check: "✓ Matches the expected output and plans", error: "" });
    // The expected output is not shown, the code is (the page's own block).
    assert.equal(await page.locator("pre.tablelab-expected").isVisible(), false);
    assert.equal(await page.locator("pre.tablelab").isVisible(), true);
    // Everything came from the embed's origin, which is not the page's.
    const loaded = requests.filter((u) => !u.startsWith(host.origin) && !u.startsWith("blob:"));
    assert.ok(loaded.length > 5 && loaded.every((u) => u.startsWith(embed + "/")), loaded.join("\n"));
    assert.ok(loaded.some((u) => u.endsWith("/engine/app.wasm")));
    await page.screenshot({ path: join(outDir, "embed-readme.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the README's Markdown example, rendered as a Markdown site renders it, runs and matches its expected fence", async () => {
    const body = readmeMarkdown("embed-markdown");
    assert.match(body, /<pre><code class="language-tablelab">/);
    const { page, problems } = await open("/readme-markdown.html", htmlPage(body + script(), { title: "The README's Markdown" }));
    await live(page, 1);
    const r = await run(page, 0);
    assert.deepEqual(r, { state: "done", output: "2024-05-01T09 21\n2024-05-01T10 21", plans: ["range 2/2"], matches: "true", check: "✓ Matches the expected output", error: "" });
    assert.equal(await page.locator("code.language-tablelab-expected").isVisible(), false, "the expected fence is not shown");
    await page.screenshot({ path: join(outDir, "embed-readme-markdown.png"), fullPage: true });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a page with a Content-Security-Policy runs the example when the policy allows what content/embed.md lists", async () => {
    const html = htmlPage(readmeBlock("embed-page").replaceAll(readmeOrigin, embed));
    const allowed = `default-src 'none'; script-src ${embed} 'wasm-unsafe-eval' 'unsafe-eval'; worker-src blob: ${embed}; connect-src ${embed}; img-src data:`;
    let { page, problems } = await open("/csp.html", html, { headers: { "Content-Security-Policy": allowed } });
    await live(page, 1);
    const r = await run(page, 0);
    assert.deepEqual(problems, []);
    assert.deepEqual([r.state, r.matches], ["done", "true"], r.error);
    // The editor's styles are constructed stylesheets, which style-src
    // does not govern.
    await page.locator("tablelab-example .run-code").click();
    await page.locator("tablelab-example .cm-gutters").waitFor();
    assert.equal(await page.locator("tablelab-example .cm-gutters").evaluate((g) => getComputedStyle(g).display), "flex");
    await page.close();
    // Without 'unsafe-eval' the reader's code cannot be compiled, and the
    // example says why.
    ({ page, problems } = await open("/csp-no-eval.html", html, { headers: { "Content-Security-Policy": allowed.replace(" 'unsafe-eval'", "") } }));
    await live(page, 1);
    const refused = await run(page, 0);
    assert.equal(refused.state, "error");
    assert.match(refused.error, /unsafe-eval/);
    await page.close();
  });

  test("a cross-origin isolated page needs Cross-Origin-Resource-Policy too: Access-Control-Allow-Origin alone (GitHub Pages') is not enough there", async () => {
    const isolated = { "Cross-Origin-Embedder-Policy": "require-corp", "Cross-Origin-Opener-Policy": "same-origin" };
    // The site go run . serves sends both headers.
    let { page, problems } = await open("/isolated.html", htmlPage(readmeBlock("embed-page").replaceAll(readmeOrigin, embed)), { headers: isolated });
    assert.equal(await page.evaluate(() => crossOriginIsolated), true);
    await live(page, 1);
    assert.equal((await run(page, 0)).matches, "true");
    assert.deepEqual(problems, []);
    await page.close();
    // A host that sends Access-Control-Allow-Origin alone serves a page
    // that is not isolated, but not one that is.
    const corsOnly = await staticHost(() => ({ "Access-Control-Allow-Origin": "*" }));
    hosts.push(corsOnly);
    const html = htmlPage(readmeBlock("embed-page").replaceAll(readmeOrigin, corsOnly.origin));
    ({ page, problems } = await open("/cors-only.html", html));
    await live(page, 1);
    assert.equal((await run(page, 0)).matches, "true");
    assert.deepEqual(problems, []);
    await page.close();
    ({ page, problems } = await open("/cors-only-isolated.html", html, { headers: isolated }));
    await live(page, 1);
    const blocked = await run(page, 0);
    assert.equal(blocked.state, "error");
    assert.match(blocked.error, /engine worker failed/);
    await page.close();
  });

  test("nothing heavy loads until a run; the page's examples share one engine; sizes", async (t) => {
    const body = `<main style="max-width: 46rem; margin: 0 auto; padding: 1rem">
<h1>Notes on table design</h1>
<p>Prose first; the examples are far down the page.</p>
<div style="height: 3000px"></div>
<pre class="tablelab">${escape(ownCount)}</pre>
<p>And another.</p>
<pre data-tablelab>${escape(readings)}</pre>
</main>`;
    const { page, problems, requests } = await open("/light.html", htmlPage(body + script()));
    const workers = [];
    page.on("worker", (w) => workers.push(w.url()));
    await page.waitForLoadState("networkidle");
    const fromEmbed = () => requests.filter((u) => u.startsWith(embed)).map((u) => u.slice(embed.length));
    const heavy = ["/engine/app.wasm", "/engine/worker.js", "/engine/wasm_exec.js", "/play/vendor/azure-storage.js", "/play/vendor/codemirror.js", "/play/run-worker.js", "/play/runner.js"];
    // Fetched once by the page: the runner worker imports runner.js
    // again, in its own realm.
    const once = heavy.filter((u) => u !== "/play/vendor/codemirror.js" && u !== "/play/runner.js");
    assert.deepEqual(fromEmbed(), ["/embed/tablelab-embed.js"], "before an example is near the screen");
    assert.equal(await page.evaluate(() => document.querySelectorAll("tablelab-example:not([data-state])").length), 2, "both blocks are examples, not live yet");

    await page.locator("tablelab-example").first().scrollIntoViewIfNeeded();
    await live(page, 2);
    await page.waitForLoadState("networkidle");
    const near = fromEmbed();
    assert.ok(near.includes("/embed/element.js") && near.includes("/embed/tablelab-embed.css") && near.includes("/play/live-example.js"), near.join(" "));
    assert.deepEqual(near.filter((u) => heavy.includes(u)), [], "near the screen, before a run");
    assert.deepEqual(workers, []);

    const first = await run(page, 0);
    assert.equal(first.output, "1 in stock");
    const second = await run(page, 1);
    assert.equal(second.output, "4 readings");
    assert.deepEqual(second.plans, ["range 4/4"]);
    const after = fromEmbed();
    for (const u of once) assert.equal(after.filter((x) => x === u).length, 1, `${u} loaded once for both examples`);
    assert.ok(!after.includes("/play/vendor/codemirror.js"), "no editor until the reader edits");
    // Two workers, both from blob: URLs of the page's origin: the engine
    // and the runner, shared by the examples.
    assert.equal(workers.length, 2, workers.join(" "));
    assert.ok(workers.every((u) => u.startsWith("blob:" + host.origin)), workers.join(" "));

    await page.locator("tablelab-example").first().locator(".run-code").click();
    await page.waitForFunction(() => document.querySelector("tablelab-example").dataset.editing === "");
    assert.ok(fromEmbed().includes("/play/vendor/codemirror.js"));
    assert.deepEqual(problems, []);

    const sum = (paths) => paths.map(sizes).reduce((a, b) => ({ raw: a.raw + b.raw, gzip: a.gzip + b.gzip }), { raw: 0, gzip: 0 });
    const entry = sizes("embed/tablelab-embed.js");
    const ui = sum(near.filter((u) => u !== "/embed/tablelab-embed.js").map((u) => u.slice(1)));
    const engine = sum(heavy.filter((u) => u !== "/play/vendor/codemirror.js").map((u) => u.slice(1)));
    const editor = sizes("play/vendor/codemirror.js");
    t.diagnostic(`embed sizes raw / gzip -9: the script ${entry.raw} B / ${entry.gzip} B; near the screen ${kib(ui.raw)} / ${kib(ui.gzip)}; at the first run ${kib(engine.raw)} / ${kib(engine.gzip)}; the editor ${kib(editor.raw)} / ${kib(editor.gzip)}`);
    assert.ok(entry.raw <= entryBudget.raw && entry.gzip <= entryBudget.gzip, `tablelab-embed.js is ${entry.raw} B, ${entry.gzip} B gzipped, over its budget`);
    await page.close();
  });

  test("examples share a store when marked with the same name, and otherwise start from an empty one", async () => {
    const body = `<h1>Stores</h1>
<tablelab-example store="shop" heat><pre>${escape(stock)}</pre></tablelab-example>
<tablelab-example store="shop" plans="partition-scan"><pre>${escape(count)}</pre><pre class="tablelab-expected">3 in stock</pre></tablelab-example>
<pre class="tablelab">${escape(ownCount)}</pre>
<tablelab-example store="other"><pre>${escape(count)}</pre></tablelab-example>`;
    const { page, problems } = await open("/stores.html", htmlPage(body + script()));
    await live(page, 4);
    assert.equal((await run(page, 0)).output, "stocked");
    // Asked for, the heat panel shows though no partition went over.
    assert.equal(await page.locator("tablelab-example").first().locator("section.heat").getAttribute("data-over"), "0");
    const shared = await run(page, 1);
    assert.deepEqual([shared.output, shared.plans, shared.matches], ["3 in stock", ["partition-scan 3/3"], "true"]);
    // An example of its own store sees none of that, and starts empty on
    // every run: its createEntity would fail the second time otherwise.
    assert.equal((await run(page, 2)).output, "1 in stock");
    assert.equal((await run(page, 2)).output, "1 in stock");
    // The shared store keeps what its examples wrote, run after run.
    assert.equal((await run(page, 0)).output, "stocked");
    assert.equal((await run(page, 1)).output, "3 in stock");
    // Another name is another store: the table is not there.
    const other = await run(page, 3);
    assert.equal(other.state, "error");
    assert.match(other.error, /TableNotFound/);
    // The explanation's link leads to the guide on the embed's site, in a
    // tab of its own.
    const more = page.locator("tablelab-example").nth(3).locator(".run-error-explain a");
    assert.deepEqual([new URL(await more.getAttribute("href")).origin, await more.getAttribute("target")], [embed, "_blank"]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("Markdown's fenced blocks, a wrong expected output, and the keyspace map", async () => {
    const body = `<h1>From Markdown</h1>
${commonmarkFence(ownCount)}
${materialFence(readings)}
<pre><code class="language-tablelab-expected">4 readings
</code></pre>
<tablelab-example map plans="range"><pre>${escape(readings)}</pre><pre class="tablelab-expected">5 readings</pre></tablelab-example>`;
    const { page, problems } = await open("/markdown.html", htmlPage(body + script()));
    await live(page, 3);
    assert.equal((await run(page, 0)).output, "1 in stock");
    const material = await run(page, 1);
    assert.deepEqual([material.output, material.matches], ["4 readings", "true"], "the code read from Material's spans, its expected block from the fence after it");
    const wrong = await run(page, 2);
    assert.deepEqual([wrong.output, wrong.matches, wrong.check], ["4 readings", "false", "≠ Differs from the expected output and plans"]);
    const map = page.locator("tablelab-example").nth(2).locator(".pg-map");
    await map.locator("svg").waitFor();
    assert.deepEqual(await map.evaluate((m) => [m.dataset.walkedFrom, m.dataset.walkedTo, m.dataset.returned]), ["16", "20", "4"]);
    // The strip reads by keyboard.
    await map.locator("svg").focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("PageDown");
    assert.match(await map.locator(".pg-map-readout").textContent(), /^s2 \/ 00 · entity 13 of 36/);
    // A block that arrives later (a site's instant navigation) becomes an
    // example too.
    await page.evaluate(() => document.body.insertAdjacentHTML("beforeend", '<pre class="tablelab">print("arrived");</pre>'));
    await live(page, 4);
    assert.equal((await run(page, 3)).output, "arrived");
    assert.deepEqual(problems, []);
    await page.close();
  });

  // The page whose screenshots are looked at, in each theme.
  const showcase = (attrs = "") => `<main style="max-width: 52rem; margin: 0 auto; padding: 1rem 1.5rem; font-family: Georgia, serif">
<h1>Designing for range queries</h1>
<p>A reading of one sensor for a few hours is a range of one partition: the keyspace map shows the walk.</p>
<tablelab-example map plans="range"${attrs}><pre>${escape(readings)}</pre><pre class="tablelab-expected">4 readings</pre></tablelab-example>
<p>Text after the example.</p>
</main>`;

  for (const [name, opts, dark] of [
    ["light", { colorScheme: "light" }, false],
    ["dark", { colorScheme: "dark" }, true],
  ]) {
    test(`a ${name} host page: the example follows it, passes axe-core, and is screenshot (out/embed-${name}.png)`, async () => {
      const pageStyle = dark ? "<style>:root { color-scheme: dark; } body { background: #15181d; color: #e8e6e3; }</style>\n" : "";
      const { page, problems } = await open(`/${name}.html`, htmlPage(showcase() + script(), { head: pageStyle }), opts);
      await live(page, 1);
      const r = await run(page, 0);
      assert.equal(r.matches, "true");
      await page.locator("tablelab-example .pg-map svg").waitFor();
      const box = await page.locator("tablelab-example").evaluate((e) => {
        const b = e.shadowRoot.querySelector(".tl");
        return { dark: b.classList.contains("tl-dark"), bg: getComputedStyle(b).backgroundColor };
      });
      assert.deepEqual(box, dark ? { dark: true, bg: "rgb(13, 17, 23)" } : { dark: false, bg: "rgb(255, 255, 255)" });
      await page.addScriptTag({ content: axeSource });
      const found = await page.evaluate(async () => {
        const res = await window.axe.run(document, { resultTypes: ["violations"] });
        return res.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      });
      assert.deepEqual(found, []);
      await page.locator("tablelab-example").screenshot({ path: join(outDir, `embed-${name}.png`) });
      await page.screenshot({ path: join(outDir, `embed-${name}-page.png`), fullPage: true });
      // A phone's width: the toolbar wraps, the code scrolls in its box.
      await page.setViewportSize({ width: 390, height: 844 });
      const width = await page.locator("tablelab-example").evaluate((e) => [e.getBoundingClientRect().width, e.shadowRoot.querySelector(".tl").scrollWidth, e.shadowRoot.querySelector(".tl").clientWidth]);
      assert.ok(width[0] <= 390 && width[1] <= width[2], `at 390 px the example is ${width[0]} px wide, its box scrolls ${width[1]} in ${width[2]}`);
      await page.locator("tablelab-example").screenshot({ path: join(outDir, `embed-${name}-phone.png`) });
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test("the page's theme attribute, class or color-scheme decides over the system's, and the example's own attribute over both", async () => {
    const { page, problems } = await open("/themes.html", htmlPage(showcase() + `<tablelab-example theme="light"><pre>print(1)</pre></tablelab-example>` + script()), { colorScheme: "light" });
    await live(page, 2);
    const dark = () => page.evaluate(() => [...document.querySelectorAll("tablelab-example")].map((e) => e.shadowRoot.querySelector(".tl").classList.contains("tl-dark")));
    assert.deepEqual(await dark(), [false, false]);
    for (const [set, want] of [
      [() => (document.documentElement.dataset.theme = "dark"), [true, false]],
      [() => delete document.documentElement.dataset.theme, [false, false]],
      [() => document.body.classList.add("dark"), [true, false]],
      [() => document.body.classList.remove("dark"), [false, false]],
      [() => (document.documentElement.style.colorScheme = "dark"), [true, false]],
      [() => (document.documentElement.style.colorScheme = ""), [false, false]],
    ]) {
      await page.evaluate(set);
      await page.waitForFunction((want) => JSON.stringify([...document.querySelectorAll("tablelab-example")].map((e) => e.shadowRoot.querySelector(".tl").classList.contains("tl-dark"))) === JSON.stringify(want), want);
    }
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.querySelector("tablelab-example").shadowRoot.querySelector(".tl").classList.contains("tl-dark"));
    assert.deepEqual(await dark(), [true, false]);
    await page.locator("tablelab-example").nth(1).evaluate((e) => e.setAttribute("theme", "dark"));
    assert.deepEqual(await dark(), [true, true]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("custom properties restyle the example (out/embed-custom.png); neither the page's CSS nor the embed's crosses into the other", async () => {
    const hostile = `<style>
  :root { --tablelab-link: #7a1f8f; --tablelab-radius: 14px; --tablelab-font: "Courier New", monospace; --bg: #ff0000; --link: #00ff00; }
  * { letter-spacing: 3px; text-transform: uppercase; }
  button { background: #ff0000 !important; font-size: 40px; }
  .run-output, .run-toolbar { display: none; }
  .plan { color: #ff00ff; }
  a { color: #00aa00; }
</style>\n`;
    const body = `${showcase()}
<p>Outside the example: <button class="run-button" type="button">a page button</button> <span class="plan plan-range">a span</span> <span class="tl">a box</span></p>`;
    const { page, problems } = await open("/custom.html", htmlPage(body + script(), { head: hostile }), { colorScheme: "light" });
    await live(page, 1);
    const r = await run(page, 0);
    assert.equal(r.matches, "true");
    const inside = await page.locator("tablelab-example").evaluate((e) => {
      const s = (sel) => getComputedStyle(e.shadowRoot.querySelector(sel));
      return {
        run: [s(".run-button").backgroundColor, s(".run-button").borderTopLeftRadius, s(".run-button").fontSize, s(".run-button").letterSpacing, s(".run-button").textTransform],
        font: s(".tl").fontFamily,
        bg: s(".tl").backgroundColor,
        output: s(".run-output").display,
        plan: s(".run-plan .plan").color,
      };
    });
    assert.deepEqual(inside, {
      run: ["rgb(122, 31, 143)", "14px", "15px", "normal", "none"],
      font: '"Courier New", monospace',
      bg: "rgb(255, 255, 255)",
      output: "block",
      plan: "rgb(5, 80, 174)",
    });
    const outside = await page.evaluate(() => {
      const s = (sel) => getComputedStyle(document.querySelector(`p > ${sel}`));
      return { button: [s(".run-button").backgroundColor, s(".run-button").borderTopLeftRadius], plan: [s(".plan").color, s(".plan").borderTopStyle], box: [s(".tl").borderTopStyle, s(".tl").paddingTop] };
    });
    assert.equal(outside.button[0], "rgb(255, 0, 0)");
    assert.notEqual(outside.button[1], "14px");
    assert.deepEqual([outside.plan, outside.box], [["rgb(255, 0, 255)", "none"], ["none", "0px"]]);
    await page.locator("tablelab-example").screenshot({ path: join(outDir, "embed-custom.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("keyboard: the code takes focus, Enter edits, Ctrl+Enter runs, Tab reaches the buttons", async () => {
    const { page, problems } = await open("/keys.html", htmlPage(`<h1>Keys</h1><p><a href="#x">A link before</a></p><pre class="tablelab" data-label="Stock example">print("hello");</pre>` + script()));
    await live(page, 1);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    assert.deepEqual(await page.evaluate(() => [document.activeElement.localName, document.activeElement.getAttribute("aria-label")]), ["pre", "Stock example: press Enter to edit"]);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement.shadowRoot?.activeElement?.textContent), "Run");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Enter");
    const ex = page.locator("tablelab-example");
    await page.waitForFunction(() => document.querySelector("tablelab-example").shadowRoot.activeElement?.classList.contains("cm-content"));
    assert.equal(await ex.locator(".cm-content").getAttribute("aria-label"), "Stock example");
    await page.keyboard.press("Control+End");
    await page.keyboard.type('\nprint("typed");');
    await page.keyboard.press("Control+Enter");
    await page.waitForFunction(() => document.querySelector("tablelab-example").dataset.state === "done", null, { timeout: runLimitMs });
    assert.equal(await ex.locator(".run-printed").textContent(), "hello\ntyped");
    assert.equal(await ex.locator(".run-output").getAttribute("aria-live"), "polite");
    // CodeMirror put its styles in the shadow root: its gutter is laid out.
    assert.equal(await ex.locator(".cm-gutters").evaluate((g) => getComputedStyle(g).display), "flex");
    await ex.screenshot({ path: join(outDir, "embed-editing.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a static host that applies dist/_headers serves a working embed; one without them fails in words, and the page keeps its code", async () => {
    const withHeaders = await staticHost(headersFile());
    hosts.push(withHeaders);
    const snippet = readmeBlock("embed-page").replaceAll(readmeOrigin, withHeaders.origin);
    let { page, problems } = await open("/static.html", htmlPage(snippet));
    await live(page, 1);
    assert.equal((await run(page, 0)).matches, "true");
    assert.deepEqual(problems, []);
    await page.close();

    // CORS on the embed's modules but not on the engine: the example says
    // which host must send what.
    const noEngine = await staticHost((path) => (path.startsWith("/engine/") ? {} : headersFile()(path)));
    hosts.push(noEngine);
    ({ page, problems } = await open("/no-engine.html", htmlPage(readmeBlock("embed-page").replaceAll(readmeOrigin, noEngine.origin))));
    await live(page, 1);
    const failed = await run(page, 0);
    assert.equal(failed.state, "error");
    assert.match(failed.error, new RegExp(`engine worker failed.*${noEngine.origin.replaceAll(".", "\\.")}, which must send Access-Control-Allow-Origin`));
    await page.close();

    // No CORS at all: the module does not load, and the page still reads.
    const none = await staticHost(() => ({}));
    hosts.push(none);
    ({ page, problems } = await open("/none.html", htmlPage(readmeBlock("embed-page").replaceAll(readmeOrigin, none.origin))));
    await page.waitForLoadState("networkidle");
    assert.equal(await page.locator("tablelab-example").count(), 0);
    assert.match(await page.locator("pre.tablelab").textContent(), /listEntities/);
    assert.ok(problems.some((p) => /CORS|Access-Control-Allow-Origin/.test(p)), problems.join("\n"));
    await page.close();
  });
}
