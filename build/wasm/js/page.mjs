// A stand-in for a page holding the engine's Web Worker, under Node: each
// load() runs wasm_exec.js and worker.js afresh in a VM context of their
// own (as a reload gives a worker a fresh global scope), with a shared
// IndexedDB when asked, so a second load() sees what the first stored.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL, fileURLToPath } from "node:url";
import vm from "node:vm";

/**
 * load starts worker.js from dir (app.wasm, wasm_exec.js and worker.js, as
 * the site build lays out dist/engine/) and resolves, once the worker has
 * said {ready: true}, to call(message) → Promise of the worker's answer,
 * and the context's globals (for the benchmark, which calls
 * globalThis.tablelab directly).
 */
export async function load(dir, { indexedDB, IDBKeyRange } = {}) {
  const script = (name) => new vm.Script(readFileSync(join(dir, name), "utf8"), { filename: join(dir, name) });
  const waiting = new Map();
  let onReady;
  const ready = new Promise((resolve) => (onReady = resolve));
  const scope = {
    console, clearTimeout, setInterval, clearInterval, queueMicrotask, structuredClone,
    // The engine's timers (the persistent store's compaction checks) do
    // not keep Node running once the tests are done.
    setTimeout: (fn, ms, ...args) => setTimeout(fn, ms, ...args).unref(),
    TextEncoder, TextDecoder, URL, Response, WebAssembly, performance, crypto,
    // IndexedDB (fake-indexeddb) hands back arrays of this realm, which
    // wasm_exec.js must recognise as Uint8Arrays.
    Uint8Array, ArrayBuffer,
    location: { href: pathToFileURL(join(dir, "worker.js")).href },
    fetch: async (url) => new Response(readFileSync(fileURLToPath(url)), { headers: { "content-type": "application/wasm" } }),
    // worker.js names its neighbours by URL, from its own.
    importScripts: (...names) => names.forEach((n) => script(neighbour(dir, n)).runInContext(context)),
    postMessage: (msg) => {
      // A worker's messages are structured clones.
      msg = structuredClone(msg);
      if (msg.ready) return onReady();
      const settle = waiting.get(msg.id);
      waiting.delete(msg.id);
      settle?.(msg);
    },
  };
  if (indexedDB) Object.assign(scope, { indexedDB, IDBKeyRange });
  scope.self = scope;
  const context = vm.createContext(scope);
  script("worker.js").runInContext(context);
  await ready;
  let next = 0;
  const call = (msg) =>
    new Promise((resolve) => {
      const id = ++next;
      waiting.set(id, resolve);
      context.onmessage({ data: structuredClone({ id, ...msg }) });
    });
  return { call, globals: context };
}

/**
 * loadHere runs worker.js in this process's own global scope, once: no VM
 * context, whose global lookups are slower than a worker's, stands
 * between the caller and the engine. The benchmark measures the bridge
 * this way. Resolves to globalThis.tablelab.
 */
export async function loadHere(dir) {
  let onReady;
  const ready = new Promise((resolve) => (onReady = resolve));
  Object.assign(globalThis, {
    self: globalThis,
    location: { href: pathToFileURL(join(dir, "worker.js")).href },
    fetch: async (url) => new Response(readFileSync(fileURLToPath(url)), { headers: { "content-type": "application/wasm" } }),
    importScripts: (...names) =>
      names.forEach((n) => vm.runInThisContext(readFileSync(join(dir, neighbour(dir, n)), "utf8"), { filename: join(dir, neighbour(dir, n)) })),
    postMessage: (msg) => msg.ready && onReady(),
  });
  vm.runInThisContext(readFileSync(join(dir, "worker.js"), "utf8"), { filename: join(dir, "worker.js") });
  await ready;
  return globalThis.tablelab;
}

// neighbour is the name in dir of a script importScripts was given, a
// name or a URL read against worker.js's.
function neighbour(dir, name) {
  return relative(dir, fileURLToPath(new URL(name, pathToFileURL(join(dir, "worker.js")))));
}

/** request writes a raw HTTP/1.1 request as contract 3 has it. */
export function request(method, target, body = "", headers = {}) {
  const h = { Accept: "application/json;odata=nometadata", "x-ms-version": "2019-02-02", ...headers };
  if (body) h["Content-Type"] = "application/json";
  const lines = Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  return `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:10002\r\n${lines}\r\n${body}`;
}

/** parseResponse reads raw HTTP/1.1 response text. */
export function parseResponse(text) {
  const at = text.indexOf("\r\n\r\n");
  const [statusLine, ...fields] = text.slice(0, at).split("\r\n");
  const headers = {};
  for (const f of fields) {
    const i = f.indexOf(":");
    headers[f.slice(0, i).toLowerCase()] = f.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(" ")[1]), statusLine, headers, body: text.slice(at + 4) };
}

/**
 * message writes a raw HTTP/1.1 request as bytes, for the Queue and Blob
 * services (host picks the service by its port: 127.0.0.1:10000 Blob,
 * :10001 Queue); body is text or a Uint8Array.
 */
export function message(method, target, host, body = "", headers = {}) {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const h = { "x-ms-version": "2021-12-02", ...headers };
  if (bytes.length > 0) h["Content-Length"] = String(bytes.length);
  const lines = Object.entries(h).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  const head = new TextEncoder().encode(`${method} ${target} HTTP/1.1\r\nHost: ${host}\r\n${lines}\r\n`);
  const out = new Uint8Array(head.length + bytes.length);
  out.set(head);
  out.set(bytes, head.length);
  return out;
}

/** parseMessage reads a raw HTTP/1.1 response held as bytes: the body stays bytes, text is its UTF-8. */
export function parseMessage(bytes) {
  let at = 0;
  while (at + 3 < bytes.length && !(bytes[at] === 13 && bytes[at + 1] === 10 && bytes[at + 2] === 13 && bytes[at + 3] === 10)) at++;
  const r = parseResponse(new TextDecoder().decode(bytes.subarray(0, at)) + "\r\n\r\n");
  const body = bytes.subarray(at + 4);
  return { ...r, body, text: new TextDecoder().decode(body) };
}
