// The page's side of the runner Worker: starts it, forwards its SDK
// requests to the engine worker, and can stop reader code that does not
// end by terminating the worker (a new one starts on the next run).

import { queryOf } from "./runner.js";
import { startWorker } from "./workers.js";
import { corsHint } from "./engine.js";

/**
 * KEEP_REQUESTS is how many requests a run keeps with their bodies, the
 * newest; older ones are counted and their queries' plans kept.
 */
export const KEEP_REQUESTS = 200;

/**
 * RunHost runs reader code on an engine store, one program at a time.
 * keep bounds the requests a run's result holds with their bodies.
 */
export class RunHost {
  constructor(engine, workerUrl, { keep = KEEP_REQUESTS } = {}) {
    this.engine = engine;
    this.workerUrl = workerUrl;
    this.keep = keep;
    this.worker = null;
    this.current = null;
  }

  #start() {
    const worker = startWorker(this.workerUrl, { type: "module" });
    const ready = new Promise((resolve, reject) => {
      worker.onerror = (event) => {
        event.preventDefault?.();
        const err = new Error(`the runner worker failed: ${event.message ?? "could not load"}${corsHint(this.workerUrl)}`);
        if (this.worker?.worker === worker) this.worker = null;
        worker.terminate();
        reject(err);
        this.#finish(this.#sofar({ name: "Error", message: err.message }));
      };
      worker.onmessage = ({ data }) => {
        if (data.ready) resolve();
        else this.#hear(worker, data);
      };
    });
    // A failure reaches the run under way (#finish); a worker started
    // ahead of a run (warm) has no one else to tell.
    ready.catch(() => {});
    this.worker = { worker, ready };
    return this.worker;
  }

  #hear(worker, data) {
    const run = this.current;
    if ("http" in data) {
      const store = run?.store;
      if (!store) return;
      this.engine.request(store, data.req).then(
        (resp) => worker.postMessage({ httpReply: data.http, resp }, typeof resp === "string" ? [] : [resp.buffer]),
        (err) => worker.postMessage({ httpReply: data.http, error: err.message }),
      );
    } else if ("advance" in data) {
      // The code's sleep: the run's store's clock moves on, nothing else.
      const store = run?.store;
      if (!store) return;
      this.engine.op(store, "advance", String(data.seconds)).then(
        () => worker.postMessage({ advanceReply: data.advance }),
        (err) => worker.postMessage({ advanceReply: data.advance, error: err.message }),
      );
    } else if ("print" in data) {
      run?.lines.push(data.print);
      run?.onPrint?.(data.print);
    } else if ("request" in data) {
      if (!run) return;
      const entry = readable(data.request);
      run.requestCount++;
      if (entry.plan) run.queries.push(queryOf(entry));
      run.requests.push(entry);
      // Older requests go a slice at a time, not one per request.
      if (run.requests.length >= 2 * this.keep) run.requests.splice(0, run.requests.length - this.keep);
      run.onRequest?.(entry);
    } else if ("scorecard" in data) {
      run?.scorecards.push(data.scorecard);
      run?.onScorecard?.(data.scorecard);
    } else if ("done" in data) {
      // The worker sends no requests with done: they came one by one, and
      // what was kept of them here makes the result. Its output is the
      // runner's own.
      const sofar = this.#sofar(data.done.error);
      this.#finish({ ...data.done, ...sofar, output: data.done.output ?? sofar.output });
    }
  }

  // sofar is the result of the run under way from what it reported so
  // far, ending with error (none when it is undefined).
  #sofar(error) {
    const run = this.current;
    const queries = run?.queries ?? [];
    const result = {
      output: run?.lines.join("\n") ?? "",
      plans: queries.map((q) => q.plan),
      queries,
      requests: run?.requests.slice(-this.keep) ?? [],
      requestCount: run?.requestCount ?? 0,
      scorecards: run?.scorecards ?? [],
    };
    if (error) result.error = error;
    return result;
  }

  #finish(result) {
    const run = this.current;
    this.current = null;
    if (!run) return;
    // The store's clock runs again once the run is over, however it ended.
    this.engine.op(run.store, "release").then(
      () => run.resolve(result),
      () => run.resolve(result),
    );
  }

  /**
   * run executes code against store and resolves to the runner's result
   * ({output, plans, queries, requests, requestCount, scorecards, error?}),
   * where requests holds only the newest keep requests and requestCount
   * says how many were made; onPrint, onRequest and onScorecard hear of
   * lines, requests and scorecards as they happen. A run started while another is under way stops that
   * one first.
   */
  async run(code, store, { onPrint, onRequest, onScorecard } = {}) {
    if (this.current) this.stop();
    const connectionString = await this.engine.connectionString(store);
    // The store's clock stands still for the run, and only the code's
    // sleep moves it: a burst of writes is one second of the store's time
    // however long the page takes over it, the same on every run.
    await this.engine.op(store, "hold");
    const { worker, ready } = this.worker ?? this.#start();
    return new Promise((resolve) => {
      this.current = { store, resolve, onPrint, onRequest, onScorecard, lines: [], requests: [], requestCount: 0, queries: [], scorecards: [] };
      ready.then(
        () => worker.postMessage({ run: code, connectionString }),
        () => {},
      );
    });
  }

  /**
   * warm starts the runner worker ahead of the first run, so that Run
   * answers sooner; the engine worker starts with its client.
   */
  warm() {
    if (!this.worker) this.#start();
  }

  /** running reports whether code is under way. */
  get running() {
    return this.current !== null;
  }

  /**
   * stop ends the code under way by terminating its worker; its run
   * resolves with what it printed and requested so far and a "Stopped"
   * error.
   */
  stop() {
    if (!this.current) return;
    this.worker?.worker.terminate();
    this.worker = null;
    this.#finish(this.#sofar({ name: "Stopped", message: "the program was stopped before it finished" }));
  }
}

const decoder = new TextDecoder();

// readable makes the bodies of an entry that came as bytes text again,
// decoded when first read: the page reads only the few it shows, and
// bytes, held outside the script's heap, cost its garbage collector
// nothing while a run keeps hundreds of large batches.
function readable(entry) {
  for (const name of ["requestBody", "responseBody"]) {
    let bytes = entry[name];
    if (!(bytes instanceof Uint8Array)) continue;
    let text;
    Object.defineProperty(entry, name, {
      enumerable: true,
      get() {
        if (text === undefined) {
          text = decoder.decode(bytes);
          bytes = null;
        }
        return text;
      },
    });
  }
  return entry;
}

