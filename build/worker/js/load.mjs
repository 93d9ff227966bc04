// node load.mjs DIR [seconds] [clients]: the Worker in DIR under workerd
// on 127.0.0.1, loaded with signed upserts and point reads spread over 1,
// 2, 4 and 8 accounts (each account's Table store is a Durable Object of
// its own), then once in the memory mode. Prints requests per second and
// workerd's CPU time per request (user + system, from /proc: the runtime's
// own HTTP work included, so an upper bound on what the Worker spends).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePorts, startWorker } from "./runtime.mjs";
import { tableRequest } from "./signed.mjs";

const [dir, seconds = "10", clients = "16"] = process.argv.slice(2);
if (!dir) throw new Error("usage: node load.mjs DIR [seconds] [clients]");
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

async function run(label, accounts, vars) {
  const persist = mkdtempSync(path.join(tmpdir(), "tablelab-load-"));
  const [blob, queue, table] = await freePorts(3);
  const mf = await startWorker({ dir, persist, ports: { blob, queue, table }, vars });
  const base = `http://127.0.0.1:${table}`;
  try {
    for (const a of accounts) {
      const r = await tableRequest(base, "POST", `/${a.name}/Tables`, { body: { TableName: "load" }, account: a.name, key: a.key });
      if (r.status !== 201) throw new Error(`create table: ${r.status} ${await r.text()}`);
    }
    const one = async (n) => {
      const a = accounts[n % accounts.length];
      const key = `(PartitionKey='p${(n >> 3) % 100}',RowKey='r${n % 50}')`;
      const opts = { account: a.name, key: a.key };
      const r = n % 2 === 0
        ? await tableRequest(base, "PUT", `/${a.name}/load${key}`, { ...opts, body: { N: n, Text: "x".repeat(100) } })
        : await tableRequest(base, "GET", `/${a.name}/load${key}`, opts);
      await r.arrayBuffer();
      if (r.status >= 500) throw new Error(`status ${r.status}`);
    };
    // A second of warm-up: every object started, every runtime compiled.
    let n = 0;
    const until = async (t) => { while (Date.now() < t) await one(n++); };
    await Promise.all(Array.from({ length: +clients }, () => until(Date.now() + 1000)));
    const cpu0 = workerdCPU(), n0 = n, t0 = performance.now();
    const end = Date.now() + +seconds * 1000;
    await Promise.all(Array.from({ length: +clients }, () => until(end)));
    const done = n - n0, secs = (performance.now() - t0) / 1000, cpu = workerdCPU() - cpu0;
    console.log(`| ${label} | ${accounts.length} | ${clients} | ${Math.round(done / secs)} | ${(1000 * cpu / done).toFixed(2)} |`);
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

const all = Array.from({ length: 8 }, (_, i) => ({ name: `load${i}`, key: randomBytes(32).toString("base64") }));
const spec = (list) => list.map((a) => `${a.name}:${a.key}`).join(";");
console.log(`| storage | accounts (Durable Objects) | clients | requests/s | workerd CPU ms/request |`);
console.log(`|---|---|---|---|---|`);
for (const k of [1, 2, 4, 8]) {
  const accounts = all.slice(0, k);
  await run("durable", accounts, { TABLELAB_ACCOUNTS: spec(accounts) });
}
await run("memory", all.slice(0, 1), { TABLELAB_ACCOUNTS: spec(all.slice(0, 1)), TABLELAB_STORAGE: "memory" });
