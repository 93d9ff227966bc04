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

const front = {};

export default {
  fetch(request, env, ctx) {
    return serve(front, () => ({ env, ctx, binding: {}, role: "front" }), request);
  },
};
