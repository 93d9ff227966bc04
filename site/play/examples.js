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
//
// A block that also declares what the code answers under Cosmos DB for
// Table (pre.run-expected-cosmos, data-cosmos-plans) gets a switch,
// "Table storage | Cosmos DB for Table": button.run-target-option with
// data-target "table" or "cosmos" and aria-pressed. Choosing the other
// side runs the same code again, against a store named "cosmos:…" (the
// engine's Cosmos DB for Table profile), and holds it to that side's
// output and plans; the figure's data-target says which side ran last.

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
  const cosmosNode = figure.querySelector("pre.run-expected-cosmos");
  const planList = (s) => (s ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  // Each side the example runs on: its store, and what it must answer.
  const sides = {
    table: { store: `example-${figure.id || "anon"}`, expected: expectedNode ? expectedNode.textContent : null, declared: planList(figure.dataset.plans), name: "" },
  };
  if (cosmosNode) {
    sides.cosmos = { store: `cosmos:example-${figure.id || "anon"}`, expected: cosmosNode.textContent, declared: planList(figure.dataset.cosmosPlans), name: " (Cosmos DB for Table)" };
  }
  let side = "table";
  figure.dataset.target = side;
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
  const targetButtons = [];
  if (sides.cosmos) {
    const group = el("div", "run-target");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Run against");
    for (const [target, label, title] of [
      ["table", "Table storage", "Run against Azure Table storage, as tablelab answers it"],
      ["cosmos", "Cosmos DB for Table", "Run the same code against tablelab's model of Azure Cosmos DB for Table: results not in key order, every property indexed, tighter limits"],
    ]) {
      const b = el("button", "run-target-option", label);
      b.type = "button";
      b.title = title;
      b.dataset.target = target;
      b.setAttribute("aria-pressed", String(target === side));
      b.addEventListener("click", () => choose(target));
      targetButtons.push(b);
      group.append(b);
    }
    bar.append(group);
  }

  const editorBox = el("div", "run-editor");
  figure.insertBefore(editorBox, code ?? output);
  figure.insertBefore(bar, output);
  if (code) code.hidden = true;
  let runs = 0;
  const editor = createEditor(editorBox, source, () => start(), `Example ${figure.id || ""} code`.trim());

  // choose switches the side the example runs on, and runs it there.
  function choose(target) {
    if (target === side || !sides[target]) return;
    if (figure.dataset.state === "running") {
      // The run under way is the other side's: its result is dropped.
      runs++;
      runHost.peek()?.stop();
      figure.dataset.state = "stopped";
    }
    side = target;
    figure.dataset.target = side;
    for (const b of targetButtons) b.setAttribute("aria-pressed", String(b.dataset.target === side));
    start();
  }

  async function start() {
    if (figure.dataset.state === "running") return;
    const mine = ++runs;
    const { store, expected, declared, name } = sides[side];
    figure.dataset.state = "running";
    delete figure.dataset.matches;
    runButton.disabled = true;
    stopButton.hidden = false;
    const printed = el("pre", "run-printed");
    output.replaceChildren(printed, el("p", "run-status", "Running…"));
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
    show(result, printed, heat.summary(), expected, declared, name);
  }

  function show(result, printed, heatSummary, expected, declared, name) {
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
      parts.push(el("p", `run-check ${same ? "run-check-ok" : "run-check-differs"}`, (same ? "✓ Matches the expected output" + (declared.length ? " and plans" : "") : "≠ Differs from the expected output" + (declared.length ? " or plans" : "")) + name));
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
