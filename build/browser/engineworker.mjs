// The engine worker (dist/engine/worker.js) driven from a page of the site
// through its message contract, the way the playground drives it: the
// test's page holds a worker of its own and the test sends it requests.
import { request, parseResponse } from "./rawhttp.mjs";

// installWorker runs in the page: it starts a worker and keeps
// window.__engine, a call(message) → Promise of the answer.
function installWorker(url) {
  const worker = new Worker(url);
  const waiting = new Map();
  let next = 0;
  const ready = new Promise((resolve, reject) => {
    worker.addEventListener("error", (e) => reject(new Error(`worker failed: ${e.message}`)));
    worker.addEventListener("message", (e) => {
      if (e.data && e.data.ready) return resolve();
      const settle = waiting.get(e.data.id);
      waiting.delete(e.data.id);
      if (settle) settle(e.data);
    });
  });
  const call = (msg) =>
    new Promise((resolve) => {
      const id = `t${++next}`;
      waiting.set(id, resolve);
      worker.postMessage({ id, ...msg });
    });
  window.__engine = { ready, call, worker };
  return ready;
}

/**
 * Starts a worker in page (a page of the site, which gives it the site's
 * origin and its IndexedDB) and returns a client of one store:
 * serve(method, target, body, headers) → parsed response with SAS added,
 * and op(name, data) → result (throws the worker's error).
 */
export async function engineIn(page, store, workerURL = "engine/worker.js") {
  const url = new URL(workerURL, page.url()).href;
  await page.evaluate(installWorker, url);
  const op = async (name, data) => {
    const answer = await page.evaluate(
      ([store, op, data]) => window.__engine.call({ store, op, data }),
      [store, name, data],
    );
    if ("error" in answer && answer.error !== undefined) throw new Error(`${name}: ${answer.error}`);
    return answer.result;
  };
  const sas = await op("sas");
  if (typeof sas !== "string" || !/sig=/.test(sas)) throw new Error(`sas answered ${JSON.stringify(sas)}`);
  const signed = (target) => target + (target.includes("?") ? "&" : "?") + sas.replace(/^\?/, "");
  const serveText = async (text) => {
    const answer = await page.evaluate(([store, req]) => window.__engine.call({ store, req }), [store, text]);
    if (typeof answer.resp !== "string") throw new Error(`worker answered ${JSON.stringify(answer).slice(0, 300)}`);
    return parseResponse(answer.resp);
  };
  const serve = (method, target, body, headers) => serveText(request(method, signed(target), body, headers));
  return { op, serve, serveText, signed, sas };
}
