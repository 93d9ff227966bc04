// The search box in real headless Chromium, on the built site served by
// `tablelab -memory -site-addr`: words a reader looks for find the
// sections that discuss them, ranked, each with a snippet marking the
// word; Enter opens the first result at its section; the arrow keys and
// Escape work as a combobox's do; a word found nowhere says so; the index
// loads only when the reader reaches for the box; the results read well in
// light, dark and at a phone's width (screenshots in out/search-*.png).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { outDir } from "./record.mjs";
import { requireDist } from "./server.mjs";

// Words the docs discuss in their text, not in their titles or headings,
// and the pages with a section that explains each in its prose (any of
// them may come first; a page whose examples only use the word may not).
// The pages whose prose explains each word: the diagnosis page has a
// section on each of continuation tokens and 412 storms, headed by it.
const queries = [
  { q: "continuation", pages: ["concepts/paging-and-projection.html", "production/diagnosis.html"] },
  { q: "odata", pages: ["reference/filter.html", "concepts/queries.html"] },
  { q: "SAS", pages: ["concepts/shared-access-signatures.html", "run-locally.html"] },
  { q: "DateTime", pages: ["reference/types.html", "concepts/data-model.html", "reference/filter.html", "patterns/log-tail.html"] },
  {
    q: "EntityAlreadyExists",
    pages: ["concepts/concurrency.html", "concepts/transactions.html", "patterns/intra-partition-secondary-index.html"],
  },
  { q: "412", pages: ["concepts/concurrency.html", "production/diagnosis.html"] },
];

const nonsense = "qzxvwkjh";
const phone = { width: 390, height: 844 };

const missing = missingBrowser();
if (missing) {
  test("search in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  searchInChromium();
}

function searchInChromium() {
  requireDist();
  let site, base;

  before(async () => {
    site = await startSite();
    base = site.base;
  });
  after(async () => site?.close());

  // open returns a new page at path in the light theme unless told,
  // with its problems and the URL of every request it made.
  const open = (path, { viewport, colorScheme } = {}) => site.open(path, { viewport, colorScheme: colorScheme ?? "light" });

  // results types query into the box and returns what the list shows:
  // for each option its link, score, page, section, snippet and the
  // words marked in it.
  async function results(page, query) {
    const input = page.locator("#search-input");
    await input.fill(query);
    await page.waitForFunction(
      (q) => document.getElementById("search-results")?.dataset.query === q,
      query,
      { timeout: 20000 },
    );
    const found = await page.$$eval("#search-results [role=option]", (opts) =>
      opts.map((o) => ({
        id: o.id,
        url: o.href,
        score: Number(o.dataset.score),
        page: o.querySelector(".result-page")?.textContent ?? "",
        section: o.querySelector(".result-section")?.textContent ?? "",
        snippet: o.querySelector(".result-snippet")?.textContent ?? "",
        marked: [...o.querySelectorAll("mark")].map((m) => m.textContent),
        visible: o.getBoundingClientRect().height > 0,
      })),
    );
    // href: the link as a path in the site, "page.html#anchor".
    return found.map((r) => ({ ...r, href: r.url.startsWith(base) ? r.url.slice(base.length) : r.url }));
  }

  // sectionProse is the prose of the section #id of the open page (the
  // page's opening when id is empty): its heading and what follows up to
  // the next heading of the same or a higher level, without code blocks
  // and examples, so that it holds what the section explains.
  function sectionProse(page, id) {
    return page.evaluate((id) => {
      const start = id ? document.getElementById(id) : document.querySelector("article h1");
      const level = id ? Number(start.tagName[1]) : 3;
      let text = start.textContent;
      for (let n = start.nextElementSibling; n; n = n.nextElementSibling) {
        if (/^H[1-6]$/.test(n.tagName) && Number(n.tagName[1]) <= level) break;
        if (n.matches("pre, .highlight, figure.run-example, nav.toc")) continue;
        const prose = n.cloneNode(true);
        prose.querySelectorAll("pre, .highlight, figure.run-example").forEach((c) => c.remove());
        text += "\n" + prose.textContent;
      }
      return text;
    }, id);
  }

  test("the index loads when the reader reaches for the box, not with the page", async (t) => {
    const page = await site.browser.context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
    // Bytes on the wire per URL, compression counted, from a cold cache.
    const cdp = await site.browser.context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.clearBrowserCache");
    const urls = new Map();
    const wire = new Map();
    cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
    cdp.on("Network.loadingFinished", (e) => wire.set(urls.get(e.requestId), e.encodedDataLength));
    const sum = (pick) => [...wire].filter(([u]) => pick(u)).reduce((n, [, b]) => n + b, 0);
    const searchFiles = (u) => /search\.json|minisearch|search-options/.test(u);

    await page.goto(base + "concepts/queries.html", { waitUntil: "load" });
    await page.waitForLoadState("networkidle");
    const early = [...urls.values()].filter(searchFiles);
    assert.deepEqual(early, [], "requests for the search index before the box was used");
    const pageBytes = sum(() => true);

    await page.locator("#search-input").focus();
    await page.waitForFunction(() => document.getElementById("search-results")?.dataset.ready === "true");
    await page.waitForLoadState("networkidle");
    const fetched = [...urls.values()].filter(searchFiles).map((u) => u.slice(base.length)).sort();
    assert.deepEqual(fetched, ["search.json", "static/search-options.js", "static/vendor/minisearch.js"]);
    t.diagnostic(
      `concepts/queries.html, cold cache, nothing pressed: ${(pageBytes / 1024).toFixed(1)} KB on the wire; ` +
        `the search on first focus: ${(sum(searchFiles) / 1024).toFixed(1)} KB more ` +
        `(search.json ${(sum((u) => u.endsWith("/search.json")) / 1024).toFixed(1)} KB)`,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const { q, pages } of queries) {
    test(`"${q}" finds the sections that discuss it, ranked, with the word marked in a snippet, and Enter opens the first`, async () => {
      const { page, problems } = await open("index.html");
      const found = await results(page, q);
      assert.ok(found.length > 0, `no result for ${q}`);
      assert.ok(found.every((r) => r.visible), "a result is not shown");
      // Ranked: best first, as MiniSearch scored them.
      const scores = found.map((r) => r.score);
      assert.ok(scores.every((s) => s > 0), `scores ${scores}`);
      assert.deepEqual(scores, [...scores].sort((a, b) => b - a), "results not in score order");
      // Every result says which page and section it is, and marks what
      // matched: in the snippet for the first, where the word is in the text.
      for (const r of found) {
        assert.ok(r.page.trim() !== "", `${r.href}: no page title`);
        assert.ok(r.snippet.trim() !== "", `${r.href}: no snippet`);
      }
      const top = found[0];
      const word = q.toLowerCase();
      assert.ok(
        top.marked.some((m) => m.toLowerCase().includes(word)),
        `the first result (${top.href}) marks ${JSON.stringify(top.marked)}, not "${q}"; snippet: ${top.snippet}`,
      );
      assert.ok(top.snippet.toLowerCase().includes(word), `the first snippet lacks "${q}": ${top.snippet}`);
      const [topPage, anchor = ""] = top.href.split("#");
      assert.ok(pages.includes(topPage), `the first result for "${q}" is ${top.href}, not one of ${pages}`);

      // Enter opens the first result at its section, which discusses the word.
      await page.locator("#search-input").press("Enter");
      await page.waitForURL((u) => u.href === top.url);
      if (anchor) {
        assert.equal(await page.locator(`[id="${anchor}"]`).count(), 1, `#${anchor} on ${topPage}`);
        // The page scrolls smoothly to the heading: it ends at the top of
        // the view.
        const landed = await page
          .waitForFunction((id) => {
            const top = document.getElementById(id).getBoundingClientRect().top;
            return top >= -1 && top < innerHeight / 4;
          }, anchor, { timeout: 5000 })
          .then(() => true, () => false);
        const top = await page.evaluate((id) => document.getElementById(id).getBoundingClientRect().top, anchor);
        assert.ok(landed, `#${anchor} is not at the top of the view (its top is at ${top} px)`);
      }
      const prose = (await sectionProse(page, anchor)).toLowerCase();
      assert.ok(prose.includes(word), `the prose of ${top.href} does not mention "${q}"`);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test("the arrow keys move through the results, Enter opens the one chosen, Escape closes the list", async () => {
    const { page, problems } = await open("index.html");
    const input = page.locator("#search-input");
    const found = await results(page, "partition");
    assert.ok(found.length >= 3, `${found.length} results for partition`);
    assert.equal(await input.getAttribute("role"), "combobox");
    assert.equal(await input.getAttribute("aria-expanded"), "true");
    assert.equal(await page.locator("#search-results").getAttribute("role"), "listbox");
    const active = () => input.getAttribute("aria-activedescendant");
    const selected = () => page.$$eval("#search-results [aria-selected=true]", (os) => os.map((o) => o.id));
    await input.press("ArrowDown");
    assert.equal(await active(), found[0].id);
    await input.press("ArrowDown");
    assert.equal(await active(), found[1].id);
    assert.deepEqual(await selected(), [found[1].id]);
    await input.press("ArrowUp");
    assert.equal(await active(), found[0].id);
    await input.press("ArrowDown");
    await input.press("Escape");
    assert.equal(await input.getAttribute("aria-expanded"), "false");
    assert.equal(await page.locator("#search-results").isVisible(), false, "the list is still shown after Escape");
    // ArrowDown opens it again at the first result; Enter opens the one chosen.
    await input.press("ArrowDown");
    assert.equal(await input.getAttribute("aria-expanded"), "true");
    await input.press("ArrowDown");
    await input.press("Enter");
    await page.waitForURL((u) => u.href === found[1].url);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a word found nowhere says so", async () => {
    const { page, problems } = await open("index.html");
    const found = await results(page, nonsense);
    assert.deepEqual(found, []);
    const status = page.locator("#search-status");
    await status.waitFor({ state: "visible" });
    assert.match(await status.textContent(), new RegExp(`No results for .*${nonsense}`));
    // Enter with nothing found stays on the page.
    await page.locator("#search-input").press("Enter");
    assert.ok(page.url().endsWith("/index.html"), page.url());
    assert.deepEqual(problems, []);
    await page.close();
  });

  // contrast returns, for each element matching selector in the open
  // list, the WCAG contrast ratio of its text against the background it
  // is drawn on.
  function contrasts(page, selector) {
    return page.$$eval(selector, (els) => {
      const rgba = (s) => {
        const m = s.match(/rgba?\(([^)]+)\)/);
        if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
        return { r, g, b, a };
      };
      const over = (top, below) => ({
        r: top.r * top.a + below.r * (1 - top.a),
        g: top.g * top.a + below.g * (1 - top.a),
        b: top.b * top.a + below.b * (1 - top.a),
        a: 1,
      });
      const background = (el) => {
        const layers = [];
        for (let n = el; n; n = n.parentElement) {
          const c = rgba(getComputedStyle(n).backgroundColor);
          if (c && c.a > 0) layers.push(c);
          if (c && c.a === 1) break;
        }
        let c = { r: 255, g: 255, b: 255, a: 1 };
        for (const l of layers.reverse()) c = over(l, c);
        return c;
      };
      const lum = ({ r, g, b }) => {
        const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      return els.map((el) => {
        const bg = background(el);
        const fg = over(rgba(getComputedStyle(el).color), bg);
        const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
        return { text: el.textContent.slice(0, 30), ratio: (hi + 0.05) / (lo + 0.05) };
      });
    });
  }

  test("screenshots of the results in light, dark and at a phone's width, with readable contrast (out/search-*.png)", async () => {
    const shots = [
      ["search-light.png", "concepts/queries.html", { colorScheme: "light" }],
      ["search-dark.png", "concepts/queries.html", { colorScheme: "dark" }],
      ["search-phone.png", "concepts/queries.html", { viewport: phone }],
      ["search-none.png", "concepts/queries.html", { viewport: phone, colorScheme: "dark" }],
    ];
    for (const [file, path, opts] of shots) {
      const { page, problems } = await open(path, opts);
      const query = file === "search-none.png" ? nonsense : "continuation";
      const found = await results(page, query);
      assert.equal(found.length > 0, query !== nonsense, `${file}: ${found.length} results`);
      await page.locator("#search-input").press("ArrowDown");
      if (opts.viewport) {
        // Nothing sticks out sideways on a phone.
        const wide = await page.evaluate(() => {
          const panel = document.getElementById("search-panel");
          return { scroll: document.documentElement.scrollWidth, panel: panel.getBoundingClientRect().right };
        });
        assert.ok(wide.scroll <= phone.width && wide.panel <= phone.width, `${file}: ${JSON.stringify(wide)}`);
      }
      const low = (await contrasts(page, "#search-panel .result-page, #search-panel .result-section, #search-panel .result-snippet, #search-panel mark, #search-status"))
        .filter((c) => c.ratio < 4.5);
      assert.deepEqual(low, [], `${file}: text under 4.5:1`);
      await page.screenshot({ path: join(outDir, file) });
      assert.deepEqual(problems, [], file);
      await page.close();
    }
  });
}
