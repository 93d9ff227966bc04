// The exercises in Node: every exercise of the built site is checked with
// the real SDKs and their own HTTP client against `go run . -memory`,
// through the same runner and grader the pages use (site/play/runner.js,
// grader.js): its starting design must fail Check, each failing pattern
// saying why, and its solution must pass every pattern. Each verdict must
// be the one Chromium reached (out/browser-exercises.json, written by
// exercises.test.mjs), pattern by pattern: pass or fail, plan, reads,
// examined, returned, requests and entities written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { siteExercises } from "./examples.mjs";
import { readRecord } from "./record.mjs";
import { startServer, connectionString, distDir, repoRoot, requireDist } from "./server.mjs";

requireDist();
const { run, sdkOf } = await import(join(repoRoot, "site/play/runner.js"));
const { checkProgram, grade, parseCheck, verdictText } = await import(join(repoRoot, "site/play/grader.js"));
const sdk = sdkOf(tables, blobs, queues);
const exercises = siteExercises(distDir);
const browser = readRecord("browser-exercises.json").exercises ?? {};
const node = new Map();

// measured is a verdict's patterns as both sides record them.
const measured = (patterns) =>
  patterns.map((p) => ({
    name: p.name,
    ok: p.ok,
    plan: p.row?.plan ?? p.plan ?? "",
    reads: p.row?.reads ?? p.reads ?? 0,
    examined: p.row?.examined ?? p.examined ?? 0,
    returned: p.row?.returned ?? p.returned ?? 0,
    requests: p.row?.requests ?? p.requests ?? 0,
    written: p.row ? (p.row.written ?? 0) + (p.row.deleted ?? 0) : (p.written ?? 0),
  }));

async function check(code, spec) {
  const server = await startServer();
  try {
    return grade(await run(checkProgram(code, spec), { sdk, connectionString: connectionString(server), clientOptions: { allowInsecureConnection: true } }), spec);
  } finally {
    await server.stop();
  }
}

test("the built site sets exercises", () => {
  assert.ok(exercises.length > 0, "no figure.exercise in dist/");
});

for (const ex of exercises) {
  const key = `${ex.page}#${ex.id}`;
  test(`Node, real SDK: ${key} fails as given and passes as solved`, async () => {
    const spec = parseCheck(ex.check);
    const start = await check(ex.source, spec);
    assert.equal(start.ok, false, `the starting design passes:\n${verdictText(start)}`);
    for (const p of start.patterns.filter((p) => !p.ok)) assert.ok(p.problems.length > 0, `"${p.name}" fails without a reason`);
    const model = await check(ex.solution, spec);
    assert.equal(model.ok, true, `the solution fails:\n${verdictText(model)}`);
    node.set(key, { start: measured(start.patterns), model: measured(model.patterns) });
  });
}

test("Node graded every exercise as Chromium did, pattern by pattern", (t) => {
  const seen = exercises.filter((ex) => {
    const b = browser[`${ex.page}#${ex.id}`];
    return b && b.source === ex.source && b.solution === ex.solution && b.check === ex.check;
  });
  if (seen.length === 0) {
    const why = "the browser test recorded no exercise of this build (out/browser-exercises.json)";
    if (process.env.CI === "true") assert.fail(why);
    t.skip(why);
    return;
  }
  assert.deepEqual(exercises.filter((ex) => !seen.includes(ex)).map((ex) => `${ex.page}#${ex.id}`), [], "exercises the browser did not check");
  for (const ex of exercises) {
    const key = `${ex.page}#${ex.id}`;
    const b = browser[key];
    assert.ok(node.has(key), `${key} was not checked in Node`);
    assert.deepEqual(node.get(key).start, measured(b.start), `${key}: the starting design's verdict`);
    assert.deepEqual(node.get(key).model, measured(b.model), `${key}: the solution's verdict`);
  }
});
