// tablelab as a Cloudflare Worker: the entry module.
//
// syumai/workers' own entry starts a Go runtime for every request and lets
// it end with the response, so nothing in memory outlives a request. Here
// one runtime per isolate is started on the first request and kept: the
// Go side registers handleRequest on its binding (workers.ServeNonBlock),
// says it is ready, and then waits for ever. A runtime that ends anyway
// (a panic the Go side could not catch) is replaced on the next request.
import "./wasm_exec.js";
import mod from "./app.wasm";

// start runs a Go runtime with context as its globalThis.context (the
// wasm_exec.js of syumai/workers hands each runtime its own) and resolves
// once the Go side is ready, to {binding, exited}.
function start(context) {
  const go = new Go();
  let ready;
  const isReady = new Promise((resolve) => { ready = resolve; });
  const instance = new WebAssembly.Instance(mod, {
    ...go.importObject,
    workers: { ready: () => ready() },
  });
  const exited = go.run(instance, context);
  return Promise.race([
    isReady.then(() => ({ binding: context.binding, exited })),
    exited.then(() => { throw new Error("the Go runtime ended before it was ready"); }),
  ]);
}

// died is the answer to a request whose runtime ended under it.
function died() {
  return new Response("tablelab: the Go runtime ended while answering; the next request starts a new one\n", {
    status: 500,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

// serve hands request to the runtime the holder keeps (an object with a
// `runtime` promise), starting one when there is none.
async function serve(holder, context, request) {
  if (!holder.runtime) {
    const started = start(context());
    holder.runtime = started;
    started.then(
      (rt) => rt.exited.then(() => { if (holder.runtime === started) holder.runtime = undefined; }),
      () => { if (holder.runtime === started) holder.runtime = undefined; },
    );
  }
  const rt = await holder.runtime;
  return Promise.race([rt.binding.handleRequest(request), rt.exited.then(died)]);
}

// serviceOf names the service a request is for, as the Go side's
// config.serviceOf does: a port of TABLELAB_PORTS (Blob, Queue, Table;
// the development storage's by default), else a host's service label
// (account.blob.…, blob.…), else the Table service.
function serviceOf(request, env) {
  const url = new URL(request.url);
  const ports = (env.TABLELAB_PORTS ?? "10000,10001,10002").split(",").map((p) => p.trim());
  const byPort = ["blob", "queue", "table"][ports.indexOf(url.port)];
  if (url.port && byPort) return byPort;
  const labels = url.hostname.split(".");
  for (const svc of ["blob", "queue"]) {
    if (labels[0] === svc || labels[1] === svc) return svc;
  }
  return "table";
}

// The isolate's Go runtime: the front's and every Durable Object's in the
// isolate. An isolate holds many objects (a table's partitions are objects),
// and a runtime each would spend the isolate's 128 MB on copies of one heap.
const shared = {};

// The storage of each object's request in flight, by call: the Go side
// asks for it with the call's number (sqlOf).
const calls = new Map();
let lastCall = 0;
let lastInstance = 0;

// context is what the runtime is handed: the Worker's env, and how the Go
// side reaches the objects and their storage.
function context(env) {
  return {
    env,
    binding: {},
    durable: !!env.OBJECTS && env.TABLELAB_STORAGE !== "memory",
    sqlOf: (call) => calls.get(call),
    callObject(name, url, init) {
      const request = new Request(url, init);
      request.headers.set("x-tablelab-object", name);
      return env.OBJECTS.get(env.OBJECTS.idFromName(name)).fetch(request);
    },
  };
}

// internalHeader names the headers the front and the objects speak in; a
// client's are removed. The test hook stays (answered only with
// TABLELAB_DEV=1).
const internalHeader = /^x-tablelab-(?!test-panic$)/;

export default {
  // The Table service is routed by the Go side (each partition of a table
  // is a Durable Object); each account's Queue and Blob services are one
  // object each, and the request goes there unchanged: the object checks
  // its signature. In the memory mode the runtime answers everything from
  // stores that live as long as the isolate (each isolate its own:
  // ephemeral).
  fetch(request, env) {
    const clean = new Request(request);
    for (const name of [...clean.headers.keys()]) {
      if (internalHeader.test(name)) clean.headers.delete(name);
    }
    const service = serviceOf(request, env);
    if (service === "table" || env.TABLELAB_STORAGE === "memory" || !env.OBJECTS) {
      return serve(shared, () => context(env), clean);
    }
    const account = new URL(request.url).pathname.split("/")[1] ?? "";
    const name = service + "/" + account.toLowerCase();
    clean.headers.set("x-tablelab-object", name);
    return env.OBJECTS.get(env.OBJECTS.idFromName(name)).fetch(clean);
  },
};

// StoreObject is a SQLite-backed Durable Object: a partition of a table, an
// account's Table directory, or its Queue or Blob store, as its name says.
// The isolate's Go runtime answers for it, handed the object's storage.sql
// (whose synchronous exec needs no callback) for the request's call. Each
// life of an object has its own instance number: a runtime that last saw
// the object in another life reads its state again, since another isolate
// may have written it meanwhile.
export class StoreObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
    this.instance = `${++lastInstance}.${Math.random().toString(36).slice(2)}`;
  }

  async fetch(request) {
    const call = String(++lastCall);
    calls.set(call, this.ctx.storage.sql);
    const r = new Request(request);
    r.headers.set("x-tablelab-call", call);
    r.headers.set("x-tablelab-instance", this.instance);
    try {
      return await serve(shared, () => context(this.env), r);
    } finally {
      calls.delete(call);
    }
  }
}
