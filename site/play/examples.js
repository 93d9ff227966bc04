// Turns every run block of a docs page (figure.run-example, site contract
// 2) into a live example: Run (Ctrl/Cmd+Enter in the editor), Stop,
// Reset, Open in playground, the printed output and the plan of each
// query. The highlighted code stays as it is until the reader goes to
// edit it (a click, a tap, or Enter on the focused code): only then does
// the editor load, so a page that is only read fetches no editor and no
// engine. Without JavaScript the page keeps the highlighted code.
//
// What tests can read, per figure: data-state ("ready", "running",
// "done", "error", "stopped"); .run-printed (exactly what the code
// printed); .run-error (the error, when it threw); li.run-plan with
// data-plan, data-examined, data-returned; data-matches ("true"/"false")
// when the block declares its output (never "true" for a run that threw);
// a.run-open, whose link opens the code in the playground; data-editing
// once the editor is there.
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
import { el, errorText, renderError, renderHeat, renderPlans, renderScorecards } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";
import { shareHash } from "./share.js";

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
  const label = `Example ${figure.id || ""} code`.trim();

  const bar = el("div", "run-toolbar");
  const runButton = el("button", "run-button", "Run");
  runButton.type = "button";
  runButton.title = "Run (Ctrl/⌘+Enter in the code)";
  const stopButton = el("button", "run-stop", "Stop");
  stopButton.type = "button";
  stopButton.hidden = true;
  const resetButton = el("button", "run-reset", "Reset");
  resetButton.type = "button";
  resetButton.title = "Put back the example's code and clear its output";
  const openLink = el("a", "run-open", "Open in playground");
  openLink.title = "Open this code in the playground, with its panels";
  const hint = el("span", "run-hint", "Click the code to edit it");
  bar.append(runButton, stopButton, resetButton, openLink, hint);
  const targetButtons = [];
  if (sides.cosmos) {
    const group = el("div", "run-target");
    group.setAttribute("role", "group");
    group.setAttribute("aria-label", "Run against");
    for (const [target, text, title] of [
      ["table", "Table storage", "Run against Azure Table storage, as tablelab answers it"],
      ["cosmos", "Cosmos DB for Table", "Run the same code against tablelab's model of Azure Cosmos DB for Table: results not in key order, every property indexed, tighter limits"],
    ]) {
      const b = el("button", "run-target-option", text);
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
  figure.insertBefore(bar, output);

  // The editor, once the reader goes to edit: until then the code is the
  // example's own and the highlighted block shows it.
  let editor = null;
  let editing = null;
  const codeNow = () => editor?.code() ?? source;
  function edit({ focus = true } = {}) {
    editing ??= import("./editor.js").then(({ createEditor }) => {
      const box = el("div", "run-editor");
      figure.insertBefore(box, code ?? bar);
      editor = createEditor(box, source, () => start(), label);
      if (code) code.hidden = true;
      hint.textContent = "Ctrl/⌘+Enter runs";
      figure.dataset.editing = "";
      return editor;
    });
    return editing.then((ed) => {
      if (focus) ed.view.focus();
      return ed;
    });
  }
  if (code) {
    const pre = code.querySelector("pre") ?? code;
    pre.setAttribute("aria-label", `${label}: press Enter to edit`);
    pre.title = "Click to edit";
    code.addEventListener("click", () => edit());
    pre.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.ctrlKey && !e.metaKey) {
        e.preventDefault();
        edit();
      } else if (e.key === "Enter") {
        e.preventDefault();
        start();
      }
    });
  }

  // The playground link carries the code as it is when followed.
  const playground = new URL("../playground.html", here);
  const linkTo = async (text) => {
    playground.hash = await shareHash(text);
    openLink.href = playground.href;
  };
  linkTo(source);
  for (const event of ["pointerdown", "focus"]) {
    openLink.addEventListener(event, () => {
      if (editor && editor.code() !== source) linkTo(editor.code());
    });
  }

  let runs = 0;

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
    editor?.clearMarks();
    const printed = el("pre", "run-printed");
    output.replaceChildren(printed, el("p", "run-status", "Running…"));
    let result;
    const heat = new Heat();
    try {
      ranBefore.set();
      const h = runHost();
      // Each run starts from an empty store, as the block's declared
      // output assumes.
      await h.engine.op(store, "reset");
      result = await h.run(codeNow(), store, {
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
    const error = result.error;
    if (error?.name === "Stopped") parts.push(el("p", "run-status", "Stopped before it finished."));
    else if (error) {
      parts.push(renderError(error));
      if (error.line) edit({ focus: false }).then((ed) => ed.markError({ line: error.line, column: error.column, message: errorText(error) }));
    }
    if (result.scorecards?.length) parts.push(renderScorecards(result.scorecards));
    if (result.queries.length) parts.push(renderPlans(result.queries));
    // The heat panel shows where the block asks for it (`js run heat`),
    // and wherever a partition went over its target.
    if (figure.dataset.heat !== undefined || heatSummary.over > 0) parts.push(renderHeat(heatSummary, PARTITION_TARGET));
    // A stopped run is not held to the expected output: it did not
    // finish. A run that threw never matches, whatever it printed first.
    if (expected !== null && error?.name !== "Stopped") {
      const same = !error && result.output.trimEnd() === expected.trimEnd() && (declared.length === 0 || sameList(result.plans, declared));
      figure.dataset.matches = String(same);
      const what = declared.length ? "output and plans" : "output";
      const text = same ? `✓ Matches the expected ${what}` : error ? `≠ Ended with an error, so it does not match the expected ${what}` : `≠ Differs from the expected ${what}`;
      parts.push(el("p", `run-check ${same ? "run-check-ok" : "run-check-differs"}`, text + name));
    }
    output.replaceChildren(...parts);
    figure.dataset.state = error ? (error.name === "Stopped" ? "stopped" : "error") : "done";
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
    editor?.setCode(source);
    editor?.clearMarks();
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

// ranBefore remembers, for this tab's session, that the reader ran an
// example: one who did will likely run one on the next page too, whose
// engine then starts as the page opens (from the HTTP cache, the first
// page having fetched it) rather than on the first Run.
const ranBefore = {
  key: "tablelab-ran-an-example",
  get() {
    try {
      return sessionStorage.getItem(this.key) === "1";
    } catch {
      return false;
    }
  },
  set() {
    try {
      sessionStorage.setItem(this.key, "1");
    } catch {
      // not remembered: the next page starts its engine on Run
    }
  },
};

addStyles();
const runHost = lazyHost();
const figures = document.querySelectorAll("figure.run-example");
for (const figure of figures) enhance(figure, runHost);
if (figures.length && ranBefore.get()) runHost().warm();
