// Driving the site's pages as a reader does, through what they expose to
// tests (site/play/examples.js and playground.js document it): a figure's
// data-state, .run-printed and li.run-plan[data-plan]; the playground's
// #playground[data-state], #pg-output, #pg-error, #pg-plans and
// #pg-share-link.
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";
import { htmlPages } from "./examples.mjs";

/**
 * How long one program may run before a test gives up on it: the
 * 100,000-entity load takes 70–90 s on two shared cores.
 */
const runLimitMs = 300000;

/**
 * Clicks Run on the example figure#id of page and waits until it has
 * finished: {state, output, plans, error, matches}. output is exactly what
 * the code printed; plans the plan labels the figure shows.
 */
export async function runFigure(page, id) {
  const figure = page.locator(`figure[id="${id}"]`);
  const button = figure.locator("button.run-button");
  await button.waitFor({ state: "visible" });
  await page.waitForFunction((id) => document.getElementById(id)?.dataset.state === "ready", id);
  // The editor draws the lines that scroll into view and grows as it does:
  // a click whose press and release straddle that lands beside the
  // button. Wait for the figure to hold still first, and press again if
  // the run did not start.
  await button.scrollIntoViewIfNeeded();
  for (let attempt = 1; ; attempt++) {
    await page.waitForFunction(
      (id) =>
        new Promise((resolve) => {
          const f = document.getElementById(id);
          let last = "";
          let same = 0;
          const tick = () => {
            const r = f.getBoundingClientRect();
            const now = `${r.top},${r.height}`;
            same = now === last ? same + 1 : 0;
            last = now;
            if (same >= 3) resolve(true);
            else requestAnimationFrame(tick);
          };
          tick();
        }),
      id,
    );
    await button.click();
    const started = await page
      .waitForFunction((id) => document.getElementById(id)?.dataset.state !== "ready", id, { timeout: 5000 })
      .then(() => true, () => false);
    if (started || attempt >= 3) break;
  }
  await page.waitForFunction(
    (id) => !["ready", "running"].includes(document.getElementById(id)?.dataset.state),
    id,
    { timeout: runLimitMs },
  );
  return figure.evaluate((f) => ({
    state: f.dataset.state,
    output: f.querySelector(".run-printed")?.textContent ?? "",
    plans: [...f.querySelectorAll("li.run-plan")].map((li) => li.dataset.plan),
    error: f.querySelector(".run-error")?.textContent ?? "",
    matches: f.dataset.matches,
  }));
}

/**
 * Clicks Check on the exercise figure#id of page, with solution put in
 * its editor first when solution is true (through "Show a solution" and
 * "Use this solution", as a reader does), and waits for the verdict:
 * {state, verdict, passed, total, patterns: [{name, ok, plan, reads,
 * examined, returned, requests, written, problems}], error}.
 */
export async function checkExercise(page, id, { solution = false } = {}) {
  const figure = page.locator(`figure[id="${id}"]`);
  await page.waitForFunction((id) => ["ready", "done", "error", "stopped"].includes(document.getElementById(id)?.dataset.state), id);
  if (solution) {
    const details = figure.locator("details.exercise-solution");
    if (!(await details.evaluate((d) => d.open))) await details.locator("summary").click();
    await details.locator("button.exercise-use-solution").click();
    await page.waitForFunction((id) => document.getElementById(id)?.dataset.design === "solution", id);
  }
  const button = figure.locator("button.exercise-check-button");
  await button.scrollIntoViewIfNeeded();
  await button.click();
  await page.waitForFunction(
    (id) => !["ready", "running"].includes(document.getElementById(id)?.dataset.state) && document.getElementById(id)?.dataset.verdict,
    id,
    { timeout: runLimitMs },
  );
  return figure.evaluate((f) => {
    const v = f.querySelector("section.verdict");
    return {
      state: f.dataset.state,
      verdict: f.dataset.verdict,
      passed: Number(v?.dataset.passed),
      total: Number(v?.dataset.total),
      patterns: [...f.querySelectorAll("li.verdict-pattern")].map((li) => ({
        name: li.dataset.name,
        ok: li.dataset.ok === "true",
        plan: li.dataset.plan ?? "",
        reads: Number(li.dataset.reads ?? 0),
        examined: Number(li.dataset.examined ?? 0),
        returned: Number(li.dataset.returned ?? 0),
        requests: Number(li.dataset.requests ?? 0),
        written: Number(li.dataset.written ?? 0),
        problems: [...li.querySelectorAll(".verdict-problems li")].map((p) => p.textContent),
      })),
      error: f.querySelector(".run-error")?.textContent ?? "",
    };
  });
}

/**
 * Switches the example figure#id of page to target ("table" or "cosmos")
 * with its Table storage | Cosmos DB for Table switch, which runs the
 * code again on that side, and waits until it has finished: what
 * runFigure returns, and target, the side the figure says it ran on.
 */
export async function switchFigure(page, id, target) {
  const figure = page.locator(`figure[id="${id}"]`);
  await page.waitForFunction((id) => !["running"].includes(document.getElementById(id)?.dataset.state), id, { timeout: runLimitMs });
  await figure.locator(`button.run-target-option[data-target="${target}"]`).click();
  await page.waitForFunction(
    ([id, target]) => {
      const f = document.getElementById(id);
      return f?.dataset.target === target && !["ready", "running"].includes(f.dataset.state);
    },
    [id, target],
    { timeout: runLimitMs },
  );
  return figure.evaluate((f) => ({
    state: f.dataset.state,
    target: f.dataset.target,
    pressed: f.querySelector(`button.run-target-option[aria-pressed="true"]`)?.dataset.target,
    output: f.querySelector(".run-printed")?.textContent ?? "",
    plans: [...f.querySelectorAll("li.run-plan")].map((li) => li.dataset.plan),
    error: f.querySelector(".run-error")?.textContent ?? "",
    matches: f.dataset.matches,
  }));
}

/** The page of the built site that holds the playground. */
export function playgroundPage(dist) {
  const found = htmlPages(dist).filter((p) => readFileSync(`${dist}/${p}`, "utf8").includes('id="playground"'));
  if (found.length !== 1) throw new Error(`expected one playground page in dist/, found ${JSON.stringify(found)}`);
  return found[0];
}

/**
 * Opens url (the playground, perhaps with a share fragment) and waits until
 * it is ready. A url that differs from the page's only in its fragment
 * does not load the page again: the playground already there opens it,
 * and may show what it ran last.
 */
export async function openPlayground(page, url) {
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => ["ready", "done", "error", "stopped"].includes(document.getElementById("playground")?.dataset.state));
}

/**
 * Replaces the playground editor's text with code the way a paste does
 * (one insertion: no auto-indent, no closing brackets added).
 */
export async function setPlaygroundCode(page, code) {
  const content = page.locator("#playground .cm-content");
  await content.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(code);
}

/**
 * Runs code in the playground and waits for it to finish: {state, output,
 * plans, error}.
 */
export async function runInPlayground(page, code) {
  if (code !== undefined) await setPlaygroundCode(page, code);
  await page.locator("#pg-run").click();
  await page.waitForFunction(() => !["ready", "running"].includes(document.getElementById("playground").dataset.state), null, {
    timeout: runLimitMs,
  });
  return page.evaluate(() => ({
    state: document.getElementById("playground").dataset.state,
    output: document.getElementById("pg-output").textContent,
    plans: [...document.querySelectorAll("#pg-plans li.run-plan")].map((li) => li.dataset.plan),
    error: document.getElementById("pg-error").hidden ? "" : document.getElementById("pg-error").textContent,
  }));
}

/** Clicks Share and returns the link it made. */
export async function share(page) {
  await page.locator("#pg-share").click();
  const link = page.locator("#pg-share-link");
  await link.waitFor({ state: "visible" });
  return link.inputValue();
}

/**
 * The program a share link carries, decoded here in Node (deflate-raw,
 * base64url: the format share.js writes), independently of the page.
 */
export function sharedProgram(link) {
  const code = new URLSearchParams(new URL(link).hash.slice(1)).get("code");
  if (!code) throw new Error(`no code in ${link}`);
  return inflateRawSync(Buffer.from(code, "base64url")).toString("utf8");
}

/**
 * The whole text of the CodeMirror editor inside the element matching
 * root, read from the editor's state (its DOM draws only the lines near
 * the viewport). CodeMirror keeps its view on the content element's
 * cmTile (6.43; findFromDOM reads it the same way).
 */
export function editorCode(page, root) {
  return page.evaluate((root) => document.querySelector(`${root} .cm-content`).cmTile.root.view.state.doc.toString(), root);
}

/**
 * Opens the editor of the example figure#id (a click on its code, as a
 * reader does) and puts the caret in it.
 */
export async function editFigure(page, id) {
  const figure = page.locator(`figure[id="${id}"]`);
  await page.waitForFunction((id) => document.getElementById(id)?.dataset.state, id);
  if ((await figure.locator(".cm-content").count()) === 0) await figure.locator(".run-code pre").click();
  await figure.locator(".cm-content").click();
}

/**
 * Empties the playground's store, confirming in its dialog, and waits
 * until the page says so.
 */
export async function resetStore(page) {
  await page.locator("#pg-reset").click();
  await page.locator("dialog#pg-confirm[open] button[value=confirm]").click();
  await page.waitForFunction(() => /empty/.test(document.getElementById("pg-status").textContent));
}

/**
 * Turns the playground's Keep changes on or off: on, runs write to the
 * reader's store; off, each works on a copy of it.
 */
export async function setKeep(page, on) {
  const box = page.locator("#pg-keep");
  if ((await box.isChecked()) !== on) await box.click();
}

/** Shows the playground's panel named id (pg-output, pg-wire, pg-heat, …). */
export async function showPanel(page, id) {
  await page.locator(`#${id}-tab`).click();
}

/**
 * Runs a program that prints "before" and never ends, then presses Stop,
 * and waits until the playground says it stopped.
 */
export async function stopEndlessLoop(page) {
  await setPlaygroundCode(page, 'print("before");\nwhile (true) {}');
  await page.locator("#pg-run").click();
  await page.waitForFunction(() => document.getElementById("pg-output").textContent === "before");
  await page.locator("#pg-stop").click();
  await page.waitForFunction(() => document.getElementById("playground").dataset.state === "stopped", null, { timeout: 10000 });
}
