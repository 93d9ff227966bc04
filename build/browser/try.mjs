// A quick loop for writing docs: runs the `js run` blocks of the Markdown
// files named on the command line in Node, through the site's runner with
// the real SDKs, against a fresh `go run . -memory`, and prints what each
// printed and the plans of its queries beside what the block declares.
// A block with cosmos-plans=… and an output cosmos block runs a second
// time, against `go run . -memory -cosmos`, held to those. Each exercise
// (```js exercise, ```js solution, ```json check) is checked twice, its
// starting design and its solution, and the grader's verdicts printed:
// the first must fail and the second pass (TRY_ANSWERS=1 prints each
// pattern's answer, to write the check's expect from).
// The parity tier is the check; this is for the writer.
//
//	node build/browser/try.mjs content/concepts/queries.md [more.md …]
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { startServer, connectionString, repoRoot } from "./server.mjs";
import { settled } from "./examples.mjs";

const { run, sdkOf } = await import(join(repoRoot, "site/play/runner.js"));
const { checkProgram, grade, parseCheck, verdictText } = await import(join(repoRoot, "site/play/grader.js"));
const sdk = sdkOf(tables, blobs, queues);

/**
 * The run blocks of one Markdown text: {line, plans, source, expected,
 * cosmos}, where cosmos is {plans, expected} for a block that declares
 * its Cosmos DB for Table side.
 */
function blocks(text) {
  const lines = text.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s{0,3}(`{3,}|~{3,})\s*js\s+run\b(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const plansWord = /(?:^|\s)plans=(\S*)/.exec(open[2]);
    const cosmosWord = /(?:^|\s)cosmos-plans=(\S*)/.exec(open[2]);
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trim().startsWith(fence); j++) body.push(lines[j]);
    const ex = {
      line: i + 1,
      plans: plansWord ? plansWord[1].split(",").filter(Boolean) : [],
      source: body.join("\n") + "\n",
      expected: undefined,
    };
    let k = j + 1;
    while (k < lines.length && lines[k].trim() === "") k++;
    const out2 = /^\s{0,3}(`{3,}|~{3,})\s*output\b/.exec(lines[k] ?? "");
    if (out2) {
      const exp = [];
      let m = k + 1;
      for (; m < lines.length && !lines[m].trim().startsWith(out2[1]); m++) exp.push(lines[m]);
      ex.expected = exp.join("\n") + "\n";
      j = m;
      let n = j + 1;
      while (n < lines.length && lines[n].trim() === "") n++;
      const cos = /^\s{0,3}(`{3,}|~{3,})\s*output\s+cosmos\s*$/.exec(lines[n] ?? "");
      if (cos) {
        const got = [];
        let o = n + 1;
        for (; o < lines.length && !lines[o].trim().startsWith(cos[1]); o++) got.push(lines[o]);
        ex.cosmos = { plans: cosmosWord ? cosmosWord[1].split(",").filter(Boolean) : [], expected: got.join("\n") + "\n" };
        j = o;
      }
    }
    out.push(ex);
    i = j;
  }
  return out;
}

/**
 * The exercises of one Markdown text: {line, start, solution, check}, the
 * check as its text.
 */
function exercises(text) {
  const lines = text.split("\n");
  const out = [];
  // fenced reads the block opening at line i whose info is info: its
  // body and the line after its closing fence, or null.
  const fenced = (i, info) => {
    while (i < lines.length && lines[i].trim() === "") i++;
    const open = new RegExp(`^\\s{0,3}(\`{3,}|~{3,})\\s*${info}\\s*$`).exec(lines[i] ?? "");
    if (!open) return null;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trim().startsWith(open[1]); j++) body.push(lines[j]);
    return { body: body.join("\n") + "\n", next: j + 1 };
  };
  for (let i = 0; i < lines.length; i++) {
    const start = fenced(i, "js\\s+exercise");
    if (!start || lines[i].trim() === "") continue;
    const solution = fenced(start.next, "js\\s+solution");
    const check = solution && fenced(solution.next, "json\\s+check");
    if (!check) {
      out.push({ line: i + 1, broken: true });
      continue;
    }
    out.push({ line: i + 1, start: start.body, solution: solution.body, check: check.body });
    i = check.next - 1;
  }
  return out;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node build/browser/try.mjs file.md …");
  process.exit(2);
}
let bad = 0;
for (const file of files) {
  for (const ex of blocks(readFileSync(resolve(file), "utf8"))) {
    const sides = [["", [], ex]];
    if (ex.cosmos) sides.push([" (cosmos)", ["-cosmos"], ex.cosmos]);
    for (const [label, args, want] of sides) {
      // A server per example: each starts from empty tables, as each Run
      // in the browser does with its own store.
      const server = await startServer({ args });
      try {
        const r = await run(ex.source, {
          sdk,
          connectionString: connectionString(server),
          clientOptions: { allowInsecureConnection: true },
        });
        const outOK = settled(r.output) === settled(want.expected);
        const plansOK = JSON.stringify(r.plans) === JSON.stringify(want.plans);
        if (!outOK || !plansOK || r.error) bad++;
        console.log(`=== ${file}:${ex.line}${label}  output ${outOK ? "ok" : "DIFFERS"}  plans ${plansOK ? "ok" : "DIFFER"}${r.error ? "  THREW" : ""}`);
        if (r.error) console.log("error:", JSON.stringify(r.error));
        console.log(`plans: ${r.plans.join(",")}${plansOK ? "" : `   (declared: ${want.plans.join(",")})`}`);
        console.log(r.output.replace(/\n$/, ""));
        if (!outOK && want.expected !== undefined) console.log(`--- declared:\n${want.expected.replace(/\n$/, "")}`);
      } finally {
        await server.stop();
      }
    }
  }
}
for (const file of files) {
  for (const ex of exercises(readFileSync(resolve(file), "utf8"))) {
    if (ex.broken) {
      bad++;
      console.log(`=== ${file}:${ex.line} exercise: BROKEN (want js exercise, js solution, json check in a row)`);
      continue;
    }
    let spec;
    try {
      spec = parseCheck(ex.check);
    } catch (err) {
      bad++;
      console.log(`=== ${file}:${ex.line} exercise: ${err.message}`);
      continue;
    }
    for (const [label, code, want] of [["starting design", ex.start, false], ["solution", ex.solution, true]]) {
      const server = await startServer({});
      try {
        const r = await run(checkProgram(code, spec), { sdk, connectionString: connectionString(server), clientOptions: { allowInsecureConnection: true } });
        const v = grade(r, spec);
        const ok = v.ok === want;
        if (!ok) bad++;
        console.log(`=== ${file}:${ex.line} exercise, ${label}: ${v.ok ? "passes" : "fails"}${ok ? "" : "  WRONG (want it to " + (want ? "pass" : "fail") + ")"}`);
        console.log(verdictText(v));
        if (r.error) console.log("error:", JSON.stringify(r.error));
        if (process.env.TRY_OUTPUT) console.log(r.output);
        // TRY_ANSWERS=1 prints each pattern's answer whole, to write its expect.
        if (process.env.TRY_ANSWERS) for (const row of r.scorecards.at(-1)?.rows ?? []) console.log(`  answer of ${row.name}: ${JSON.stringify(row.result)}`);
      } finally {
        await server.stop();
      }
    }
  }
}
process.exit(bad ? 1 : 0);
