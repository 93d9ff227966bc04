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
  const serve = async (method, target, body, contentType) => {
    const resp = await tablelab.serve(store, request(method, target, sas, body, contentType));
    if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`${method} ${target}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
    return resp;
  };
  for (const t of ["Bench", "Batch"]) await serve("POST", "Tables", `{"TableName":"${t}"}`, "application/json");
  for (const line of lines(n)) {
    // The requests are made before the clock starts, as in wasm/bench.
    const reqs = Array.from({ length: line.ops }, (_, i) => line.req(i));
    // CPU time, as wasm/bench measures.
    const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
    const start = cpu();
    for (const [method, target, body, ct] of reqs) {
      const resp = await serve(method, target, body, ct);
      if (line.returned && !resp.includes(`\r\nX-Tablelab-Returned: ${line.returned}\r\n`)) {
        throw new Error(`${line.name}: not ${line.returned} entities returned`);
      }
    }
    const ns = (cpu() - start) / line.ops;
    if (print) console.log(`${line.name}\t${line.ops}\t${Math.round(ns)}`);
  }
};
await pass("warm-up", Math.max(Math.floor(n / 5), 1000), false);
await pass("bench", n, true);
process.exit(0);
