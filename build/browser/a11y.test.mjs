// Every page of the built site under axe-core (pinned in package.json), in
// the light and the dark theme: no serious or critical violation. The
// playground is checked again after a program ran, with every panel
// drawn, an exercise after Check with its verdict, solution and
// measures open, and its keyspace map is read by keyboard. Each page and theme is
// a test of its own, so the tally counts them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { htmlPages } from "./examples.mjs";
import { outDir } from "./record.mjs";
import { distDir } from "./server.mjs";
import { checkExercise, openPlayground, playgroundPage, runInPlayground } from "./ui.mjs";

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const missing = missingBrowser();
if (missing) {
  test("accessibility in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  accessibility();
}

// serious lists the violations axe finds on the page as it stands that
// are serious or critical, one line each with the first few places.
async function serious(page) {
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.length,
        where: v.nodes.slice(0, 4).map((n) => `${n.target.join(" ")}: ${n.failureSummary.replace(/\s+/g, " ").slice(0, 160)}`),
      }));
  });
  return found.map((v) => `${v.impact} ${v.id} ×${v.nodes}: ${v.where.join(" | ")}`);
}

function accessibility() {
  let site;
  const pages = htmlPages(distDir);
  const playground = playgroundPage(distDir);

  before(async () => {
    site = await startSite();
  });
  after(async () => site?.close());

  for (const colorScheme of ["light", "dark"]) {
    for (const path of pages) {
      test(`axe: ${path} (${colorScheme}) has no serious or critical violation`, async () => {
        const { page, problems } = await site.open(undefined, { colorScheme });
        await page.goto(site.base + path, { waitUntil: "load" });
        await page.waitForLoadState("networkidle");
        assert.deepEqual(await serious(page), []);
        assert.deepEqual(problems, []);
        await page.close();
      });
    }
    test(`axe: the playground after a program ran (${colorScheme}), every panel drawn`, async () => {
      const { page, problems } = await site.open(undefined, { colorScheme, viewport: { width: 1366, height: 900 } });
      await openPlayground(page, site.base + playground);
      await page.locator("#pg-starter").selectOption({ index: 1 });
      const ran = await runInPlayground(page);
      assert.equal(ran.state, "done", ran.error);
      // Each tab's panel in turn, so that axe sees what it draws.
      const tabs = page.locator("#playground [role=tab]");
      const found = [];
      for (let i = 0; i < Math.max(1, await tabs.count()); i++) {
        if ((await tabs.count()) > 0) await tabs.nth(i).click();
        for (const v of await serious(page)) if (!found.includes(v)) found.push(v);
      }
      await page.screenshot({ path: join(outDir, `a11y-playground-${colorScheme}.png`) });
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  for (const colorScheme of ["light", "dark"]) {
    test(`axe: an exercise after Check, failing and then passing, solution and measures open (${colorScheme})`, async () => {
      const path = "patterns/index-entities.html";
      const { page, problems } = await site.open(path, { colorScheme });
      const id = await page.locator("figure.exercise").first().getAttribute("id");
      const found = [];
      for (const solution of [false, true]) {
        await checkExercise(page, id, { solution });
        await page.locator(`figure[id="${id}"] details.exercise-measures summary`).click();
        for (const v of await serious(page)) if (!found.includes(v)) found.push(v);
      }
      assert.deepEqual(found, []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  // axe cannot judge the editor's text (its layers hide the background
  // from it), so its colours are checked here: every token of a starter
  // program, on the editor's background and on its active line.
  for (const colorScheme of ["light", "dark"]) {
    test(`the editor's colours pass WCAG AA (${colorScheme})`, async () => {
      const { page, problems } = await site.open(undefined, { colorScheme });
      await openPlayground(page, site.base + playground);
      await page.locator("#pg-starter").selectOption({ index: 1 });
      const low = await page.evaluate(() => {
        const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
        const lum = ([r, g, b]) => {
          const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
          return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
        };
        const ratio = (a, b) => {
          const [x, y] = [lum(rgb(a)), lum(rgb(b))].sort((p, q) => q - p);
          return (x + 0.05) / (y + 0.05);
        };
        const editor = document.querySelector("#playground .cm-editor");
        const backgrounds = [getComputedStyle(editor).backgroundColor, getComputedStyle(document.documentElement).getPropertyValue("--ed-active-line")];
        const out = [];
        for (const span of editor.querySelectorAll(".cm-line, .cm-line span")) {
          if (!span.textContent.trim()) continue;
          const color = getComputedStyle(span).color;
          for (const bg of backgrounds) {
            const r = ratio(color, bg.trim().startsWith("#") ? `rgb(${[1, 3, 5].map((i) => parseInt(bg.trim().slice(i, i + 2), 16)).join(",")})` : bg);
            if (r < 4.5) out.push(`${span.textContent.slice(0, 30)} ${color} on ${bg}: ${r.toFixed(2)}`);
          }
        }
        return [...new Set(out)];
      });
      assert.deepEqual(low, []);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test("the keyspace map's keys are reachable by keyboard and by touch", async () => {
    const { page, problems } = await site.open(undefined, { viewport: { width: 1366, height: 900 } });
    await openPlayground(page, site.base + playground);
    const ran = await runInPlayground(
      page,
      `const t = TableClient.fromConnectionString(connectionString, "Mapped");
await t.createTable();
for (const pk of ["a", "b", "c"]) for (let i = 0; i < 4; i++) await t.upsertEntity({ partitionKey: pk, rowKey: "r" + i });
for await (const e of t.listEntities({ queryOptions: { filter: "PartitionKey eq 'b'" } })) {}`,
    );
    assert.equal(ran.state, "done", ran.error);
    const tab = page.locator("#playground [role=tab][aria-controls=pg-map-panel]");
    if ((await tab.count()) > 0) await tab.click();
    const strip = page.locator("#pg-map .pg-map-strip");
    await strip.focus();
    const readout = page.locator("#pg-map .pg-map-readout");
    await page.keyboard.press("Home");
    assert.match(await readout.textContent(), /a \/ r0/);
    await page.keyboard.press("ArrowRight");
    assert.match(await readout.textContent(), /a \/ r1/);
    await page.keyboard.press("End");
    assert.match(await readout.textContent(), /c \/ r3/);
    // A returned entity says so.
    for (let i = 0; i < 5; i++) await page.keyboard.press("ArrowLeft");
    assert.match(await readout.textContent(), /b \/ r2.*returned/);
    await page.locator("#pg-map-panel").screenshot({ path: join(outDir, "map-keyboard.png") });
    // A tap on the strip names the key under the finger.
    const box = await strip.boundingBox();
    await page.mouse.click(box.x + box.width * 0.05, box.y + box.height / 2);
    assert.match(await readout.textContent(), /a \/ r0/);
    assert.deepEqual(problems, []);
    await page.close();
  });
}
