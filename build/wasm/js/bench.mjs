// The wasm benchmark's bridge column: the requests of wasm/bench (the same
// workload, made the same way) sent from JavaScript through
// globalThis.tablelab.serve, one awaited call each, as the worker makes
// them. Prints the lines of wasm/bench: name, operations, ns of CPU time
// per operation.
//
//   TABLELAB_ENGINE_DIR=dir node bench.mjs [n]
import { loadHere } from "./page.mjs";

const n = Number(process.argv[2] ?? 10000);
const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");

const partitionSize = 1000;
const pad = (i, w) => String(i).padStart(w, "0");
const pk = (i) => "p" + pad(Math.floor(i / partitionSize), 4);
const rk = (i) => pad(i, 7);
const entity = (i) =>
  `{"PartitionKey":"${pk(i)}","RowKey":"${rk(i)}","N":${i},"Name":"customer ${i}","Amount":${i}.5,"Active":true}`;
const escape = (s) => s.replaceAll(" ", "%20").replaceAll("'", "%27");
const batch = (i) => {
  let b = "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n";
  for (let j = 0; j < 100; j++) {
    b += "--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n";
    b += "POST http://127.0.0.1:10002/devstoreaccount1/Batch HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n\r\n";
    b += entity(i * 100 + j) + "\r\n";
  }
  return b + "--changeset_c--\r\n--batch_b--\r\n";
};
const request = (method, target, sas, body = "", contentType = "") =>
  `${method} /devstoreaccount1/${target}${target.includes("?") ? "&" : "?"}${sas} HTTP/1.1\r\n` +
  "Host: 127.0.0.1:10002\r\nAccept: application/json;odata=nometadata\r\nx-ms-version: 2019-02-02\r\n" +
  (contentType ? `Content-Type: ${contentType}\r\n` : "") + "\r\n" + body;

const lines = (n) => {
  const repeat = Math.max(Math.floor(n / 500), 4);
  return [
  { name: "insert", ops: n, req: (i) => ["POST", "Bench", entity(i), "application/json"] },
  { name: "point read", ops: n, returned: 1, req: (i) => {
    const j = (i * 7919) % n;
    return ["GET", `Bench(PartitionKey='${pk(j)}',RowKey='${rk(j)}')`];
  } },
  { name: "partition scan (1,000)", ops: repeat, returned: Math.min(n, partitionSize), req: (i) =>
    ["GET", "Bench()?$filter=" + escape(`PartitionKey eq '${pk((i % Math.max(Math.floor(n / partitionSize), 1)) * partitionSize)}'`)] },
  { name: "filtered table scan", ops: repeat, returned: 10, req: (i) => {
    const lo = (i * 37) % (n - 10);
    return ["GET", "Bench()?$filter=" + escape(`N ge ${lo} and N lt ${lo + 10}`)];
  } },
  { name: "batch of 100 inserts", ops: Math.floor(n / 100), req: (i) => ["POST", "$batch", batch(i), "multipart/mixed; boundary=batch_b"] },
  ];
};

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
