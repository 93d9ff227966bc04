// The page's side of the engine worker (site contract 3): one Web Worker
// running the wasm engine, shared by every example on a page, reached by
// messages that each carry an id and get one answer.

/**
 * EngineClient starts the engine worker at url and matches its answers to
 * the requests made.
 */
export class EngineClient {
  constructor(url) {
    this.pending = new Map();
    this.nextId = 1;
    this.failed = null;
    this.worker = new Worker(url);
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        if (data?.ready) {
          resolve();
          return;
        }
        const waiter = this.pending.get(data?.id);
        if (!waiter) return;
        this.pending.delete(data.id);
        if ("error" in data) waiter.reject(new Error(String(data.error)));
        else waiter.resolve("resp" in data ? data.resp : data.result);
      };
      // A worker that fails to load (a missing wasm file, a syntax error)
      // must fail every caller instead of leaving it waiting.
      this.worker.onerror = (event) => {
        event.preventDefault?.();
        const err = new Error(`the engine worker failed: ${event.message ?? "could not load"}`);
        this.failed = err;
        reject(err);
        for (const waiter of this.pending.values()) waiter.reject(err);
        this.pending.clear();
      };
    });
  }

  async #call(message) {
    await this.ready;
    // A worker that has failed answers nothing more: say so at once.
    if (this.failed) throw this.failed;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message });
    });
  }

  /** request sends one HTTP/1.1 request text to store; resolves to the response text. */
  request(store, req) {
    return this.#call({ store, req });
  }

  /** op runs "reset", "export", "import" (with data) or "sas" on store. */
  op(store, op, data) {
    return this.#call({ store, op, data });
  }

  /**
   * connectionString is a SAS connection string for store, for the SDK,
   * whose shared-key signing does not run in a browser. The endpoint is the
   * local server's, so example code prints the same in Node.
   */
  async connectionString(store) {
    const sas = String(await this.op(store, "sas")).replace(/^\?/, "");
    return `TableEndpoint=${ENDPOINT};SharedAccessSignature=${sas}`;
  }
}

/** ENDPOINT is the account's URL in the browser and in Node alike. */
export const ENDPOINT = "http://127.0.0.1:10002/devstoreaccount1";
