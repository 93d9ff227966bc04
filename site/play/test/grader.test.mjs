// grader.js: a check block read as build/site reads it, verdicts in the
// reader's terms from a scorecard's rows, and Check end to end against a
// real server through the runner: a design that misses fails for the
// reason it misses, one that serves the patterns passes, a pattern that
// throws fails alone, a design that throws fails every pattern with its
// error at the reader's line.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { run } from "../runner.js";
import { CHECK_TITLE, checkProgram, grade, parseCheck, summary, verdictText } from "../grader.js";
import * as nodeSdk from "../vendor-src/node_modules/@azure/data-tables/dist/esm/index.js";
import { startServer, devKey } from "./server.mjs";

let server;
let env;
before(async () => {
  server = await startServer();
  env = { sdk: nodeSdk, connectionString: `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${devKey};TableEndpoint=${server.endpoint}/` };
});
after(() => server?.stop());

test("parseCheck: the shape build/site accepts, and a sentence for each mistake", () => {
  const ok = parseCheck(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "expect": [1], "order": "any", "plan": "range", "examined": 3, "requests": 1, "written": 0, "bytes": 10, "hint": "h"}]}`);
  assert.equal(ok.patterns[0].plan, "range");
  for (const [text, message] of [
    ["nope", /not JSON/],
    [`[]`, /want an object/],
    [`{"task": "t", "patterns": [], "extra": 1}`, /unknown field "extra"/],
    [`{"patterns": [{"name": "a", "run": "f()"}]}`, /task must be a sentence/],
    [`{"task": "t", "patterns": []}`, /at least one access pattern/],
    [`{"task": "t", "patterns": [{"name": "a", "run": "f()", "why": 1}]}`, /unknown field "why"/],
    [`{"task": "t", "patterns": [{"run": "f()"}]}`, /name must be text/],
    [`{"task": "t", "patterns": [{"name": "a", "run": "f()"}, {"name": "a", "run": "g()"}]}`, /"a" is used twice/],
    [`{"task": "t", "patterns": [{"name": "a"}]}`, /run must be an expression/],
    [`{"task": "t", "patterns": [{"name": "a", "run": "f()", "plan": "fast"}]}`, /unknown plan "fast"/],
    [`{"task": "t", "patterns": [{"name": "a", "run": "f()", "order": "sorted"}]}`, /order is "any"/],
    [`{"task": "t", "patterns": [{"name": "a", "run": "f()", "examined": 1.5}]}`, /examined must be a whole number/],
  ]) {
    assert.throws(() => parseCheck(text), message, text);
  }
});

// card is what the check's scorecard would hold for rows.
const resultOf = (rows, error) => ({ scorecards: [{ title: CHECK_TITLE, rows }], error });
const row = (name, fields) => ({ name, plan: "", reads: 0, examined: 0, returned: 0, requests: 0, written: 0, deleted: 0, bytes: 0, ...fields });

test("grade: each way a pattern can miss, said in the reader's terms", () => {
  const spec = parseCheck(
    JSON.stringify({
      task: "t",
      patterns: [
        { name: "answer", run: "a()", expect: ["x", "y"] },
        { name: "any order", run: "b()", expect: ["x", "y"], order: "any" },
        { name: "plan", run: "c()", plan: "range", hint: "Key it by day." },
        { name: "nothing read", run: "d()", plan: "point" },
        { name: "budgets", run: "e()", examined: 5, requests: 2, written: 1, bytes: 100, hottest: 50 },
        { name: "threw", run: "f()", expect: 1 },
        { name: "missing", run: "g()", expect: 1 },
      ],
    }),
  );
  const v = grade(
    resultOf([
      row("answer", { result: { answer: ["y", "x"] } }),
      row("any order", { result: { answer: ["y", "x"] } }),
      row("plan", { plan: "table-scan", reads: 2, examined: 400, returned: 3, requests: 2, result: { answer: null } }),
      row("nothing read", { result: { answer: 1 } }),
      row("budgets", { plan: "range", reads: 1, examined: 60, returned: 5, requests: 3, written: 2, deleted: 1, bytes: 120, hottest: 63, hottestPartition: "Votes/show-12", result: { answer: null } }),
      row("threw", { result: { threw: "RestError 404: The specified resource does not exist." } }),
    ]),
    spec,
  );
  assert.equal(v.ok, false);
  assert.equal(v.passed, 1);
  assert.equal(v.total, 7);
  const problems = Object.fromEntries(v.patterns.map((p) => [p.name, p.problems]));
  assert.deepEqual(problems.answer, ['answered ["y","x"], where the right answer is ["x","y"]']);
  assert.deepEqual(problems["any order"], []);
  assert.deepEqual(problems.plan, ["was served by a table scan, where a range query or better is wanted"]);
  assert.equal(v.patterns[2].hint, "Key it by day.");
  assert.deepEqual(problems["nothing read"], ["read nothing from the tables; it should be served by a point read"]);
  assert.deepEqual(problems.budgets, [
    "examined 60 entities to return 5; the budget is 5",
    "made 3 requests; the budget is 2",
    "wrote or deleted 3 entities; the budget is 1",
    "wrote 120 bytes; the budget is 100",
    "put 63 entity operations on one partition (Votes/show-12); the budget is 50 a partition",
  ]);
  assert.deepEqual(problems.threw, ["threw RestError 404: The specified resource does not exist."]);
  assert.deepEqual(problems.missing, ["did not run"]);
  assert.equal(summary(v.patterns[2].row), "a table scan ×2, 400 examined / 3 returned, 2 requests");
  assert.match(verdictText(v), /^1 of 7 access patterns pass\.\n✗ answer/);
});

test("grade: a design that stopped before the check fails every pattern with its error", () => {
  const spec = parseCheck(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "expect": 1}]}`);
  const v = grade({ scorecards: [], error: { name: "ReferenceError", message: "oops is not defined", line: 3 } }, spec);
  assert.equal(v.ok, false);
  assert.equal(v.error.name, "ReferenceError");
  assert.deepEqual(v.patterns[0].problems, ["did not run: the design stopped first (ReferenceError: oops is not defined)"]);
});

// A small exercise end to end: finding a member's visits, by a partition
// per member (the solution) or by one partition for all (the start).
const visits = `
const members = ["ana", "bo", "cy", "di"];
const visits = [];
for (let i = 0; i < 24; i++) visits.push({ member: members[i % 4], day: "2026-03-" + String(1 + i).padStart(2, "0") });
const t = TableClient.fromConnectionString(connectionString, TABLE);
await t.createTable();
`;
const start = `${visits}
await t.submitTransaction(visits.map((v) => ["create", { partitionKey: "all", rowKey: v.day + "_" + v.member, member: v.member }]));
async function visitsOf(member) {
  const days = [];
  for await (const e of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq 'all' and member eq \${member}\` } })) days.push(e.rowKey.slice(0, 10));
  return days;
}
async function addVisit(v) {
  await t.createEntity({ partitionKey: "all", rowKey: v.day + "_" + v.member, member: v.member });
}
`;
const solution = `${visits}
for (const m of members) {
  await t.submitTransaction(visits.filter((v) => v.member === m).map((v) => ["create", { partitionKey: m, rowKey: v.day }]));
}
async function visitsOf(member) {
  const days = [];
  for await (const e of t.listEntities({ queryOptions: { filter: odata\`PartitionKey eq \${member}\` } })) days.push(e.rowKey);
  return days;
}
async function addVisit(v) {
  await t.createEntity({ partitionKey: v.member, rowKey: v.day });
}
`;
const visitsCheck = parseCheck(
  JSON.stringify({
    task: "Key the visits so that one member's are one partition.",
    patterns: [
      { name: "bo's visits", run: 'visitsOf("bo")', expect: ["2026-03-02", "2026-03-06", "2026-03-10", "2026-03-14", "2026-03-18", "2026-03-22"], plan: "partition-scan", examined: 6 },
      { name: "a new visit", run: 'addVisit({ member: "bo", day: "2026-03-30" })', requests: 1, written: 1 },
      { name: "bo's visits, the new one too", run: 'visitsOf("bo")', expect: ["2026-03-02", "2026-03-06", "2026-03-10", "2026-03-14", "2026-03-18", "2026-03-22", "2026-03-30"], examined: 7 },
    ],
  }),
);

test("Check end to end: the start misses the examined budget, the solution passes, both through the real SDK", async () => {
  const s = await run(checkProgram(start.replace("TABLE", '"VisitsStart"'), visitsCheck), env);
  assert.equal(s.error, undefined, JSON.stringify(s.error));
  const vs = grade(s, visitsCheck);
  assert.equal(vs.ok, false);
  assert.deepEqual(vs.patterns.map((p) => p.ok), [false, true, false]);
  assert.deepEqual(vs.patterns[0].problems, ["examined 24 entities to return 6; the budget is 6"]);
  assert.equal(vs.patterns[1].row.written, 1);
  assert.equal(vs.patterns[0].row.hottest, 24, "the scan examined the one partition's 24 entities");
  assert.equal(vs.patterns[0].row.hottestPartition, "VisitsStart/all");
  // The check prints its scorecard like any other.
  assert.match(s.output, /^Check\n  bo's visits: partition-scan, 24 examined \/ 6 returned\n  a new visit: wrote 1 entity/);

  const m = await run(checkProgram(solution.replace("TABLE", '"VisitsModel"'), visitsCheck), env);
  const vm = grade(m, visitsCheck);
  assert.equal(vm.ok, true, verdictText(vm));
  assert.equal(vm.patterns[0].row.examined, 6);
  assert.equal(vm.patterns[0].row.hottest, 6);
});

test("Check end to end: a pattern that throws fails alone; a design that throws fails all, at the reader's line", async () => {
  const lacking = solution.replace("TABLE", '"VisitsLacking"').replace(/async function addVisit[\s\S]*$/, "");
  const v = grade(await run(checkProgram(lacking, visitsCheck), env), visitsCheck);
  assert.deepEqual(v.patterns.map((p) => p.ok), [true, false, false]);
  assert.match(v.patterns[1].problems[0], /^threw ReferenceError: addVisit is not defined/);
  assert.match(v.patterns[2].problems[0], /answered .*where the right answer is/);

  const broken = `const t = TableClient.fromConnectionString(connectionString, "VisitsBroken");\nawait t.getEntity("no", "such");\nasync function visitsOf() {}\n`;
  const r = await run(checkProgram(broken, visitsCheck), env);
  assert.equal(r.error?.statusCode, 404);
  assert.equal(r.error.line, 2, "the error's line is the design's own");
  const vb = grade(r, visitsCheck);
  assert.equal(vb.passed, 0);
  assert.match(vb.patterns[0].problems[0], /^did not run: the design stopped first \(RestError/);
});
