// The page's side of the engine worker (site contract 3): one Web Worker
// running the wasm engine, shared by every example on a page, reached by
// messages that each carry an id and get one answer.

import { crossOrigin, startWorker } from "./workers.js";

/**
 * EngineClient starts the engine worker at url and matches its answers to
 * the requests made.
 */
export class EngineClient {
  constructor(url) {
    this.pending = new Map();
    this.nextId = 1;
    this.failed = null;
    this.worker = startWorker(url);
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
        const err = new Error(`the engine worker failed: ${event.message ?? "could not load"}${corsHint(url)}`);
        this.failed = err;
        reject(err);
        for (const waiter of this.pending.values()) waiter.reject(err);
        this.pending.clear();
      };
    });
  }

  async #call(message, transfer = []) {
    await this.ready;
    // A worker that has failed answers nothing more: say so at once.
    if (this.failed) throw this.failed;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, ...message }, transfer);
    });
  }

  /**
   * request sends one HTTP/1.1 request to store, as text or as a
   * Uint8Array, and resolves to the response of the same kind. Bytes are
   * moved to the worker, not copied: req is empty once sent.
   */
  request(store, req) {
    return this.#call({ store, req }, typeof req === "string" ? [] : [req.buffer]);
  }

  /**
   * op runs an op of the engine worker on store: "reset", "export",
   * "import" and "replace" (data: an export's text, checked whole before
   * anything is written), "clone" (data: the name of the store in memory
   * that becomes a copy of this one), "advance" (data: seconds), "hold",
   * "release" or "sas".
   */
  op(store, op, data) {
    return this.#call({ store, op, data });
  }

  /**
   * connectionString is a SAS connection string for store, for the SDKs,
   * whose shared-key signing does not run in a browser. The endpoints are
   * the local server's (UseDevelopmentStorage=true's), so example code
   * prints the same in Node; the engine worker tells the services apart by
   * their ports.
   */
  async connectionString(store) {
    const sas = String(await this.op(store, "sas")).replace(/^\?/, "");
    return (
      `BlobEndpoint=${ENDPOINTS.blob};QueueEndpoint=${ENDPOINTS.queue};` +
      `TableEndpoint=${ENDPOINTS.table};SharedAccessSignature=${sas}`
    );
  }
}

/**
 * corsHint is what to add to a worker's failure to load from url: for a
 * script of another origin (the embed on someone's page), the headers its
 * host must send.
 */
export function corsHint(url) {
  return crossOrigin(url)
    ? ` (its files come from ${new URL(url, document.baseURI).origin}, which must send Access-Control-Allow-Origin and serve .wasm as application/wasm)`
    : "";
}

/** ENDPOINTS are the account's URLs, per service, in the browser and in Node alike. */
export const ENDPOINTS = {
  blob: "http://127.0.0.1:10000/devstoreaccount1",
  queue: "http://127.0.0.1:10001/devstoreaccount1",
  table: "http://127.0.0.1:10002/devstoreaccount1",
};

/** ENDPOINT is the Table service's. */
export const ENDPOINT = ENDPOINTS.table;
