// One live example: Run (Ctrl/Cmd+Enter in the editor), Stop, Reset, Open
// in playground, the printed output, the plan of each query, and the
// check against a declared output. The site's run blocks (examples.js)
// and the embed's examples on other sites' pages (site/embed) are both
// made by liveExample, so they behave alike.
//
// The code shows as the page gave it until the reader goes to edit it (a
// click, a tap, or Enter on the focused code): only then does the editor
// load, so an example that is only read fetches no editor and no engine.
//
// What tests can read, on the example's host element: data-state
// ("ready", "running", "done", "error", "stopped"); data-matches
// ("true"/"false") when the example declares its output (never "true" for
// a run that threw); data-editing once the editor is there; data-target,
// the side it ran on last. Inside it: .run-printed (exactly what the code
// printed); .run-error (the error, when it threw); li.run-plan with
// data-plan, data-examined and data-returned; a.run-open, whose link opens
// the code in the playground; .pg-map, the keyspace map, when asked for
// (with data-walked-from, data-walked-to and data-returned).
//
// An example that also declares what the code answers under Cosmos DB for
// Table gets a switch, "Table storage | Cosmos DB for Table":
// button.run-target-option with data-target "table" or "cosmos" and
// aria-pressed. Choosing the other side runs the same code again against
// that side's store (a "cosmos:…" store is the engine's Cosmos DB for
// Table profile) and holds it to that side's output and plans. On that
// side the plans and scorecards also show request units as cost.js
// models them (li.run-plan's data-ru), and p.run-units adds them up,
// labelled as a model.

import { crossOrigin } from "./workers.js";
import { el, errorText, renderError, renderHeat, renderPlans, renderScorecards } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";
import { shareHash } from "./share.js";
import { requestUnits, ruText } from "./cost.js";

const here = new URL(".", import.meta.url);

/**
 * lazyRunHost returns a function that makes the page's one RunHost when
 * first called, so that a page that is only read downloads no wasm; its
 * peek returns the host without making it. Every example of the page
 * shares the host, and so the engine worker and its stores.
 */
export function lazyRunHost() {
  let host = null;
  let made = null;
  const get = () => {
    made ??= Promise.all([import("./engine.js"), import("./run-host.js")]).then(([{ EngineClient }, { RunHost }]) => {
      host = new RunHost(new EngineClient(new URL("../engine/worker.js", here)), new URL("run-worker.js", here));
      return host;
    });
    return made;
  };
  get.peek = () => host;
  return get;
}

/**
 * planList reads a list of plans as run blocks declare them
 * ("range, point").
 */
export function planList(s) {
  return (s ?? "").split(",").map((p) => p.trim()).filter(Boolean);
}

/**
 * liveExample makes one example live. parts says where it lives:
 *
 *   host      the element whose data-* attributes carry its state
 *   box       where the toolbar and the editor go: the toolbar before
 *             output, the editor before code
 *   output    the element, in box, that shows what a run printed
 *   code      the element showing the code until the reader edits it
 *             (hidden then; a click on it opens the editor), or null
 *   focus     the element of code that takes the keyboard (Enter edits,
 *             Ctrl/Cmd+Enter runs), or null
 *   source    the example's code
 *   label     the editor's accessible name
 *   sides     {table: {store, expected, declared, name}, cosmos?: …}:
 *             each side's store, the output it must print (null: none
 *             declared), its plans, and the words its check adds
 *   fresh     each run starts from an empty store, as a declared output
 *             assumes; false keeps what earlier runs wrote (a store the
 *             examples of a page share)
 *   heat      always show the partition heat panel
 *   map       show the keyspace map of the last query
 *   onRun     called as each run starts
 *
 * runHost is lazyRunHost's function, shared by the page's examples.
 */
export function liveExample(parts, runHost) {
  const { host, box, output, code, focus, source, label, sides, fresh = true, heat = false, map = false, onRun } = parts;
  let side = "table";
  host.dataset.target = side;

  const bar = el("div", "run-toolbar");
  const runButton = el("button", "run-button", "Run");
  runButton.type = "button";
  runButton.title = "Run (Ctrl/⌘+Enter in the code)";
  const stopButton = el("button", "run-stop", "Stop");
  stopButton.type = "button";
  stopButton.hidden = true;
  const resetButton = el("button", "run-reset", "Reset");
  resetButton.type = "button";
  resetButton.title = fresh ? "Put back the example's code and clear its output" : "Put back the example's code and clear its output (the shared store keeps its data)";
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
  box.insertBefore(bar, output);

  // The editor, once the reader goes to edit: until then the code is the
  // example's own and the page's block shows it.
  const ed = editorOnDemand({ host, box, code, focus, before: code ?? bar, source, label, hint, onRun: () => start() });
  const codeNow = ed.code;
  const edit = ed.edit;
  linkPlayground(openLink, source, ed);

  let runs = 0;

  // choose switches the side the example runs on, and runs it there.
  function choose(target) {
    if (target === side || !sides[target]) return;
    if (host.dataset.state === "running") {
      // The run under way is the other side's: its result is dropped.
      runs++;
      runHost.peek()?.stop();
      host.dataset.state = "stopped";
    }
    side = target;
    host.dataset.target = side;
    for (const b of targetButtons) b.setAttribute("aria-pressed", String(b.dataset.target === side));
    start();
  }

  async function start() {
    if (host.dataset.state === "running") return;
    const mine = ++runs;
    const { store, expected, declared, name } = sides[side];
    host.dataset.state = "running";
    delete host.dataset.matches;
    runButton.disabled = true;
    stopButton.hidden = false;
    ed.editor?.clearMarks();
    const printed = el("pre", "run-printed");
    output.replaceChildren(printed, el("p", "run-status", "Running…"));
    let result;
    let h = null;
    const heatModel = new Heat();
    // On the Cosmos DB side, the writes' request units as cost.js models
    // them, added up as the requests come (the plans carry the reads').
    let writeUnits = 0;
    onRun?.();
    try {
      h = await runHost();
      if (mine !== runs) return;
      if (fresh) await h.engine.op(store, "reset");
      result = await h.run(codeNow(), store, {
        onPrint: (line) => {
          printed.textContent += (printed.textContent ? "\n" : "") + line;
        },
        onRequest: (entry) => {
          heatModel.add(entry);
          if (side === "cosmos" && !entry.plan) writeUnits += requestUnits(entry);
        },
      });
    } catch (err) {
      result = { output: printed.textContent, queries: [], requests: [], plans: [], error: { name: "Error", message: err.message } };
    }
    if (mine !== runs) return;
    show(result, printed, heatModel.summary(), sides[side], writeUnits);
    if (map && h && result.queries.length) drawMap(h, store, result, mine);
  }

  function show(result, printed, heatSummary, { expected, declared, name }, writeUnits) {
    const ru = side === "cosmos";
    runButton.disabled = false;
    stopButton.hidden = true;
    printed.textContent = result.output;
    const shown = [printed];
    const error = result.error;
    if (error?.name === "Stopped") shown.push(el("p", "run-status", "Stopped before it finished."));
    else if (error) {
      shown.push(renderError(error));
      if (error.line) edit({ focus: false }).then((ed) => ed.markError({ line: error.line, column: error.column, message: errorText(error) }));
    }
    if (result.scorecards?.length) shown.push(renderScorecards(result.scorecards, { ru }));
    if (result.queries.length) shown.push(renderPlans(result.queries, { ru }));
    if (ru) shown.push(unitsNote(result.queries, writeUnits));
    // The heat panel shows where the example asks for it, and wherever a
    // partition went over its target.
    if (heat || heatSummary.over > 0) shown.push(renderHeat(heatSummary, PARTITION_TARGET));
    // A stopped run is not held to the expected output: it did not
    // finish. A run that threw never matches, whatever it printed first.
    if (expected !== null && error?.name !== "Stopped") {
      const same = !error && result.output.trimEnd() === expected.trimEnd() && (declared.length === 0 || sameList(result.plans, declared));
      host.dataset.matches = String(same);
      const what = declared.length ? "output and plans" : "output";
      const text = same ? `✓ Matches the expected ${what}` : error ? `≠ Ended with an error, so it does not match the expected ${what}` : `≠ Differs from the expected ${what}`;
      shown.push(el("p", `run-check ${same ? "run-check-ok" : "run-check-differs"}`, text + name));
    }
    output.replaceChildren(...shown);
    host.dataset.state = error ? (error.name === "Stopped" ? "stopped" : "error") : "done";
  }

  // drawMap adds the keyspace map of the run's last query under its
  // output, unless another run has started meanwhile.
  async function drawMap(h, store, result, mine) {
    const { renderMap } = await import("./panels.js");
    if (mine !== runs) return;
    const section = el("section", "run-map");
    section.setAttribute("aria-label", "Keyspace map of the last query");
    section.append(el("p", "run-map-title", "Keyspace map"));
    const mapBox = el("div", "pg-map");
    section.append(mapBox);
    await renderMap(mapBox, h.engine, store, result);
    if (mine === runs) output.append(section);
  }

  // A reader who points at or tabs into an example will likely run it:
  // load the engine then, not on every page view.
  const warm = () => runHost().then((h) => h.warm(), () => {});
  host.addEventListener("pointerenter", warm, { once: true });
  host.addEventListener("focusin", warm, { once: true });
  runButton.addEventListener("click", start);
  stopButton.addEventListener("click", () => runHost.peek()?.stop());
  resetButton.addEventListener("click", () => {
    if (host.dataset.state === "running") runHost.peek()?.stop();
    runs++;
    ed.editor?.setCode(source);
    ed.editor?.clearMarks();
    output.replaceChildren();
    runButton.disabled = false;
    stopButton.hidden = true;
    host.dataset.state = "ready";
    delete host.dataset.matches;
  });
  host.dataset.state = "ready";
}

function sameList(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * editorOnDemand manages the editor of an example or an exercise, which
 * loads only when the reader goes to edit (a click or a tap on code, Enter
 * on focus, Ctrl/Cmd+Enter there runs onRun): it goes into box before
 * before, code is hidden then, hint says editingHint, and host gets
 * data-editing. It returns {editor (null until loaded), code(), edit({focus})},
 * where code() is the editor's text, or source before it loads.
 */
export function editorOnDemand({ host, box, code, focus, before, source, label, hint, onRun, editingHint = "Ctrl/⌘+Enter runs" }) {
  const api = { editor: null, code: () => api.editor?.code() ?? source, edit };
  let editing = null;
  function edit({ focus: take = true } = {}) {
    editing ??= import("./editor.js").then(({ createEditor }) => {
      const place = el("div", "run-editor");
      box.insertBefore(place, before);
      api.editor = createEditor(place, source, onRun, label);
      if (code) code.hidden = true;
      hint.textContent = editingHint;
      host.dataset.editing = "";
      return api.editor;
    });
    return editing.then((ed) => {
      if (take) ed.view.focus();
      return ed;
    });
  }
  if (code) code.addEventListener("click", () => edit());
  if (focus) {
    focus.setAttribute("aria-label", `${label}: press Enter to edit`);
    focus.title = "Click to edit";
    focus.addEventListener("keydown", (e) => {
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

/**
 * linkPlayground points link at the playground with the code in its
 * fragment, brought up to date with ed's editor when followed. From a
 * page of another site it opens beside that page, not in its place.
 */
export function linkPlayground(link, source, ed) {
  const playground = new URL("../playground.html", here);
  if (crossOrigin(playground)) {
    link.target = "_blank";
    link.rel = "noopener";
  }
  const linkTo = async (text) => {
    playground.hash = await shareHash(text);
    link.href = playground.href;
  };
  linkTo(source);
  for (const event of ["pointerdown", "focus"]) {
    link.addEventListener(event, () => {
      if (ed.editor && ed.editor.code() !== source) linkTo(ed.editor.code());
    });
  }
}

// unitsNote sums the request units of a run on the Cosmos DB side, reads
// and writes, and says they are tablelab's model, with the page that
// explains it.
function unitsNote(queries, writes) {
  const reads = queries.reduce((sum, q) => sum + (q.ru ?? 0), 0);
  const p = el("p", "run-units", `Request units, as tablelab models them: reads ${ruText(reads)}, writes ${ruText(writes)}. `);
  const link = el("a", "", "How the model counts");
  link.href = new URL("../concepts/cosmos-db.html#request-units", here).href;
  if (crossOrigin(link.href)) {
    link.target = "_blank";
    link.rel = "noopener";
  }
  p.append(link, ".");
  return p;
}
