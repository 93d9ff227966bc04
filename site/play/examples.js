// Turns every run block of a docs page (figure.run-example, site contract
// 2) into a live example: an editor over its source, Run (Ctrl/Cmd+Enter),
// Stop, Reset, the printed output and the plan of each query. Without
// JavaScript the page keeps the highlighted code.
//
// What tests can read, per figure: data-state ("ready", "running",
// "done", "error", "stopped"); .run-printed (exactly what the code
// printed); .run-error (the error, when it threw); li.run-plan with
// data-plan, data-examined, data-returned; data-matches ("true"/"false")
// when the block declares its output.

import { EngineClient } from "./engine.js";
import { RunHost } from "./run-host.js";
import { createEditor } from "./editor.js";
import { el, errorText, renderHeat, renderPlans, renderScorecards } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";

const here = new URL(".", import.meta.url);

// lazyHost makes the page's one RunHost when first asked: a page that is
// only read downloads no wasm. peek returns it without making it.
function lazyHost() {
  let host = null;
  const get = () => {
    host ??= new RunHost(new EngineClient(new URL("../engine/worker.js", here)), new URL("run-worker.js", here));
    return host;
  };
  get.peek = () => host;
  return get;
}

function addStyles() {
  if (document.querySelector("link[data-play-css]")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("play.css", here).href;
  link.dataset.playCss = "";
  document.head.append(link);
}

function enhance(figure, runHost) {
  const source = figure.querySelector("textarea.run-source")?.value ?? "";
  const expectedNode = figure.querySelector("pre.run-expected");
  const expected = expectedNode ? expectedNode.textContent : null;
  const declared = (figure.dataset.plans ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  const output = figure.querySelector(".run-output") ?? figure.appendChild(el("div", "run-output"));
  const code = figure.querySelector(".run-code");

  const bar = el("div", "run-toolbar");
  const runButton = el("button", "run-button", "Run");
  runButton.type = "button";
  runButton.title = "Run (Ctrl+Enter)";
  const stopButton = el("button", "run-stop", "Stop");
  stopButton.type = "button";
  stopButton.hidden = true;
  const resetButton = el("button", "run-reset", "Reset");
  resetButton.type = "button";
  resetButton.title = "Put back the example's code and clear its output";
  const hint = el("span", "run-hint", "Ctrl/⌘+Enter runs");
  bar.append(runButton, stopButton, resetButton, hint);

  const editorBox = el("div", "run-editor");
  figure.insertBefore(editorBox, code ?? output);
  figure.insertBefore(bar, output);
  if (code) code.hidden = true;
  let runs = 0;
  const editor = createEditor(editorBox, source, () => start(), `Example ${figure.id || ""} code`.trim());

  async function start() {
    if (figure.dataset.state === "running") return;
    const mine = ++runs;
    figure.dataset.state = "running";
    delete figure.dataset.matches;
    runButton.disabled = true;
    stopButton.hidden = false;
    const printed = el("pre", "run-printed");
    output.replaceChildren(printed, el("p", "run-status", "Running…"));
    const store = `example-${figure.id || "anon"}`;
    let result;
    const heat = new Heat();
    try {
      const h = runHost();
      // Each run starts from an empty store, as the block's declared
      // output assumes.
      await h.engine.op(store, "reset");
      result = await h.run(editor.code(), store, {
        onPrint: (line) => {
          printed.textContent += (printed.textContent ? "\n" : "") + line;
        },
        onRequest: (entry) => heat.add(entry),
      });
    } catch (err) {
      result = { output: printed.textContent, queries: [], plans: [], error: { name: "Error", message: err.message } };
    }
    if (mine !== runs) return;
    show(result, printed, heat.summary());
  }

  function show(result, printed, heatSummary) {
    runButton.disabled = false;
    stopButton.hidden = true;
    printed.textContent = result.output;
    const parts = [printed];
    if (result.error) parts.push(el("p", "run-error", errorText(result.error)));
    if (result.scorecards?.length) parts.push(renderScorecards(result.scorecards));
    if (result.queries.length) parts.push(renderPlans(result.queries));
    // The heat panel shows where the block asks for it (`js run heat`),
    // and wherever a partition went over its target.
    if (figure.dataset.heat !== undefined || heatSummary.over > 0) parts.push(renderHeat(heatSummary, PARTITION_TARGET));
    // A stopped run is not held to the expected output: it did not finish.
    if (expected !== null && result.error?.name !== "Stopped") {
      const same = result.output.trimEnd() === expected.trimEnd() && (declared.length === 0 || sameList(result.plans, declared));
      figure.dataset.matches = String(same);
      parts.push(el("p", `run-check ${same ? "run-check-ok" : "run-check-differs"}`, same ? "✓ Matches the expected output" + (declared.length ? " and plans" : "") : "≠ Differs from the expected output" + (declared.length ? " or plans" : "")));
    }
    output.replaceChildren(...parts);
    figure.dataset.state = result.error ? (result.error.name === "Stopped" ? "stopped" : "error") : "done";
  }

  // A reader who points at or tabs into an example will likely run it:
  // load the engine then, not on every page view.
  const warm = () => runHost().warm();
  figure.addEventListener("pointerenter", warm, { once: true });
  figure.addEventListener("focusin", warm, { once: true });
  runButton.addEventListener("click", start);
  stopButton.addEventListener("click", () => runHost.peek()?.stop());
  resetButton.addEventListener("click", () => {
    if (figure.dataset.state === "running") runHost.peek()?.stop();
    runs++;
    editor.setCode(source);
    output.replaceChildren();
    runButton.disabled = false;
    stopButton.hidden = true;
    figure.dataset.state = "ready";
    delete figure.dataset.matches;
  });
  figure.dataset.state = "ready";
}

function sameList(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

addStyles();
const runHost = lazyHost();
for (const figure of document.querySelectorAll("figure.run-example")) enhance(figure, runHost);
