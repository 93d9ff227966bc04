// The runner Worker: reader code runs here, apart from the page and from
// the engine worker, so an endless loop can be ended by terminating this
// worker alone. Each SDK request goes to the page as text, which forwards
// it to the engine worker.
//
// page → here: {run: code, connectionString}
// here → page: {http: id, req} (req and resp are HTTP/1.1 messages as
//              Uint8Arrays; answered by {httpReply: id, resp} or
//              {httpReply: id, error}), {advance: id, seconds} (the
//              store's clock, for sleep; answered by {advanceReply: id} or
//              {advanceReply: id, error}), {print: line}, {request: entry},
//              {scorecard: card}, {done: {output, error?, requestCount}}
//
// done carries no requests, plans or queries: the page heard of every
// request, bodies and all, as it happened, and a program that loads
// thousands of entities would otherwise hand the page its whole wire log
// again in one message at the end.
//
// A request's entry crosses with its bodies as UTF-8 bytes, moved rather
// than copied, and with ops, what it did to the partitions (heat.js's
// operationsOf): a batch's body is read here, once, and the page decodes
// a body only when it shows it (run-host.js).

import { tables, blobs, queues, createHttpHeaders } from "./vendor/azure-storage.js";
import { run, sdkOf } from "./runner.js";
import { engineHttpClient } from "./engine-http-client.js";
import { operationsOf } from "./heat.js";

const sdk = sdkOf(tables, blobs, queues);
const pending = new Map();
let nextId = 1;

// ask posts a message carrying a new id and resolves to the page's reply.
const ask = (message, transfer = []) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    postMessage({ ...message, [message.http !== undefined ? "http" : "advance"]: id }, transfer);
  });

// Bytes move to the page rather than being copied.
const httpClient = engineHttpClient((req) => ask({ http: 0, req }, [req.buffer]), createHttpHeaders);

// sleep lets the time pass on the engine's clock, at once: a message's
// visibility timeout ends without the reader waiting for it.
const sleep = (seconds) => ask({ advance: 0, seconds: Number(seconds) });

onmessage = async ({ data }) => {
  const reply = data.httpReply ?? data.advanceReply;
  if (reply !== undefined) {
    const waiter = pending.get(reply);
    pending.delete(reply);
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
      sleep,
      onPrint: (line) => postMessage({ print: line }),
      onRequest: postRequest,
      onScorecard: (card) => postMessage({ scorecard: card }),
    });
    const done = { output: result.output, requestCount: result.requests.length };
    if (result.error) done.error = result.error;
    postMessage({ done });
  }
};

const encoder = new TextEncoder();

// postRequest sends the page one request's entry, its bodies as bytes.
function postRequest(entry) {
  const requestBody = encoder.encode(entry.requestBody ?? "");
  const responseBody = encoder.encode(entry.responseBody ?? "");
  const sent = { ...entry, requestBody, responseBody, ops: operationsOf(entry) };
  postMessage({ request: sent }, [requestBody.buffer, responseBody.buffer]);
}

postMessage({ ready: true });
