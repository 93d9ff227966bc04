// node load.mjs DIR [seconds] [clients per partition] [rounds]: the Worker in
// DIR under workerd on 127.0.0.1, in its Durable Object mode, loaded with
// signed upserts and point reads of one table spread over 1, 2, 4 and 8
// partitions (each partition is a Durable Object of its own), each client
// keeping to one partition: once with the same clients for each partition
// (the load grows with the objects), once with 8 partitions' worth of
// clients whatever the number of partitions (the same load over more
// objects); then cross-partition table scans of 8 partitions. Prints
// requests per second and workerd's CPU time per request (user + system,
// from /proc: the runtime's own HTTP and the front's hop to the object
// included, so an upper bound on what the Worker spends), a row per run,
// rounds times over, then the medians.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { startOnFreePorts } from "./runtime.mjs";
import { tableRequest } from "./signed.mjs";

const [dir, seconds = "10", perPartition = "2", rounds = "1"] = process.argv.slice(2);
if (!dir) throw new Error("usage: node load.mjs DIR [seconds] [clients per partition] [rounds]");
const ticks = 100; // USER_HZ: /proc counts CPU time in hundredths of a second

// workerdCPU is the CPU seconds the workerd processes under this one have used.
function workerdCPU() {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let stat;
    try { stat = readFileSync(`/proc/${pid}/stat`, "utf8"); } catch { continue; }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (name === "workerd" && +f[1] === process.pid) total += (+f[11] + +f[12]) / ticks;
  }
  return total;
}

const account = { name: "load", key: randomBytes(32).toString("base64") };
const opts = { account: account.name, key: account.key };
const vars = { TABLELAB_ACCOUNTS: `${account.name}:${account.key}` };

// withWorker runs fn(base) against a fresh Worker, then stops it.
async function withWorker(fn) {
  const persist = mkdtempSync(path.join(tmpdir(), "tablelab-load-"));
  const { mf, ports: { table } } = await startOnFreePorts({ dir, persist, vars });
  const base = `http://127.0.0.1:${table}`;
  try {
    const r = await tableRequest(base, "POST", `/${account.name}/Tables`, { ...opts, body: { TableName: "load" } });
    if (r.status !== 201) throw new Error(`create table: ${r.status} ${await r.text()}`);
    return await fn(base);
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

// measure runs clients loops of one(i, n) for a second of warm-up, then
// for seconds, and returns requests per second and CPU ms per request.
async function measure(clients, one) {
  let n = 0;
  const until = async (i, t) => { while (Date.now() < t) await one(i, n++); };
  const loops = (t) => Promise.all(Array.from({ length: clients }, (_, i) => until(i, t)));
  await loops(Date.now() + 1000);
  const cpu0 = workerdCPU(), n0 = n, t0 = performance.now();
  await loops(Date.now() + +seconds * 1000);
  const done = n - n0, secs = (performance.now() - t0) / 1000, cpu = workerdCPU() - cpu0;
  return { rate: done / secs, cpuMs: (1000 * cpu) / done };
}

function check(r) {
  if (r.status >= 300 && r.status !== 404) throw new Error(`status ${r.status}`);
}

const results = new Map();
function record(label, k, clients, rate, cpuMs) {
  console.log(`| ${label} | ${k} | ${clients} | ${rate.toFixed(1)} | ${cpuMs.toFixed(2)} |`);
  const key = `${label} | ${k} | ${clients}`;
  if (!results.has(key)) results.set(key, []);
  results.get(key).push([rate, cpuMs]);
}

async function partitions(k, clients, label) {
  const { rate, cpuMs } = await withWorker((base) => measure(clients, async (i, n) => {
    const key = `(PartitionKey='p${i % k}',RowKey='r${n % 50}')`;
    const r = n % 2 === 0
      ? await tableRequest(base, "PUT", `/${account.name}/load${key}`, { ...opts, body: { N: n, Text: "x".repeat(100) } })
      : await tableRequest(base, "GET", `/${account.name}/load${key}`, opts);
    await r.arrayBuffer();
    check(r);
  }));
  record(label, k, clients, rate, cpuMs);
}

// scans loads 8 partitions of 50 entities, then times table scans, which
// visit every partition.
async function scans() {
  const { rate, cpuMs } = await withWorker(async (base) => {
    for (let p = 0; p < 8; p++) for (let r = 0; r < 50; r++) {
      const res = await tableRequest(base, "PUT", `/${account.name}/load(PartitionKey='p${p}',RowKey='r${r}')`, { ...opts, body: { N: r, Text: "x".repeat(100) } });
      await res.arrayBuffer();
      check(res);
    }
    return measure(2, async () => {
      const r = await tableRequest(base, "GET", `/${account.name}/load()?$filter=N%20lt%2025`, opts);
      const page = await r.json();
      check(r);
      if (page.value.length !== 200) throw new Error(`a scan returned ${page.value.length}`);
    });
  });
  record("table scans, 8 partitions (400 entities, 200 returned)", 8, 2, rate, cpuMs);
}

console.log(`| requests | partitions (Durable Objects) | clients | requests/s | workerd CPU ms/request |`);
console.log(`|---|---|---|---|---|`);
for (let round = 0; round < +rounds; round++) {
  for (const k of [1, 2, 4, 8]) {
    await partitions(k, k * +perPartition, "upserts and point reads, clients per partition");
    await partitions(k, 8 * +perPartition, "upserts and point reads, clients fixed");
  }
  await scans();
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\nMedians of ${rounds} rounds:\n`);
console.log(`| requests | partitions (Durable Objects) | clients | requests/s | workerd CPU ms/request |`);
console.log(`|---|---|---|---|---|`);
for (const [key, runs] of results) {
  console.log(`| ${key} | ${median(runs.map((r) => r[0])).toFixed(1)} | ${median(runs.map((r) => r[1])).toFixed(2)} |`);
}
