// The storage engine in a Web Worker: loads the Go runtime's glue
// (wasm_exec.js) and app.wasm beside this file, then answers the page's
// messages (contract 3 of docs/architecture.md):
//
//   page → worker  {id, store, req}            req: a raw HTTP/1.1 request,
//                                              a string or a Uint8Array
//   worker → page  {id, resp}                  resp: the raw HTTP/1.1 response,
//                                              of the same kind as req
//   page → worker  {id, store, op, data}       op: reset | export |
//                                              import (data: an export's text) |
//                                              replace (data: an export's text) |
//                                              clone (data: the target store) |
//                                              advance (data: seconds) |
//                                              hold | release | sas
//   worker → page  {id, result} or {id, error}
//   worker → page  {ready: true}               once, when the engine runs
//
// A request goes to the service its Host header names: 127.0.0.1:10000
// Blob, :10001 Queue, :10002 Table. A request whose body is binary (a
// blob's) must be a Uint8Array: a string crosses as UTF-8 text. The store
// named "playground" is kept in IndexedDB (tablelabIDB below), one log per
// service; any other name is a fresh store in memory.
//
// A page of another origin cannot start this worker from its URL; it
// starts a blob: worker of its own origin that sets self.tablelabBase to
// this file's URL and importScripts it (site/play/workers.js). The files
// beside this one are then found from tablelabBase, since self.location
// is the blob's.
"use strict";

const base = self.tablelabBase ?? self.location.href;
importScripts(new URL("wasm_exec.js", base).href);

// tablelabIDB is the Go side's medium (wasm/browser/indexeddb.go): a store's
// snapshot and the journal records written since, one IndexedDB
// transaction per call, so a record (a whole batch) is stored whole or not
// at all, and records commit in the order they were appended.
if (typeof indexedDB !== "undefined") {
  const dbName = "tablelab";
  let opened;
  const db = () =>
    (opened ??= new Promise((resolve, reject) => {
      const open = indexedDB.open(dbName, 1);
      open.onupgradeneeded = () => {
        open.result.createObjectStore("log"); // key [store, seq] → bytes
        open.result.createObjectStore("snapshots"); // key store → {bytes, upto}
      };
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    }));
  // run calls fn with a transaction over names and settles with fn's
  // result once the transaction has committed.
  const run = async (names, mode, fn) => {
    const tx = (await db()).transaction(names, mode);
    const result = fn(tx);
    return new Promise((resolve, reject) => {
      tx.oncomplete = () => resolve(typeof result === "function" ? result() : result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
    });
  };
  const range = (name, upto = Infinity) => IDBKeyRange.bound([name, 0], [name, upto]);
  globalThis.tablelabIDB = {
    load: (name) =>
      run(["log", "snapshots"], "readonly", (tx) => {
        let snap, keys, values;
        tx.objectStore("snapshots").get(name).onsuccess = (e) => (snap = e.target.result);
        tx.objectStore("log").getAllKeys(range(name)).onsuccess = (e) => (keys = e.target.result);
        tx.objectStore("log").getAll(range(name)).onsuccess = (e) => (values = e.target.result);
        return () => {
          // The records after the snapshot, up to the first missing one:
          // a record whose transaction failed ends what was stored.
          const upto = snap ? snap.upto : 0;
          const records = [];
          let seq = upto;
          keys.forEach((k, i) => {
            if (k[1] !== seq + 1) return; // compacted, or after a gap
            records.push(values[i]);
            seq = k[1];
          });
          return { snapshot: snap ? snap.bytes : null, records, seq };
        };
      }),
    append: (name, seq, bytes) => run(["log"], "readwrite", (tx) => void tx.objectStore("log").put(bytes, [name, seq])),
    compact: (name, bytes, upto) =>
      run(["log", "snapshots"], "readwrite", (tx) => {
        tx.objectStore("snapshots").put({ bytes, upto }, name);
        tx.objectStore("log").delete(range(name, upto));
      }),
    clear: (name) =>
      run(["log", "snapshots"], "readwrite", (tx) => {
        tx.objectStore("snapshots").delete(name);
        tx.objectStore("log").delete(range(name));
      }),
  };
}

// tablelab is the engine's API, each method returning a Promise. Go's side
// (wasm/browser/main.go) is tablelabStart(id, "op\nstore\ndata"), which
// returns at once and answers later through tablelabSettle. Store names
// hold no line break.
const pending = new Map();
let nextCall = 0;
globalThis.tablelabSettle = (id, result, error) => {
  const p = pending.get(id);
  pending.delete(id);
  if (error != null) p.reject(new Error(error));
  else p.resolve(result ?? undefined);
};
const call = (op, store = "", data = "", bytes = undefined) =>
  new Promise((resolve, reject) => {
    const id = ++nextCall;
    pending.set(id, { resolve, reject });
    tablelabStart(id, `${op}\n${store.replaceAll("\n", " ")}\n${data}`, bytes);
  });
// serveDirect answers a request to a store in memory with one plain call
// of the module's exports (wasm/browser/direct.go): the request's bytes
// are written into Go's memory and the response read back from it, with
// none of syscall/js's per-call bookkeeping. It returns null when the
// module declines (the playground, which waits for IndexedDB).
let exports = null;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Go's buffer as a view, kept from call to call: the buffer moves only
// when a call needs more than it holds, and the view dies only then or
// when the memory grows. known is what the buffer is known to hold.
let view = null;
let known = 0;
// The store the last request named, encoded: requests come to one store
// after another.
let lastStore = null;
let storeBytes = null;
const buffer = (n) => {
  const at = exports.tablelabBuffer(n); // may grow the memory
  known = Math.max(known, n);
  view = new Uint8Array(exports.mem.buffer, at, known);
};
const serveDirect = (store, req) => {
  if (exports === null || store === "playground") return null;
  const text = typeof req === "string";
  if (store !== lastStore) {
    storeBytes = encoder.encode(store);
    lastStore = store;
  }
  // encodeInto writes straight into Go's memory: a UTF-16 unit takes at
  // most three bytes of UTF-8. The store's name follows the request.
  const room = (text ? 3 * req.length : req.length) + storeBytes.length;
  if (view === null || room > known || view.buffer !== exports.mem.buffer) buffer(room);
  let r = req.length;
  if (text) r = encoder.encodeInto(req, view).written;
  else view.set(req);
  view.set(storeBytes, r);
  const n = exports.tablelabServeDirect(storeBytes.length, r);
  if (n < 0) return null;
  // A response longer than the buffer moved it; a growing memory moved
  // everything.
  if (n > known || view.buffer !== exports.mem.buffer) buffer(n);
  const out = view.subarray(0, n);
  return text ? decoder.decode(out) : out.slice();
};
// asRequest is a request as serve takes it: text, or bytes of its own.
const asRequest = (req) => {
  if (typeof req === "string" || req instanceof Uint8Array) return req;
  if (req instanceof ArrayBuffer) return new Uint8Array(req);
  if (ArrayBuffer.isView(req)) return new Uint8Array(req.buffer, req.byteOffset, req.byteLength);
  return String(req);
};
globalThis.tablelab = {
  serve: (store, req) => {
    req = asRequest(req);
    const resp = serveDirect(String(store), req);
    if (resp !== null) return Promise.resolve(resp);
    return typeof req === "string" ? call("serve", store, req) : call("serve", store, "", req);
  },
  reset: (store) => call("reset", store),
  export: (store) => call("export", store),
  import: (store, text) => call("import", store, text),
  replace: (store, text) => call("replace", store, text),
  clone: (store, target) => call("clone", store, String(target).replaceAll("\n", " ")),
  advance: (store, seconds) => call("advance", store, String(Number(seconds))),
  hold: (store) => call("hold", store),
  release: (store) => call("release", store),
  sas: () => call("sas"),
};

const started = new Promise((resolve) => (globalThis.tablelabStarted = resolve));

(async () => {
  const go = new Go();
  const url = new URL("app.wasm", base);
  const { instance } =
    typeof WebAssembly.instantiateStreaming === "function"
      ? await WebAssembly.instantiateStreaming(fetch(url), go.importObject)
      : await WebAssembly.instantiate(await (await fetch(url)).arrayBuffer(), go.importObject);
  // go.run settles only when the program exits, which it never does: not
  // awaited. main defines tablelabStart, then calls tablelabStarted.
  go.run(instance);
  await started;
  exports = instance.exports;
  postMessage({ ready: true });
})().catch((err) => {
  // The page learns of a failed start from the worker's error event.
  setTimeout(() => {
    throw err;
  });
});

const ops = {
  reset: (store) => tablelab.reset(store),
  export: (store) => tablelab.export(store),
  import: (store, data) => tablelab.import(store, String(data ?? "")),
  replace: (store, data) => tablelab.replace(store, String(data ?? "")),
  clone: (store, data) => tablelab.clone(store, String(data ?? "")),
  advance: (store, data) => tablelab.advance(store, data),
  hold: (store) => tablelab.hold(store),
  release: (store) => tablelab.release(store),
  sas: () => tablelab.sas(),
};

// reply answers a request: bytes move to the page rather than being
// copied, and text needs no list of what moves.
const reply = (id, resp) => (typeof resp === "string" ? postMessage({ id, resp }) : postMessage({ id, resp }, [resp.buffer]));

// handle answers a message the general way: after the engine has started,
// and for the playground's requests once IndexedDB has stored their
// changes.
const handle = async ({ id, store = "", req, op, data }) => {
  await started;
  if (req !== undefined && req !== null) {
    reply(id, await tablelab.serve(String(store), req));
    return;
  }
  try {
    if (!Object.hasOwn(ops, op)) throw new Error(`unknown op ${JSON.stringify(op)}`);
    postMessage({ id, result: await ops[op](String(store), data) });
  } catch (err) {
    postMessage({ id, error: String(err && err.message ? err.message : err) });
  }
};

// A request to a store in memory is answered in the turn it came in, with
// no Promise or await between the message and its answer: they would cost
// each answer time and garbage for nothing it waits on. The rest, and all
// that comes before the engine has started, takes handle's way.
self.onmessage = (e) => {
  const msg = e.data ?? {};
  const { id, store = "", req } = msg;
  if (exports !== null && req !== undefined && req !== null) {
    const resp = serveDirect(String(store), asRequest(req));
    if (resp !== null) return reply(id, resp);
  }
  handle(msg);
};
