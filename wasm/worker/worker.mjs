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

// The runtime of the front, in this isolate.
const front = {};

export default {
  // In the memory mode the front's own runtime answers, from stores that
  // live as long as the isolate (each isolate its own: ephemeral). Else
  // each service's store is a Durable Object, and the front only hands
  // the request on, unchanged: the object checks its signature.
  fetch(request, env, ctx) {
    if (env.TABLELAB_STORAGE === "memory" || !env.OBJECTS) {
      return serve(front, () => ({ env, ctx, binding: {}, role: "front" }), request);
    }
    // One object per service and account: accounts never share a store,
    // and more accounts spread the load over more objects.
    const service = serviceOf(request, env);
    const account = new URL(request.url).pathname.split("/")[1] ?? "";
    const stub = env.OBJECTS.get(env.OBJECTS.idFromName(service + "/" + account));
    const forwarded = new Request(request);
    forwarded.headers.set("x-tablelab-service", service);
    return stub.fetch(forwarded);
  },
};

// StoreObject is a SQLite-backed Durable Object holding one service's
// store: a Go runtime of its own, started when the object wakes, kept
// while it lives, and handed the object's storage.sql, whose synchronous
// exec the Go side keeps its log and snapshots in (sqlmedium_js.go). A
// restart replays them.
export class StoreObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
    this.holder = {};
  }

  fetch(request) {
    const service = request.headers.get("x-tablelab-service") ?? "table";
    return serve(this.holder, () => ({
      env: this.env,
      ctx: this.ctx,
      binding: {},
      role: "object",
      service,
      sql: this.ctx.storage.sql,
    }), request);
  }
}
