// The wasm benchmark's bridge column: the requests of wasm/bench (the same
// workload, made the same way) sent from JavaScript through
// globalThis.tablelab.serve, one awaited call each, as the worker makes
// them. Prints the lines of wasm/bench: name, operations, ns of CPU time
// per operation.
//
//   TABLELAB_ENGINE_DIR=dir node bench.mjs [n]
import { loadHere } from "./page.mjs";
import { lines, request } from "./workload.mjs";

const n = Number(process.argv[2] ?? 10000);
const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");

const tablelab = await loadHere(dir);
const sas = await tablelab.sas();
// pass runs the workload for n entities on the named store, printing its
// lines when print is set. A first, smaller pass warms the runtime up, as
// wasm/bench does.
const pass = async (store, n, print) => {
  for (const t of ["Bench", "Batch"]) {
    const resp = await tablelab.serve(store, request("POST", "Tables", sas, `{"TableName":"${t}"}`, "application/json"));
    if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`create ${t}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
  }
  for (const line of lines(n)) {
    // The requests' text is made before the clock starts, as in
    // wasm/bench, and each is a structured clone, as worker.js receives a
    // request from the page's postMessage: flat text, where
    // concatenation leaves a rope that the first encoding must copy.
    const reqs = Array.from({ length: line.ops }, (_, i) => {
      const [method, target, body, contentType] = line.req(i);
      return structuredClone(request(method, target, sas, body, contentType));
    });
    // CPU time, as wasm/bench measures.
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
    const want = `\r\nX-Tablelab-Returned: ${line.returned}\r\n`;
    const start = cpu();
    // One awaited call per request, as worker.js's onmessage makes it.
    for (const req of reqs) {
      const resp = await tablelab.serve(store, req);
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
