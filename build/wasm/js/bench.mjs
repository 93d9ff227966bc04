// The wasm benchmark's bridge column: the requests of wasm/bench (the same
// workload, made the same way) handed to worker.js's onmessage one message
// each, as the page's postMessage hands them to the worker, and answered
// in the same turn, as the worker answers a store in memory. Prints the
// lines of wasm/bench: name, operations, ns of CPU time per operation.
//
//   TABLELAB_ENGINE_DIR=dir node bench.mjs [n]
import { loadHere } from "./page.mjs";
import { lines, request } from "./workload.mjs";

const n = Number(process.argv[2] ?? 10000);
const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");

const tablelab = await loadHere(dir);
const sas = await tablelab.sas();
// The worker's answers, caught where postMessage would send them.
let answer = null;
globalThis.postMessage = (msg) => (answer = msg);
// pass runs the workload for n entities on the named store, printing its
// lines when print is set. A first, smaller pass warms the runtime up, as
// wasm/bench does.
const pass = async (store, n, print) => {
  for (const t of ["Bench", "Batch"]) {
    const resp = await tablelab.serve(store, request("POST", "Tables", sas, `{"TableName":"${t}"}`, "application/json"));
    if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`create ${t}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
  }
  for (const line of lines(n)) {
    // The messages are made before the clock starts, as the requests are
    // in wasm/bench, and each is a structured clone, as the worker
    // receives it from the page's postMessage: its request is flat text,
    // where concatenation leaves a rope that the first encoding must copy.
    const msgs = Array.from({ length: line.ops }, (_, i) => {
      const [method, target, body, contentType] = line.req(i);
      return structuredClone({ id: i, store, req: request(method, target, sas, body, contentType) });
    });
    // CPU time, as wasm/bench measures.
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
    const want = `\r\nX-Tablelab-Returned: ${line.returned}\r\n`;
    const start = cpu();
    for (const data of msgs) {
      // All the worker does for a message but post the answer.
      answer = null;
      self.onmessage({ data });
      if (answer === null) throw new Error(`${line.name}: not answered in the turn the message came in`);
      const resp = answer.resp;
      if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`${line.name}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
      if (line.returned && !resp.includes(want)) throw new Error(`${line.name}: not ${line.returned} entities returned`);
    }
    const ns = (cpu() - start) / line.ops;
    if (print) console.log(`${line.name}\t${line.ops}\t${Math.round(ns)}`);
  }
};
await pass("warm-up", Math.max(Math.floor(n / 5), 1000), false);
await pass("bench", n, true);
process.exit(0);
