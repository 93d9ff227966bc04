// The runner Worker: reader code runs here, apart from the page and from
// the engine worker, so an endless loop can be ended by terminating this
// worker alone. Each SDK request goes to the page as text, which forwards
// it to the engine worker.
//
// page → here: {run: code, connectionString}
// here → page: {http: id, req} (answered by {httpReply: id, resp} or
//              {httpReply: id, error}), {print: line}, {request: entry},
//              {done: {output, error?, requestCount}}
//
// done carries no requests, plans or queries: the page heard of every
// request, bodies and all, as it happened, and a program that loads
// thousands of entities would otherwise hand the page its whole wire log
// again in one message at the end.

import * as sdk from "./vendor/data-tables.js";
import { run } from "./runner.js";
import { engineHttpClient } from "./engine-http-client.js";

const pending = new Map();
let nextId = 1;

const httpClient = engineHttpClient(
  (req) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      postMessage({ http: id, req });
    }),
  sdk.createHttpHeaders,
);

onmessage = async ({ data }) => {
  if ("httpReply" in data) {
    const waiter = pending.get(data.httpReply);
    pending.delete(data.httpReply);
    if (!waiter) return;
    if ("error" in data) waiter.reject(new Error(data.error));
    else waiter.resolve(data.resp);
    return;
  }
  if ("run" in data) {
    const result = await run(data.run, {
      sdk,
      connectionString: data.connectionString,
      httpClient,
      onPrint: (line) => postMessage({ print: line }),
      onRequest: (entry) => postMessage({ request: entry }),
    });
    const done = { output: result.output, requestCount: result.requests.length };
    if (result.error) done.error = result.error;
    postMessage({ done });
  }
};

postMessage({ ready: true });
