// The exercises' grader: runs a reader's design against the access
// patterns a page declares (a ```json check block beside the exercise)
// and says, pattern by pattern, whether the design serves it: the answer
// is right, the plan is the one wanted or a cheaper one (runner.js's
// PLAN_COST), and what it examined, requested and wrote stays within the
// budgets. One module for the docs' pages (examples.js) and for Node's
// tests, so a verdict is the same wherever it is reached.
//
// A check is JSON:
//
//   {
//     "task": "one sentence: what the reader is to do",
//     "patterns": [
//       {
//         "name": "an artist's records in one shop",
//         "run": "recordsBy(\"shop-harbour\", \"Low Orchard\")",
//         "expect": ["r0002", "r0010"],
//         "order": "any",
//         "plan": "point",
//         "examined": 6,
//         "requests": 6,
//         "written": 0,
//         "bytes": 400,
//         "hottest": 100,
//         "hint": "a sentence for a reader whose design misses"
//       }
//     ]
//   }
//
// run is a JavaScript expression evaluated after the reader's code, so it
// calls the functions the design defines; its value (awaited; an async
// iterable read to the end) is the pattern's answer, held to expect as
// JSON (order "any": a list in any order). plan, examined, requests,
// written (entities inserted, replaced, merged or deleted), bytes (their
// size as the service counts it) and hottest (the most entity operations,
// writes and entities examined, on any one partition while the pattern
// runs: the load a burst puts on the partition that takes most of it)
// are each optional: a pattern with none of them is a step, which passes
// when it runs without an error. The patterns
// run in order against one store, so a write's effect is there for the
// patterns after it. build/site reads the same block when it builds the
// page and refuses one that does not hold to this shape.

import { PLAN_COST } from "./runner.js";
import { counted, grouped } from "./cost.js";

/** PLAN_NAMES names each plan in a reader's words. */
export const PLAN_NAMES = {
  point: "a point read",
  range: "a range query",
  index: "Cosmos DB's index",
  "partition-scan": "a partition scan",
  "table-scan": "a table scan",
};

const FIELDS = new Set(["name", "run", "expect", "order", "plan", "examined", "requests", "written", "bytes", "hottest", "hint"]);
const BUDGETS = ["examined", "requests", "written", "bytes", "hottest"];

/**
 * parseCheck reads a check block's text and returns {task, patterns},
 * or throws an Error saying what is wrong with it.
 */
export function parseCheck(text) {
  let spec;
  try {
    spec = JSON.parse(text);
  } catch (err) {
    throw new Error(`check: not JSON: ${err.message}`);
  }
  if (!spec || typeof spec !== "object" || Array.isArray(spec)) throw new Error("check: want an object with task and patterns");
  for (const key of Object.keys(spec)) {
    if (key !== "task" && key !== "patterns") throw new Error(`check: unknown field "${key}"`);
  }
  if (typeof spec.task !== "string" || !spec.task.trim()) throw new Error("check: task must be a sentence");
  if (!Array.isArray(spec.patterns) || spec.patterns.length === 0) throw new Error("check: patterns must list at least one access pattern");
  const names = new Set();
  for (const [i, p] of spec.patterns.entries()) {
    const where = `check: pattern ${i + 1}`;
    if (!p || typeof p !== "object" || Array.isArray(p)) throw new Error(`${where}: want an object`);
    for (const key of Object.keys(p)) if (!FIELDS.has(key)) throw new Error(`${where}: unknown field "${key}"`);
    if (typeof p.name !== "string" || !p.name.trim()) throw new Error(`${where}: name must be text`);
    if (names.has(p.name)) throw new Error(`${where}: the name "${p.name}" is used twice`);
    names.add(p.name);
    if (typeof p.run !== "string" || !p.run.trim()) throw new Error(`${where} (${p.name}): run must be an expression`);
    if (p.order !== undefined && p.order !== "any") throw new Error(`${where} (${p.name}): order is "any" or left out`);
    if (p.plan !== undefined && !PLAN_COST.includes(p.plan)) throw new Error(`${where} (${p.name}): unknown plan "${p.plan}"`);
    for (const b of BUDGETS) {
      if (p[b] !== undefined && !(Number.isInteger(p[b]) && p[b] >= 0)) throw new Error(`${where} (${p.name}): ${b} must be a whole number, at least 0`);
    }
    if (p.hint !== undefined && typeof p.hint !== "string") throw new Error(`${where} (${p.name}): hint must be text`);
  }
  return spec;
}

// The names the harness uses; a reader's design is unlikely to take them.
const DRAIN = "__tablelabAnswer";
const CHECKS = "__tablelabChecks";
const DESCRIBE = "__tablelabError";

/** CHECK_TITLE is the title of the scorecard a check prints. */
export const CHECK_TITLE = "Check";

/**
 * checkProgram is the program a Check runs: the reader's code, then a
 * scorecard of the check's patterns, each pattern's answer kept for
 * grade. A pattern that throws does not end the others: its error is its
 * answer. The reader's code comes first and unchanged, so the line of an
 * error in it is the line the reader sees.
 */
export function checkProgram(code, spec) {
  const entries = spec.patterns.map(
    (p) => `  ${JSON.stringify(p.name)}: async () => {
    try {
      return { answer: await ${DRAIN}(await (${p.run}\n)) };
    } catch (err) {
      return { threw: ${DESCRIBE}(err) };
    }
  },`,
  );
  return `${code}
;{
async function ${DRAIN}(v) {
  if (v && typeof v[Symbol.asyncIterator] === "function") {
    const items = [];
    for await (const item of v) items.push(item);
    return items;
  }
  return v;
}
function ${DESCRIBE}(err) {
  // A RestError of the Table SDK keeps the service's code and message
  // apart from its own message, which is the raw body.
  const service = err?.details?.odataError;
  const what = service ? service.code + ": " + String(service.message?.value ?? "") : String(err?.message ?? err);
  return String(err?.name ?? "Error") + (err?.statusCode ? " " + err.statusCode : "") + (service ? " " : ": ") + what.split("\\n")[0];
}
const ${CHECKS} = {
${entries.join("\n")}
};
await scorecard(${JSON.stringify(CHECK_TITLE)}, ${CHECKS}, { results: true });
}
`;
}

/**
 * grade reads the result of running checkProgram (runner.js's run, or
 * the browser's RunHost) and returns the verdict:
 *
 *   {ok, passed, total, error?, patterns: [{name, ok, problems, row?,
 *    hint?}]}
 *
 * where each problem is a sentence in the reader's terms, and error is
 * what ended the reader's code before the patterns ran (an Error's
 * {name, message, …} as the runner reports it).
 */
export function grade(result, spec) {
  const card = (result.scorecards ?? []).find((c) => c.title === CHECK_TITLE);
  const rows = new Map((card?.rows ?? []).map((r) => [r.name, r]));
  const patterns = spec.patterns.map((p) => judge(p, rows.get(p.name), result.error));
  const passed = patterns.filter((p) => p.ok).length;
  const verdict = { ok: passed === patterns.length, passed, total: patterns.length, patterns };
  if (result.error && !card) verdict.error = result.error;
  return verdict;
}

function judge(p, row, error) {
  const out = { name: p.name, ok: false, problems: [] };
  if (p.hint) out.hint = p.hint;
  if (!row) {
    out.problems.push(error ? `did not run: the design stopped first (${error.name}: ${firstLine(error.message)})` : "did not run");
    return out;
  }
  out.row = row;
  const result = row.result ?? {};
  if (result.threw !== undefined) {
    out.problems.push(`threw ${result.threw}`);
    return out;
  }
  if (p.expect !== undefined && !same(result.answer, p.expect, p.order === "any")) {
    out.problems.push(`answered ${shown(result.answer)}, where the right answer is ${shown(p.expect)}`);
  }
  if (p.plan !== undefined) {
    const wanted = PLAN_COST.indexOf(p.plan);
    if (row.reads === 0) out.problems.push(`read nothing from the tables; it should be served by ${PLAN_NAMES[p.plan]}${p.plan === "point" ? "" : " or better"}`);
    else if (PLAN_COST.indexOf(row.plan) > wanted) {
      out.problems.push(`was served by ${PLAN_NAMES[row.plan] ?? row.plan}, where ${PLAN_NAMES[p.plan]}${p.plan === "point" ? "" : " or better"} is wanted`);
    }
  }
  if (p.examined !== undefined && row.examined > p.examined) {
    const returning = row.returned < row.examined ? ` to return ${grouped(row.returned)}` : "";
    out.problems.push(`examined ${counted(row.examined, "entity", "entities")}${returning}; the budget is ${grouped(p.examined)}`);
  }
  if (p.requests !== undefined && row.requests > p.requests) {
    out.problems.push(`made ${counted(row.requests, "request", "requests")}; the budget is ${grouped(p.requests)}`);
  }
  const written = (row.written ?? 0) + (row.deleted ?? 0);
  if (p.written !== undefined && written > p.written) {
    const verb = row.deleted ? "wrote or deleted" : "wrote";
    out.problems.push(`${verb} ${counted(written, "entity", "entities")}; the budget is ${grouped(p.written)}`);
  }
  if (p.bytes !== undefined && (row.bytes ?? 0) > p.bytes) {
    out.problems.push(`wrote ${grouped(row.bytes)} bytes; the budget is ${grouped(p.bytes)}`);
  }
  if (p.hottest !== undefined && (row.hottest ?? 0) > p.hottest) {
    out.problems.push(`put ${counted(row.hottest, "entity operation", "entity operations")} on one partition (${row.hottestPartition}); the budget is ${grouped(p.hottest)} a partition`);
  }
  out.ok = out.problems.length === 0;
  return out;
}

/**
 * summary is one pattern's measure as the verdict shows it: "a range
 * query, 12 examined / 12 returned, 1 request".
 */
export function summary(row) {
  if (!row) return "";
  const parts = [];
  if (row.reads > 0) parts.push(`${PLAN_NAMES[row.plan] ?? row.plan}${row.reads > 1 ? ` ×${grouped(row.reads)}` : ""}, ${grouped(row.examined)} examined / ${grouped(row.returned)} returned`);
  if (row.written) parts.push(`${counted(row.written, "entity", "entities")} written`);
  if (row.deleted) parts.push(`${counted(row.deleted, "entity", "entities")} deleted`);
  parts.push(counted(row.requests ?? row.reads, "request", "requests"));
  return parts.join(", ");
}

/** verdictText is a verdict as lines of text, the way Node's tests print it. */
export function verdictText(v) {
  const lines = [v.ok ? `All ${v.total} access patterns pass.` : `${v.passed} of ${v.total} access patterns pass.`];
  if (v.error) lines.push(`The design stopped: ${v.error.name}: ${firstLine(v.error.message)}`);
  for (const p of v.patterns) {
    lines.push(`${p.ok ? "✓" : "✗"} ${p.name}${p.row ? `: ${summary(p.row)}` : ""}`);
    for (const problem of p.problems) lines.push(`    ${problem}`);
  }
  return lines.join("\n");
}

// same compares an answer with the expected one as JSON; with any, two
// lists compare whatever their order.
function same(got, want, any) {
  if (any && Array.isArray(got) && Array.isArray(want)) {
    const key = (x) => JSON.stringify(canonical(x));
    return same(got.map(key).sort(), want.map(key).sort(), false);
  }
  return JSON.stringify(canonical(got ?? null)) === JSON.stringify(canonical(want));
}

// canonical orders an object's keys, so {a, b} and {b, a} are the same.
function canonical(x) {
  if (Array.isArray(x)) return x.map(canonical);
  if (x && typeof x === "object") {
    const out = {};
    for (const k of Object.keys(x).sort()) out[k] = canonical(x[k]);
    return out;
  }
  return x;
}

// shown is an answer as a problem quotes it: JSON, cut short.
function shown(x) {
  const text = JSON.stringify(x ?? null);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

function firstLine(s) {
  return String(s ?? "").split("\n")[0];
}
