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
// On that side the plans and scorecards also show request units, as
// cost.js models them (labelled a model).
//
// Every exercise (figure.exercise, an ```js exercise block with its
// solution and check) gets an editor holding the starting design, Check,
// Stop, Reset and Open in playground; the solution's <details> gets "Use
// this solution", which puts the model answer in the editor. Check runs
// the design with the check's access patterns (grader.js) on a store of
// its own and shows the verdict: section.verdict with data-verdict
// ("pass"/"fail"), data-passed and data-total, one li.verdict-pattern a
// pattern with data-name and data-ok (and, once it ran, data-plan,
// data-reads, data-examined, data-returned, data-requests and
// data-written), its measure and, when it fails, why in the reader's
// terms. Tests read the figure's data-state (as above), data-verdict and
// data-design ("solution" once Use this solution put the model answer in
// the editor, "start" after Reset). A pass is remembered in the browser (progress.js).

import { EngineClient } from "./engine.js";
import { RunHost } from "./run-host.js";
import { el, errorText, renderError, renderHeat, renderPlans, renderScorecards } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";
import { shareHash } from "./share.js";
import { requestUnits, ruText } from "./cost.js";
import { checkProgram, grade, parseCheck, summary } from "./grader.js";
import { markPassed } from "../static/progress.js";

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

  const { bar, main: runButton, stopButton, resetButton, openLink, hint } = toolbar({
    main: ["run-button", "Run", "Run (Ctrl/⌘+Enter in the code)"],
    reset: "Put back the example's code and clear its output",
    open: "Open this code in the playground, with its panels",
    hint: "Click the code to edit it",
  });
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

  const ed = lazyEditor({ figure, code, before: code ?? bar, source, label, hint, onRun: () => start() });
  const codeNow = ed.code;

  const linked = linkPlayground(openLink, source, ed);

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
    ed.editor?.clearMarks();
    const printed = el("pre", "run-printed");
    output.replaceChildren(printed, el("p", "run-status", "Running…"));
    let result;
    const heat = new Heat();
    // On the Cosmos DB side, the writes' request units as the model has
    // them, added up as the requests come (the plan list shows the reads').
    const units = { writes: 0 };
    try {
      const h = runHost();
      // Each run starts from an empty store, as the block's declared
      // output assumes.
      await h.engine.op(store, "reset");
      result = await h.run(codeNow(), store, {
        onPrint: (line) => {
          printed.textContent += (printed.textContent ? "\n" : "") + line;
        },
        onRequest: (entry) => {
          heat.add(entry);
          if (side === "cosmos" && !entry.plan) units.writes += requestUnits(entry);
        },
      });
    } catch (err) {
      result = { output: printed.textContent, queries: [], plans: [], error: { name: "Error", message: err.message } };
    }
    if (mine !== runs) return;
    show(result, printed, heat.summary(), expected, declared, name, units);
  }

  function show(result, printed, heatSummary, expected, declared, name, units) {
    const ru = side === "cosmos";
    runButton.disabled = false;
    stopButton.hidden = true;
    printed.textContent = result.output;
    const parts = [printed];
    const error = result.error;
    if (error?.name === "Stopped") parts.push(el("p", "run-status", "Stopped before it finished."));
    else if (error) {
      parts.push(renderError(error));
      if (error.line) ed.edit({ focus: false }).then((e) => e.markError({ line: error.line, column: error.column, message: errorText(error) }));
    }
    if (result.scorecards?.length) parts.push(renderScorecards(result.scorecards, { ru }));
    if (result.queries.length) parts.push(renderPlans(result.queries, { ru }));
    if (ru) parts.push(unitsNote(result.queries, units.writes));
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
    ed.editor?.setCode(source);
    ed.editor?.clearMarks();
    output.replaceChildren();
    runButton.disabled = false;
    stopButton.hidden = true;
    figure.dataset.state = "ready";
    delete figure.dataset.matches;
  });
  linked.finally(() => {
    figure.dataset.state ??= "ready";
  });
}

// toolbar makes a figure's row of controls: the main button (its class,
// text and title), Stop (hidden until a run), Reset, Open in playground
// and a hint, with the titles given.
function toolbar({ main, reset, open, hint }) {
  const button = (cls, text, title) => {
    const b = el("button", cls, text);
    b.type = "button";
    if (title) b.title = title;
    return b;
  };
  const out = {
    bar: el("div", "run-toolbar"),
    main: button(...main),
    stopButton: button("run-stop", "Stop"),
    resetButton: button("run-reset", "Reset", reset),
    openLink: el("a", "run-open", "Open in playground"),
    hint: el("span", "run-hint", hint),
  };
  out.stopButton.hidden = true;
  out.openLink.title = open;
  out.bar.append(out.main, out.stopButton, out.resetButton, out.openLink, out.hint);
  return out;
}

// lazyEditor manages a figure's editor, which loads only when the reader
// goes to edit (a click or a tap on the code, Enter on it): until then
// the code is source and the highlighted block (code) shows it. before
// is where the editor goes; hint's text changes once it is there. It
// returns {editor (null until loaded), code(), edit({focus})}.
function lazyEditor({ figure, code, before, source, label, hint, onRun, editingHint = "Ctrl/⌘+Enter runs" }) {
  const api = { editor: null, code: () => api.editor?.code() ?? source, edit };
  let editing = null;
  function edit({ focus = true } = {}) {
    editing ??= import("./editor.js").then(({ createEditor }) => {
      const box = el("div", "run-editor");
      figure.insertBefore(box, before);
      api.editor = createEditor(box, source, onRun, label);
      if (code) code.hidden = true;
      hint.textContent = editingHint;
      figure.dataset.editing = "";
      return api.editor;
    });
    return editing.then((e) => {
      if (focus) e.view.focus();
      return e;
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
        onRun();
      }
    });
  }
  return api;
}

// linkPlayground points link at the playground with the code in its
// fragment, brought up to date with the editor's code when followed; it
// resolves once the first link is made.
function linkPlayground(link, source, ed) {
  const playground = new URL("../playground.html", here);
  const linkTo = async (text) => {
    playground.hash = await shareHash(text);
    link.href = playground.href;
  };
  for (const event of ["pointerdown", "focus"]) {
    link.addEventListener(event, () => {
      if (ed.editor && ed.editor.code() !== source) linkTo(ed.editor.code());
    });
  }
  return linkTo(source);
}

// unitsNote sums the request units of a run on the Cosmos DB side, reads
// and writes, and says they are tablelab's model.
function unitsNote(queries, writes) {
  const reads = queries.reduce((sum, q) => sum + (q.ru ?? 0), 0);
  const p = el("p", "run-units", `Request units, as tablelab models them: reads ${ruText(reads)}, writes ${ruText(writes)}. `);
  const link = el("a", "", "How the model counts");
  link.href = new URL("../concepts/cosmos-db.html#request-units", here).href;
  p.append(link, ".");
  return p;
}

function sameList(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// enhanceExercise makes an exercise figure live (see the top of the file).
function enhanceExercise(figure, runHost) {
  const source = figure.querySelector("textarea.exercise-source")?.value ?? "";
  const solution = figure.querySelector("textarea.exercise-solution-source")?.value ?? "";
  let spec;
  try {
    spec = parseCheck(figure.querySelector("pre.exercise-check")?.textContent ?? "");
  } catch (err) {
    figure.append(el("p", "run-error", `This exercise cannot be checked: ${err.message}`));
    return;
  }
  const store = `exercise-${figure.id || "anon"}`;
  const code = figure.querySelector(".run-code");
  const output = figure.querySelector(".exercise-output") ?? figure.appendChild(el("div", "exercise-output"));
  const label = `Exercise ${figure.id || ""} design`.trim();

  const { bar, main: checkButton, stopButton, resetButton, openLink, hint } = toolbar({
    main: ["run-button exercise-check-button", "Check", "Run the access patterns against your design (Ctrl/⌘+Enter in the code)"],
    reset: "Put back the starting design and clear the verdict",
    open: "Open this design in the playground, with its panels",
    hint: "Click the design to edit it",
  });
  figure.insertBefore(bar, output);

  const ed = lazyEditor({ figure, code, before: code ?? bar, source, label, hint, onRun: () => check(), editingHint: "Ctrl/⌘+Enter checks" });
  const linked = linkPlayground(openLink, source, ed);

  // The solution's <details> offers to put the model answer in the editor.
  const details = figure.querySelector("details.exercise-solution");
  if (details) {
    const use = el("button", "exercise-use-solution", "Use this solution");
    use.type = "button";
    use.title = "Put the model answer in the editor, to check it or change it";
    use.addEventListener("click", async () => {
      const e = await ed.edit({ focus: false });
      e.setCode(solution);
      e.clearMarks();
      figure.dataset.design = "solution";
      e.view.focus();
      figure.scrollIntoView?.({ block: "nearest" });
    });
    const tools = el("div", "run-toolbar exercise-solution-tools");
    tools.append(use);
    details.append(tools);
  }

  let runs = 0;
  async function check() {
    if (figure.dataset.state === "running") return;
    const mine = ++runs;
    figure.dataset.state = "running";
    delete figure.dataset.verdict;
    checkButton.disabled = true;
    stopButton.hidden = false;
    ed.editor?.clearMarks();
    output.replaceChildren(el("p", "run-status", "Checking…"));
    const design = ed.code();
    let result;
    try {
      const h = runHost();
      // Every Check starts from an empty store: the design loads its data.
      await h.engine.op(store, "reset");
      result = await h.run(checkProgram(design, spec), store);
    } catch (err) {
      result = { output: "", queries: [], plans: [], scorecards: [], error: { name: "Error", message: err.message } };
    }
    if (mine !== runs) return;
    checkButton.disabled = false;
    stopButton.hidden = true;
    const error = result.error;
    if (error?.name === "Stopped") {
      output.replaceChildren(el("p", "run-status", "Stopped before the check finished."));
      figure.dataset.state = "stopped";
      return;
    }
    const verdict = grade(result, spec);
    const parts = [renderVerdict(verdict)];
    // An error in the design is marked at its line; one past the design's
    // last line is the check's own (a function the design lacks).
    const lines = design.split("\n").length;
    if (error && (!verdict.patterns.some((p) => p.row) || error.line)) {
      parts.push(renderError(error.line > lines ? { ...error, line: undefined, column: undefined } : error));
      if (error.line && error.line <= lines) ed.edit({ focus: false }).then((e) => e.markError({ line: error.line, column: error.column, message: errorText(error) }));
    }
    const more = el("details", "exercise-measures");
    more.append(el("summary", "", "What the check measured"));
    if (result.output) more.append(el("pre", "run-printed", result.output));
    if (result.scorecards?.length) more.append(renderScorecards(result.scorecards));
    parts.push(more);
    output.replaceChildren(...parts);
    figure.dataset.verdict = verdict.ok ? "pass" : "fail";
    figure.dataset.state = error ? "error" : "done";
    if (verdict.ok) markPassed(figure.id);
  }

  checkButton.addEventListener("click", check);
  stopButton.addEventListener("click", () => runHost.peek()?.stop());
  resetButton.addEventListener("click", () => {
    if (figure.dataset.state === "running") runHost.peek()?.stop();
    runs++;
    ed.editor?.setCode(source);
    ed.editor?.clearMarks();
    figure.dataset.design = "start";
    output.replaceChildren();
    checkButton.disabled = false;
    stopButton.hidden = true;
    figure.dataset.state = "ready";
    delete figure.dataset.verdict;
  });
  const warm = () => runHost().warm();
  figure.addEventListener("pointerenter", warm, { once: true });
  figure.addEventListener("focusin", warm, { once: true });
  linked.finally(() => {
    figure.dataset.state ??= "ready";
  });
}

// renderVerdict shows a grade: a line for the whole, then each access
// pattern with its measure and, when it fails, what went wrong.
function renderVerdict(v) {
  const section = el("section", `verdict ${v.ok ? "verdict-pass" : "verdict-fail"}`);
  section.setAttribute("aria-label", "Verdict");
  Object.assign(section.dataset, { verdict: v.ok ? "pass" : "fail", passed: String(v.passed), total: String(v.total) });
  const head = v.ok
    ? `✓ All ${v.total} access patterns pass.`
    : `✗ ${v.passed} of ${v.total} access patterns pass.`;
  section.append(el("p", "verdict-head", head));
  const list = el("ol", "verdict-list");
  for (const p of v.patterns) {
    const item = el("li", `verdict-pattern ${p.ok ? "verdict-ok" : "verdict-bad"}`);
    Object.assign(item.dataset, { name: p.name, ok: String(p.ok) });
    if (p.row) {
      const r = p.row;
      Object.assign(item.dataset, { plan: r.plan, reads: String(r.reads), examined: String(r.examined), returned: String(r.returned), requests: String(r.requests), written: String((r.written ?? 0) + (r.deleted ?? 0)) });
    }
    const line = el("p", "verdict-line");
    line.append(el("span", "verdict-mark", p.ok ? "✓ pass" : "✗ fail"), " ", el("strong", "", p.name));
    if (p.row) line.append(el("span", "verdict-measure", ` · ${summary(p.row)}`));
    item.append(line);
    if (p.problems.length) {
      const problems = el("ul", "verdict-problems");
      for (const text of p.problems) problems.append(el("li", "", `It ${text}.`));
      item.append(problems);
      if (p.hint) item.append(el("p", "verdict-hint", p.hint));
    }
    list.append(item);
  }
  section.append(list);
  return section;
}

addStyles();
const runHost = lazyHost();
for (const figure of document.querySelectorAll("figure.run-example")) enhance(figure, runHost);
for (const figure of document.querySelectorAll("figure.exercise")) enhanceExercise(figure, runHost);
