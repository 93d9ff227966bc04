// The page's side of the runner Worker: starts it, forwards its SDK
// requests to the engine worker, and can stop reader code that does not
// end by terminating the worker (a new one starts on the next run).

/**
 * RunHost runs reader code on an engine store, one program at a time.
 */
export class RunHost {
  constructor(engine, workerUrl) {
    this.engine = engine;
    this.workerUrl = workerUrl;
    this.worker = null;
    this.current = null;
  }

  #start() {
    const worker = new Worker(this.workerUrl, { type: "module" });
    const ready = new Promise((resolve, reject) => {
      worker.onerror = (event) => {
        event.preventDefault?.();
        const err = new Error(`the runner worker failed: ${event.message ?? "could not load"}`);
        if (this.worker?.worker === worker) this.worker = null;
        worker.terminate();
        reject(err);
        this.#finish({ output: this.current?.lines.join("\n") ?? "", plans: [], queries: [], requests: [], error: { name: "Error", message: err.message } });
      };
      worker.onmessage = ({ data }) => {
        if (data.ready) resolve();
        else this.#hear(worker, data);
      };
    });
    this.worker = { worker, ready };
    return this.worker;
  }

  #hear(worker, data) {
    const run = this.current;
    if ("http" in data) {
      const store = run?.store;
      if (!store) return;
      this.engine.request(store, data.req).then(
        (resp) => worker.postMessage({ httpReply: data.http, resp }),
        (err) => worker.postMessage({ httpReply: data.http, error: err.message }),
      );
    } else if ("print" in data) {
      run?.lines.push(data.print);
      run?.onPrint?.(data.print);
    } else if ("request" in data) {
      run?.requests.push(data.request);
      run?.onRequest?.(data.request);
    } else if ("done" in data) {
      this.#finish(data.done);
    }
  }

  #finish(result) {
    const run = this.current;
    this.current = null;
    run?.resolve(result);
  }

  /**
   * run executes code against store and resolves to the runner's result
   * ({output, plans, queries, requests, error?}); onPrint and onRequest
   * hear of lines and requests as they happen. A run started while
   * another is under way stops that one first.
   */
  async run(code, store, { onPrint, onRequest } = {}) {
    if (this.current) this.stop();
    const connectionString = await this.engine.connectionString(store);
    const { worker, ready } = this.worker ?? this.#start();
    return new Promise((resolve) => {
      this.current = { store, resolve, onPrint, onRequest, lines: [], requests: [] };
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
    const { lines, requests } = this.current;
    const plans = requests.filter((r) => r.plan);
    this.#finish({
      output: lines.join("\n"),
      plans: plans.map((r) => r.plan),
      queries: plans,
      requests,
      error: { name: "Stopped", message: "the program was stopped before it finished" },
    });
  }
}
