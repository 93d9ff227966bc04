// The exercises in Chromium, against `go run . -memory -site-addr …`: on
// every page that sets one (build/site's ExercisePages, and any other),
// Check on the starting design fails, saying which access pattern fails
// and why, and Check on the model answer (Show a solution, Use this
// solution, as a reader does) passes every pattern. What each verdict
// measured is recorded in out/browser-exercises.json for grader.test.mjs,
// which grades the same designs in Node. Then the reader's progress: a
// pass marks its page in the navigation and counts on Start here, and the
// pages of the reading order link to the ones before and after them.
// Screenshots of an exercise failing, then passing, at desktop and phone
// width, light and dark: out/exercise-*.png.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { missingBrowser } from "./chromium.mjs";
import { startSite } from "./browse.mjs";
import { htmlPages, siteExercises } from "./examples.mjs";
import { outDir, writeRecord } from "./record.mjs";
import { distDir, requireDist } from "./server.mjs";
import { checkExercise } from "./ui.mjs";

const missing = missingBrowser();
if (missing) {
  test("the exercises in Chromium", (t) => {
    if (process.env.CI === "true") assert.fail(missing);
    t.skip(missing);
  });
} else {
  exercisesInChromium();
}

function exercisesInChromium() {
  requireDist();
  const exercises = siteExercises(distDir);
  let site;

  before(async () => {
    site = await startSite();
  });
  after(async () => {
    await site?.close();
  });

  test("every exercise: the starting design fails Check, the solution passes", async (t) => {
    assert.ok(exercises.length > 0, "the built site sets no exercise");
    const record = {};
    const byPage = new Map();
    for (const ex of exercises) byPage.set(ex.page, [...(byPage.get(ex.page) ?? []), ex]);
    for (const [path, list] of byPage) {
      const { page, problems } = await site.open(path);
      for (const ex of list) {
        const key = `${path}#${ex.id}`;
        const start = await checkExercise(page, ex.id);
        assert.equal(start.verdict, "fail", `${key}: the starting design passes Check`);
        assert.ok(start.passed < start.total, `${key}: ${start.passed} of ${start.total} pass, yet the verdict is fail`);
        const failing = start.patterns.filter((p) => !p.ok);
        assert.ok(failing.length > 0, `${key}: no pattern is marked failing`);
        for (const p of failing) assert.ok(p.problems.length > 0, `${key}: "${p.name}" fails without saying why`);
        const model = await checkExercise(page, ex.id, { solution: true });
        assert.equal(model.verdict, "pass", `${key}: the solution fails: ${JSON.stringify(model.patterns.filter((p) => !p.ok))} ${model.error}`);
        assert.equal(model.passed, model.total, `${key}: every pattern passes`);
        assert.equal(model.error, "", `${key}: the solution ended with an error`);
        record[key] = { source: ex.source, solution: ex.solution, check: ex.check, start: start.patterns, model: model.patterns };
      }
      assert.deepEqual(problems, [], `${path}: problems`);
      await page.close();
    }
    writeRecord("browser-exercises.json", { exercises: record });
    t.diagnostic(`${exercises.length} exercises on ${byPage.size} pages, each failing as given and passing as solved`);
  });

  test("an exercise failing, then passing, at desktop and phone width, light and dark (screenshots)", async () => {
    const ex = exercises.find((e) => e.page === "patterns/index-entities.html") ?? exercises[0];
    for (const [name, viewport, colorScheme] of [
      ["desktop", { width: 1280, height: 900 }, "light"],
      ["phone", { width: 390, height: 844 }, "light"],
      ["dark", { width: 1280, height: 900 }, "dark"],
    ]) {
      const { page, problems } = await site.open(ex.page, { viewport, colorScheme });
      const figure = page.locator(`figure[id="${ex.id}"]`);
      const start = await checkExercise(page, ex.id);
      assert.equal(start.verdict, "fail");
      // The verdict says which pattern fails, in words as well as colour.
      const marks = await figure.locator(".verdict-bad .verdict-mark").allTextContents();
      assert.ok(marks.length > 0 && marks.every((m) => /fail/.test(m)), `marks: ${marks}`);
      await figure.screenshot({ path: join(outDir, `exercise-fail-${name}.png`) });
      const model = await checkExercise(page, ex.id, { solution: true });
      assert.equal(model.verdict, "pass");
      await figure.locator("section.verdict").scrollIntoViewIfNeeded();
      await figure.screenshot({ path: join(outDir, `exercise-pass-${name}.png`) });
      if (name === "phone") {
        // Nothing of the exercise is wider than a phone's screen.
        const wide = await figure.evaluate((f) => {
          const out = [];
          for (const n of f.querySelectorAll(".exercise-task, .run-toolbar, .verdict, .exercise-asks, .run-editor")) {
            if (n.getBoundingClientRect().right > window.innerWidth + 1) out.push(n.className);
          }
          return out;
        });
        assert.deepEqual(wide, [], "parts wider than the phone's screen");
      }
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test("progress: a passed exercise marks its page in the navigation and on Start here; the reading order links each page to the next", async () => {
    const start = htmlPages(distDir).find((p) => p === "start-here.html");
    assert.ok(start, "the site has no start-here.html");
    const { page, problems } = await site.open(start);
    // The tests above passed exercises in this browser: start afresh.
    await page.evaluate(() => localStorage.removeItem("tablelab-progress"));
    await page.reload({ waitUntil: "load" });
    const steps = await page.locator(".path-list li[data-page]").evaluateAll((lis) => lis.map((li) => li.dataset.page));
    assert.ok(steps.length >= 20, `the reading order lists ${steps.length} pages`);
    // A page of the order: previous and next, in the order's sequence.
    const i = steps.indexOf("patterns/index-entities.html");
    assert.ok(i > 0 && i < steps.length - 1, "index entities stands inside the order");
    await page.goto(site.base + steps[i], { waitUntil: "load" });
    const prev = await page.locator(".pager a[rel=prev]").getAttribute("href");
    const next = await page.locator(".pager a[rel=next]").getAttribute("href");
    assert.equal(new URL(prev, page.url()).href, site.base + steps[i - 1]);
    assert.equal(new URL(next, page.url()).href, site.base + steps[i + 1]);
    assert.match(await page.locator(".pager-step").textContent(), new RegExp(`Step ${i + 1} of ${steps.length}`));
    // Its exercises, passed, mark it done in the navigation.
    const here = page.locator('.site-nav a[data-page="patterns/index-entities.html"]');
    assert.equal(await here.getAttribute("data-progress"), "visited");
    const ex = exercises.filter((e) => e.page === steps[i]);
    for (const e of ex) assert.equal((await checkExercise(page, e.id, { solution: true })).verdict, "pass");
    assert.equal(await here.getAttribute("data-progress"), "done");
    assert.match(await here.textContent(), /exercises? passed/);
    // Start here counts what this browser has done, after a reload too.
    await page.goto(site.base + start, { waitUntil: "load" });
    const item = page.locator('.path-list li[data-page="patterns/index-entities.html"]');
    assert.equal(await item.getAttribute("data-progress"), "done");
    assert.match(await page.locator(".path-progress").textContent(), /passed the exercises of [1-9]\d* of the \d+ that set them/);
    await item.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(outDir, "start-here.png") });
    assert.deepEqual(problems, []);
    await page.close();
  });
}
