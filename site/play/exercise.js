// One exercise (figure.exercise, from a page's ```js exercise, ```js
// solution and ```json check blocks): the starting design, which the
// reader edits (the editor loads at the first edit, as an example's
// does), Check, Stop, Reset and Open in playground; in the solution's
// <details>, "Use this solution", which puts the model answer in the
// editor. Check runs the design with the check's access patterns
// (grader.js) on a store of its own, emptied first, and shows the verdict.
//
// What tests can read, on the figure: data-state ("ready", "running",
// "done", "error", "stopped"), data-verdict ("pass"/"fail") once Check
// has run, data-design ("solution" once Use this solution put the model
// answer in the editor, "start" after Reset) and data-editing. Inside it:
// section.verdict with data-verdict, data-passed and data-total; one
// li.verdict-pattern a pattern, with data-name and data-ok and, once it
// ran, data-plan, data-reads, data-examined, data-returned,
// data-requests and data-written, its measure and, when it fails, why,
// in the reader's terms (.verdict-problems). A pass is kept in the
// browser (../static/progress.js) and marks the page in the navigation.

import { editorOnDemand, linkPlayground } from "./live-example.js";
import { el, errorText, renderError, renderScorecards } from "./view.js";
import { checkProgram, grade, parseCheck, summary } from "./grader.js";
import { markPassed } from "../static/progress.js";

/** enhanceExercise makes figure a live exercise; runHost is lazyRunHost's function. */
export function enhanceExercise(figure, runHost) {
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

  const bar = el("div", "run-toolbar");
  const button = (cls, text, title) => {
    const b = el("button", cls, text);
    b.type = "button";
    if (title) b.title = title;
    return b;
  };
  const checkButton = button("run-button exercise-check-button", "Check", "Run the access patterns against your design (Ctrl/⌘+Enter in the code)");
  const stopButton = button("run-stop", "Stop");
  stopButton.hidden = true;
  const resetButton = button("run-reset", "Reset", "Put back the starting design and clear the verdict");
  const openLink = el("a", "run-open", "Open in playground");
  openLink.title = "Open this design in the playground, with its panels";
  const hint = el("span", "run-hint", "Click the design to edit it");
  bar.append(checkButton, stopButton, resetButton, openLink, hint);
  figure.insertBefore(bar, output);

  const focus = code ? (code.querySelector("pre") ?? code) : null;
  const ed = editorOnDemand({ host: figure, box: figure, code, focus, before: code ?? bar, source, label, hint, onRun: () => check(), editingHint: "Ctrl/⌘+Enter checks" });
  linkPlayground(openLink, source, ed);

  // The solution's <details> offers to put the model answer in the editor.
  const details = figure.querySelector("details.exercise-solution");
  if (details) {
    const use = button("exercise-use-solution", "Use this solution", "Put the model answer in the editor, to check it or change it");
    use.addEventListener("click", async () => {
      const e = await ed.edit({ focus: false });
      e.setCode(solution);
      e.clearMarks();
      figure.dataset.design = "solution";
      e.view.focus();
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
      const h = await runHost();
      if (mine !== runs) return;
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
  // A reader who points at or tabs into an exercise will likely check it:
  // start the engine then.
  const warm = () => runHost().then((h) => h.warm(), () => {});
  figure.addEventListener("pointerenter", warm, { once: true });
  figure.addEventListener("focusin", warm, { once: true });
  figure.dataset.state = "ready";
}

// renderVerdict shows a grade: a line for the whole, then each access
// pattern with its measure and, when it fails, what went wrong.
function renderVerdict(v) {
  const section = el("section", `verdict ${v.ok ? "verdict-pass" : "verdict-fail"}`);
  section.setAttribute("aria-label", "Verdict");
  Object.assign(section.dataset, { verdict: v.ok ? "pass" : "fail", passed: String(v.passed), total: String(v.total) });
  section.append(el("p", "verdict-head", v.ok ? `✓ All ${v.total} access patterns pass.` : `✗ ${v.passed} of ${v.total} access patterns pass.`));
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
