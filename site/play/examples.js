// Turns every run block of a docs page (figure.run-example, site contract
// 2) into a live example (live-example.js): Run, Stop, Reset, Open in
// playground, the printed output and the plan of each query. Without
// JavaScript the page keeps the highlighted code.
//
// The figure is the example's host: its data-state, data-matches,
// data-editing and data-target, and what is inside it, are what
// live-example.js documents. A block that declares what the code answers
// under Cosmos DB for Table (pre.run-expected-cosmos, data-cosmos-plans)
// gets the Table storage | Cosmos DB for Table switch; its Cosmos side
// runs against a store named "cosmos:…" (the engine's Cosmos DB for Table
// profile).
//
// Every exercise of the page (figure.exercise) becomes a live exercise
// (exercise.js), sharing the page's runner and engine with its examples.

import { lazyRunHost, liveExample, planList } from "./live-example.js";
import { enhanceExercise } from "./exercise.js";
import { el } from "./view.js";

const here = new URL(".", import.meta.url);

function addStyles() {
  if (document.querySelector("link[data-play-css]")) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("play.css", here).href;
  link.dataset.playCss = "";
  document.head.append(link);
}

function enhance(figure, runHost) {
  const expectedNode = figure.querySelector("pre.run-expected");
  const cosmosNode = figure.querySelector("pre.run-expected-cosmos");
  // Each side the example runs on: its store, and what it must answer.
  const sides = {
    table: { store: `example-${figure.id || "anon"}`, expected: expectedNode ? expectedNode.textContent : null, declared: planList(figure.dataset.plans), name: "" },
  };
  if (cosmosNode) {
    sides.cosmos = { store: `cosmos:example-${figure.id || "anon"}`, expected: cosmosNode.textContent, declared: planList(figure.dataset.cosmosPlans), name: " (Cosmos DB for Table)" };
  }
  const code = figure.querySelector(".run-code");
  liveExample(
    {
      host: figure,
      box: figure,
      output: figure.querySelector(".run-output") ?? figure.appendChild(el("div", "run-output")),
      code,
      focus: code ? (code.querySelector("pre") ?? code) : null,
      source: figure.querySelector("textarea.run-source")?.value ?? "",
      label: `Example ${figure.id || ""} code`.trim(),
      sides,
      heat: figure.dataset.heat !== undefined,
      onRun: () => ranBefore.set(),
    },
    runHost,
  );
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
const runHost = lazyRunHost();
const figures = document.querySelectorAll("figure.run-example");
for (const figure of figures) enhance(figure, runHost);
const exercises = document.querySelectorAll("figure.exercise");
for (const figure of exercises) enhanceExercise(figure, runHost);
if ((figures.length || exercises.length) && ranBefore.get()) runHost().then((h) => h.warm(), () => {});
