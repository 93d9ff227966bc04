// The wasm benchmark in headless Chromium: the workload of wasm/bench
// (workload.mjs) against worker.js and app.wasm in a real Web Worker,
// served from 127.0.0.1. Two ways in, chosen by the second argument:
//
//   worker  the requests made inside the Worker and sent through
//           tablelab.serve, one awaited call each (bench.mjs's bridge,
//           in Chromium's V8 instead of Node's);
//   page    the requests made on the page and posted to worker.js, one
//           message and one awaited answer each, as the site does.
//
// Prints wasm/bench's lines: name, operations, ns per operation. The
// time is the page's or the Worker's clock (performance.now), not CPU
// time: Chromium's processes are not this one's children to account.
//
//   TABLELAB_ENGINE_DIR=dir node bench-chromium.mjs [n] [worker|page]
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { launch } from "../../browser/chromium.mjs";

const n = Number(process.argv[2] ?? 10000);
const way = process.argv[3] ?? "page";
if (way !== "page" && way !== "worker") throw new Error(`unknown way ${way}: worker or page`);
const dir = process.env.TABLELAB_ENGINE_DIR;
if (!dir) throw new Error("TABLELAB_ENGINE_DIR is not set");

// pass is the workload as the page or the Worker runs it: serve(store,
// req) answers one request. A first, smaller pass warms the engine up.
const pass = String(async function pass(serve, lines, request, sas, store, n, print) {
  const out = [];
  const call = async (method, target, body, contentType) => {
    const resp = await serve(store, request(method, target, sas, body, contentType));
    if (!resp.startsWith("HTTP/1.1 2")) throw new Error(`${method} ${target}: ${resp.slice(0, resp.indexOf("\r\n"))}`);
    return resp;
  };
  for (const t of ["Bench", "Batch"]) await call("POST", "Tables", `{"TableName":"${t}"}`, "application/json");
  for (const line of lines(n)) {
    const reqs = Array.from({ length: line.ops }, (_, i) => line.req(i));
    const start = performance.now();
    for (const [method, target, body, ct] of reqs) {
      const resp = await call(method, target, body, ct);
      if (line.returned && !resp.includes(`\r\nX-Tablelab-Returned: ${line.returned}\r\n`)) {
        throw new Error(`${line.name}: not ${line.returned} entities returned`);
      }
    }
    const ns = ((performance.now() - start) * 1e6) / line.ops;
    if (print) out.push(`${line.name}\t${line.ops}\t${Math.round(ns)}`);
  }
  return out;
});

const warm = Math.max(Math.floor(n / 5), 1000);

// The Worker that runs the workload itself: worker.js, then the passes.
const benchWorker = `
const announce = self.postMessage.bind(self);
let engineReady;
const engineStarted = new Promise((resolve) => (engineReady = resolve));
self.postMessage = (msg) => (msg && msg.ready ? engineReady() : announce(msg));
importScripts("worker.js");
self.onmessage = async () => {
  try {
    await engineStarted;
    const { lines, request } = await import("./workload.mjs");
    const serve = (store, req) => tablelab.serve(store, req);
    const sas = await tablelab.sas();
    const pass = ${pass};
    await pass(serve, lines, request, sas, "warm-up", ${warm}, false);
    announce({ lines: await pass(serve, lines, request, sas, "bench", ${n}, true) });
  } catch (err) {
    announce({ error: String(err && err.stack ? err.stack : err) });
  }
};`;

const page = `<!doctype html><meta charset="utf-8"><title>bench</title>
<script type="module">
import { lines, request } from "./workload.mjs";
const pass = ${pass};
window.bench = async () => {
  if (${JSON.stringify(way)} === "worker") {
    const w = new Worker("bench-worker.js");
    return await new Promise((resolve, reject) => {
      w.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve(e.data.lines));
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage("go");
    });
  }
  const w = new Worker("worker.js");
  const waiting = new Map();
  let next = 0;
  let ready;
  const started = new Promise((resolve) => (ready = resolve));
  w.onmessage = (e) => {
    if (e.data.ready) return ready();
    const p = waiting.get(e.data.id);
    waiting.delete(e.data.id);
    e.data.error !== undefined ? p.reject(new Error(e.data.error)) : p.resolve(e.data.resp ?? e.data.result);
  };
  const post = (msg) => new Promise((resolve, reject) => {
    const id = ++next;
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, ...msg });
  });
  await started;
  const serve = (store, req) => post({ store, req });
  const sas = await post({ op: "sas" });
  await pass(serve, lines, request, sas, "warm-up", ${warm}, false);
  return await pass(serve, lines, request, sas, "bench", ${n}, true);
};
</script>`;

const files = {
  "/": ["text/html", () => page],
  "/bench-worker.js": ["text/javascript", () => benchWorker],
  "/workload.mjs": ["text/javascript", () => readFileSync(new URL("./workload.mjs", import.meta.url))],
  "/worker.js": ["text/javascript", () => readFileSync(join(dir, "worker.js"))],
  "/wasm_exec.js": ["text/javascript", () => readFileSync(join(dir, "wasm_exec.js"))],
  "/app.wasm": ["application/wasm", () => readFileSync(join(dir, "app.wasm"))],
};
const server = createServer((req, res) => {
  const f = files[new URL(req.url, "http://127.0.0.1").pathname];
  if (!f) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": f[0] }).end(f[1]());
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const { context, close } = await launch();
try {
  const tab = await context.newPage();
  const errors = [];
  tab.on("pageerror", (err) => errors.push(String(err)));
  await tab.goto(`http://127.0.0.1:${server.address().port}/`);
  await tab.waitForFunction(() => typeof window.bench === "function");
  const lines = await tab.evaluate(() => window.bench());
  if (errors.length) throw new Error(errors.join("\n"));
  console.log(lines.join("\n"));
} finally {
  await close();
  server.close();
}
