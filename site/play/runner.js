// The example runner (site contract 4): runs a reader's code against the
// real Azure Storage SDKs (@azure/data-tables, @azure/storage-queue,
// @azure/storage-blob) and reports what it printed and what each query
// cost. It is one plain ES module for the browser's runner Worker and for
// Node's parity run alike: everything that differs between them (the SDK
// modules, the HTTP client, the connection string, how time passes) comes
// in through env.

import { byteSize, counted, dollars, grouped, isTableRequest, modelledMs, monthlyRequests, monthlyStorage, msText, requestUnits, writesOf } from "./cost.js";
import { operationsOf } from "./heat.js";

/** PLAN_HEADER and the two beside it are the engine's cost headers. */
export const PLAN_HEADER = "x-tablelab-plan";
const EXAMINED_HEADER = "x-tablelab-examined";
const RETURNED_HEADER = "x-tablelab-returned";
// WARNING_HEADER carries what the engine noticed about a query that the
// plan does not say: a filter comparing a property with a literal of a
// type it never had on the entities examined.
const WARNING_HEADER = "x-tablelab-warning";

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const identifier = /^[A-Za-z_$][\w$]*$/;

/**
 * run executes code as the body of an async function and resolves to
 *
 *   { output, plans, queries, requests, error? }
 *
 * output is what the code printed, one line per print/console.log call;
 * plans the X-Tablelab-Plan of each read in order ("point", "range", …),
 * as run blocks declare them; queries the same reads with
 * {plan, examined, returned, method, url, status}; requests every REST
 * call with its headers and bodies ({requestHeaders, responseHeaders} as
 * [name, value] pairs), status, time taken and Date header (date);
 * error, when the code threw, is {name, message, code?, statusCode?,
 * detail?, line?, column?} as the SDK raised it, with the place in the
 * reader's code (counted from 1) where it is known: a syntax error's, or
 * the innermost line of the reader's own that was running.
 *
 * The code sees every export of env.sdk as a global, with the clients
 * (TableClient, TableServiceClient, QueueServiceClient, QueueClient,
 * BlobServiceClient, ContainerClient, BlobClient, BlockBlobClient, …)
 * wrapped so that any client it makes reports its requests here, plus
 * print, console, sleep, scorecard and connectionString.
 *
 * scorecard(title, checks, options?) runs named access patterns and
 * prints how each was served: checks maps each pattern's name to an async
 * function that reads (or writes) through the SDK (an async iterable it
 * returns is drained). It prints the title, then one line a check, in
 * order:
 *
 *   orders of a customer: range, 12 examined / 12 returned
 *   orders by date: table-scan ×3, 30,000 examined / 40 returned
 *   new order: wrote 2 entities (318 bytes) in 1 request
 *
 * from the requests the check made: the costliest plan of its reads, "×k"
 * when it made k > 1 reads (each page of a query is a read), the sums of
 * what they examined and returned; then, when it wrote, the entities it
 * inserted, replaced or merged, their size as the service counts it
 * (cost.js's entitySize), what it deleted and in how many requests (a
 * batch is one), and any other request it made ("1 other request": a
 * table created, a queue or blob call). Its reads stay among the run's
 * queries and plans like any other.
 *
 * options, all optional, state the volumes the design must serve, and
 * add a money line:
 *
 *   perSecond  {pattern name: how many times a second it runs}: each such
 *              line ends " · 40/s: $22.71 a month", its requests a month
 *              at Table storage's price per transaction (cost.js PRICES)
 *   entities   how many entities the design keeps: a number, or {table:
 *              number}; priced by the GB-month at the mean size of the
 *              entities this run wrote (to that table), on a line
 *              "  stored: 80,000 entities, 9.8 MiB: <$0.01 a month"
 *   results    true keeps each check's value (a drained iterable's
 *              items) as plain JSON in its row's result, for a grader
 *   latency    true adds each check's time under cost.js's latency
 *              model (a round trip a request; requests in flight
 *              together overlap) to its line, " · 40 ms", and its row,
 *              ms
 *
 * With either volume the card ends "  in all: $22.90 a month". A scorecard
 * resolves to the card it printed, {title, rows: [{name, plan, reads,
 * examined, returned, requests, writes, written, deleted, bytes, ru,
 * hottest, hottestPartition, perSecond?, dollars?, result?, line}],
 * stored?, dollars?} (summarizeRequests says what each counts), where
 * dollars is a month's price and line the row as printed (ms too, with
 * latency); result.scorecards
 * lists every card of the run.
 *
 *   env.sdk               the SDK modules' exports as one object
 *                         (sdkOf(tables, blobs, queues)), or the
 *                         @azure/data-tables module alone
 *   env.connectionString  what the code sees as connectionString
 *   env.httpClient        optional: carries every request instead of the
 *                         SDK's own client (the browser's goes to the
 *                         engine worker)
 *   env.clientOptions     added to every client's options; by default
 *                         {allowInsecureConnection: true}, since the
 *                         examples' endpoint is the local server's
 *                         http://127.0.0.1:10002, to which the SDK
 *                         otherwise refuses to send an account key (it
 *                         changes nothing for https, so the code stays
 *                         the code that runs against Azure)
 *   env.sleep(seconds)    optional: how the code's sleep lets time pass;
 *                         by default a real wait. The browser's moves the
 *                         engine's clock on at once, so a visibility
 *                         timeout ends without the reader waiting.
 *   env.onPrint(line), env.onRequest(entry), env.onScorecard(card)
 *                         optional: hear of each line, each request and
 *                         each finished scorecard as it happens, so a page
 *                         shows them before the code ends and keeps them
 *                         if it must stop the code
 */
export async function run(code, env) {
  const { globals, lines, requests, scorecards } = sandbox(env);
  const names = Object.keys(globals).filter((n) => identifier.test(n));
  const result = { output: "", plans: [], queries: [], requests, scorecards };
  const body = withoutSdkImports(code);
  let fn;
  try {
    // The code runs in a block of its own, so it may declare names the
    // globals use (const connectionString = …) as a module could.
    fn = new AsyncFunction(...names, `{${body}\n}`);
  } catch (err) {
    result.error = { ...describeError(err), ...(await syntaxPlace(body)) };
  }
  if (fn) {
    try {
      await fn(...names.map((n) => globals[n]));
    } catch (err) {
      result.error = { ...describeError(err), ...runtimePlace(err) };
    }
  }
  result.output = lines.join("\n");
  for (const r of requests) {
    if (r.plan) {
      result.plans.push(r.plan);
      result.queries.push(queryOf(r));
    }
  }
  return result;
}

/**
 * sandbox makes what the code of an example sees, for run and for the
 * prelude (prelude.mjs), which gives the same names to a reader's own
 * Node script: {globals, lines, requests, scorecards}, where globals maps
 * each name to its value (the SDKs' exports with the clients wrapped,
 * connectionString, print, console, sleep, scorecard) and the three lists
 * fill as the code prints, makes requests and finishes scorecards. env is
 * run's.
 */
export function sandbox(env) {
  const lines = [];
  const requests = [];
  const print = (...values) => {
    const line = values.map(formatValue).join(" ");
    lines.push(line);
    env.onPrint?.(line);
  };
  const captured = {
    log: print,
    info: print,
    warn: print,
    error: print,
    debug: print,
  };
  const options = {
    httpClient: env.httpClient,
    extra: env.clientOptions ?? { allowInsecureConnection: true },
    policy: recordingPolicy(requests, env.onRequest, { tick: 0 }),
  };
  const scorecards = [];
  const scorecard = async (title, checks, options) => {
    const card = await runScorecard(String(title), checks, options, requests, print);
    scorecards.push(card);
    env.onScorecard?.(card);
    return card;
  };
  const globals = {
    ...env.sdk,
    TableClient: withOptions(env.sdk.TableClient, 2, options),
    TableServiceClient: withOptions(env.sdk.TableServiceClient, 1, options),
    connectionString: env.connectionString,
    print,
    console: captured,
    sleep: (seconds) => (env.sleep ?? realSleep)(Number(seconds)),
    scorecard,
  };
  for (const [name, kind] of Object.entries(STORAGE_CLIENTS)) {
    if (typeof env.sdk[name] === "function") globals[name] = withStorageOptions(env.sdk[name], kind, options);
  }
  if (typeof env.sdk.newPipeline === "function") {
    const newPipeline = env.sdk.newPipeline;
    globals.newPipeline = (credential, pipelineOptions) => newPipeline(credential, storageOptions(options, pipelineOptions));
  }
  return { globals, lines, requests, scorecards };
}

/**
 * queryOf is a read as a run's result lists it among its queries: {plan,
 * examined, returned, method, url, status, ru, warning?}, where ru is
 * cost.js's model of the request units Cosmos DB for Table would charge.
 */
export function queryOf(r) {
  const q = { plan: r.plan, examined: r.examined, returned: r.returned, method: r.method, url: r.url, status: r.status, ru: requestUnits(r) };
  if (r.warning) q.warning = r.warning;
  return q;
}

/**
 * PLAN_COST orders the plans from cheapest to costliest: a scorecard
 * names a check by the costliest plan among its reads. "index" (a filter
 * Cosmos DB for Table's index answers) examines only what it returns, as
 * a range does, but reaches across partitions, so it sits between them
 * and the scans.
 */
export const PLAN_COST = ["point", "range", "index", "partition-scan", "table-scan"];

// runScorecard runs each check in turn and prints its line, taking the
// check's requests from what the recording policy adds to requests while
// it runs. A check that throws ends the scorecard, and the program, with
// its error.
async function runScorecard(title, checks, options = {}, requests, print) {
  if (!checks || typeof checks !== "object") throw new TypeError("scorecard(title, checks): checks must be an object of named async functions");
  const volumes = readVolumes(checks, options ?? {});
  const card = { title, rows: [] };
  print(title);
  for (const [name, check] of Object.entries(checks)) {
    if (typeof check !== "function") throw new TypeError(`scorecard: the check "${name}" is not a function`);
    const from = requests.length;
    let value = await check();
    // A query's pages are fetched only as they are iterated: a check may
    // return listEntities(…) and let the scorecard read it to the end.
    if (value && typeof value[Symbol.asyncIterator] === "function") {
      const items = [];
      for await (const item of value) {
        if (volumes.results) items.push(item);
      }
      value = items;
    }
    const row = { name, ...summarizeRequests(requests.slice(from)) };
    if (volumes.perSecond[name] !== undefined) {
      row.perSecond = volumes.perSecond[name];
      row.dollars = monthlyRequests(row.billed, row.perSecond).dollars;
    }
    delete row.billed;
    if (volumes.latency) row.ms = Math.round(modelledMs(requests.slice(from)));
    if (volumes.results) row.result = plain(value);
    row.line = scorecardLine(row);
    card.rows.push(row);
    print(row.line);
  }
  if (volumes.entities !== undefined) {
    card.stored = storedCost(volumes.entities, requests);
    print(`  stored: ${grouped(card.stored.entities)} ${card.stored.entities === 1 ? "entity" : "entities"}, ${byteSize(card.stored.bytes)}: ${dollars(card.stored.dollars)} a month`);
  }
  if (volumes.priced) {
    card.dollars = card.rows.reduce((sum, r) => sum + (r.dollars ?? 0), card.stored?.dollars ?? 0);
    print(`  in all: ${dollars(card.dollars)} a month`);
  }
  return card;
}

// readVolumes checks a scorecard's options against its checks.
function readVolumes(checks, options) {
  if (typeof options !== "object") throw new TypeError("scorecard(title, checks, options): options must be an object");
  const perSecond = options.perSecond ?? {};
  for (const [name, n] of Object.entries(perSecond)) {
    if (!(name in checks)) throw new TypeError(`scorecard: perSecond names "${name}", which is not one of the checks`);
    if (typeof n !== "number" || !(n >= 0)) throw new TypeError(`scorecard: perSecond["${name}"] must be a number of times a second`);
  }
  const entities = options.entities;
  if (entities !== undefined) {
    const counts = typeof entities === "number" ? [entities] : Object.values(entities ?? {});
    if (entities === null || counts.some((n) => typeof n !== "number" || !(n >= 0))) {
      throw new TypeError("scorecard: entities must be a number of entities, or {table: number}");
    }
  }
  return {
    perSecond,
    entities,
    results: Boolean(options.results),
    latency: Boolean(options.latency),
    priced: Object.keys(perSecond).length > 0 || entities !== undefined,
  };
}

// storedCost prices the entities a design keeps for a month, each at the
// mean size of the entities the run wrote (to its table, when entities
// counts them per table).
function storedCost(entities, requests) {
  const sizes = new Map();
  let all = 0;
  let count = 0;
  for (const entry of requests) {
    for (const s of writesOf(entry).sizes) {
      const key = s.table.toLowerCase();
      const t = sizes.get(key) ?? { bytes: 0, count: 0 };
      t.bytes += s.bytes;
      t.count++;
      sizes.set(key, t);
      all += s.bytes;
      count++;
    }
  }
  let total = 0;
  let bytes = 0;
  const parts = typeof entities === "number" ? [[null, entities]] : Object.entries(entities);
  for (const [table, n] of parts) {
    const seen = table === null ? { bytes: all, count } : sizes.get(table.toLowerCase());
    if (!seen?.count) {
      throw new TypeError(`scorecard: no entity${table === null ? "" : ` of ${table}`} was written in this run, so its size is unknown`);
    }
    total += n;
    bytes += (n * seen.bytes) / seen.count;
  }
  return { entities: total, bytes: Math.round(bytes), dollars: monthlyStorage(bytes) };
}

/**
 * summarizeRequests is what a check's requests cost, as a scorecard
 * shows it: summarizeReads of its reads, and {requests, writes, written,
 * deleted, bytes, ru, hottest, hottestPartition, billed}: every request,
 * those that write table entities (a batch is one), the entities written
 * and deleted and their size, the model's request units (cost.js), the
 * most entity operations on one partition (heat.js's operations: an
 * entity written or examined; hottestPartition names it, "table/key"),
 * and the requests of the Table service, which the money line prices.
 */
export function summarizeRequests(entries) {
  const out = { ...summarizeReads(entries.filter((r) => r.plan)), requests: entries.length, writes: 0, written: 0, deleted: 0, bytes: 0, ru: 0, hottest: 0, hottestPartition: "", billed: 0 };
  const load = new Map();
  for (const e of entries) {
    const table = isTableRequest(e);
    if (table) out.billed++;
    if (table) {
      for (const op of operationsOf(e)) {
        if (op.partition === null) continue;
        const key = `${op.table}/${op.partition}`;
        const n = (load.get(key) ?? 0) + op.count;
        load.set(key, n);
        if (n > out.hottest) [out.hottest, out.hottestPartition] = [n, key];
      }
    }
    if (table && !e.plan && e.method !== "GET" && isEntityWrite(e.url)) out.writes++;
    const w = writesOf(e);
    out.written += w.written;
    out.deleted += w.deleted;
    out.bytes += w.bytes;
    out.ru += requestUnits(e);
  }
  out.ru = Math.round(out.ru * 100) / 100;
  return out;
}

// isEntityWrite tells a write of entities (to a table, an entity or a
// batch) from the table service's other requests (a table made or
// dropped, its ACL).
function isEntityWrite(url) {
  try {
    const path = decodeURIComponent(new URL(url).pathname);
    return !/\/Tables(\(|$)/i.test(path) && !new URL(url).searchParams.has("comp");
  } catch {
    return false;
  }
}

// plain is a check's value as JSON holds it: what a grader compares.
function plain(v) {
  if (v === undefined) return null;
  try {
    return JSON.parse(
      JSON.stringify(v, (_, x) => {
        if (typeof x === "bigint") return `${x}n`;
        if (ArrayBuffer.isView(x)) return Array.from(x);
        if (x instanceof Map) return Object.fromEntries(x);
        if (x instanceof Set) return [...x];
        return x;
      }) ?? "null",
    );
  } catch {
    return String(v);
  }
}

/**
 * summarizeReads sums what reads ({plan, examined, returned}) cost, as a
 * scorecard shows it: {plan, reads, examined, returned}, where plan is
 * the costliest of theirs ("" when there are none).
 */
export function summarizeReads(reads) {
  let worst = -1;
  let examined = 0;
  let returned = 0;
  for (const r of reads) {
    worst = Math.max(worst, PLAN_COST.indexOf(r.plan));
    examined += r.examined;
    returned += r.returned;
  }
  return { plan: worst < 0 ? "" : PLAN_COST[worst], reads: reads.length, examined, returned };
}

/**
 * scorecardLine is one check's line of a scorecard, indented by two
 * spaces: its reads, then its writes and other requests when it made
 * any, then its money when the scorecard was given its rate.
 */
export function scorecardLine(row) {
  const { name, plan, reads, examined, returned } = row;
  const parts = [];
  if (reads > 0) parts.push(`${plan}${reads > 1 ? ` ×${reads}` : ""}, ${grouped(examined)} examined / ${grouped(returned)} returned`);
  const writes = row.writes ?? 0;
  if (writes > 0) {
    const did = [];
    if (row.written) did.push(`wrote ${counted(row.written, "entity", "entities")} (${byteSize(row.bytes)})`);
    if (row.deleted) did.push(`deleted ${counted(row.deleted, "entity", "entities")}`);
    if (did.length === 0) did.push("wrote nothing");
    parts.push(`${did.join(", ")} in ${counted(writes, "request", "requests")}`);
  }
  const other = (row.requests ?? reads) - reads - writes;
  if (other > 0) parts.push(`${counted(other, "other request", "other requests")}`);
  let line = `  ${name}: ${parts.length ? parts.join("; ") : "no reads"}`;
  if (row.ms !== undefined) line += ` · ${msText(row.ms)}`;
  if (row.perSecond !== undefined) line += ` · ${grouped(row.perSecond)}/s: ${dollars(row.dollars)} a month`;
  return line;
}


// sdkImport matches an import of the SDKs, which the globals already
// provide: code copied from the SDKs' samples then runs as it is.
// Only named imports: a namespace (import * as t) would need an object the
// code can reach, so it stays and fails as an import does.
const sdkImport = /^[ \t]*import\s*\{[^}]*\}\s*from\s*["']@azure\/(?:data-tables|storage-queue|storage-blob)["'][ \t]*;?/gm;

/**
 * sdkOf makes env.sdk from the SDK modules: every export of each, where a
 * name two of them export (newPipeline, Pipeline, …) is the earlier
 * module's. Pass the modules as sdkOf(tables, blobs, queues).
 */
export function sdkOf(...modules) {
  const out = {};
  for (let i = modules.length - 1; i >= 0; i--) Object.assign(out, modules[i]);
  return out;
}

function realSleep(seconds) {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, seconds) * 1000));
}

// withoutSdkImports blanks SDK imports, keeping their line breaks so that
// line numbers in errors stay those of the reader's code.
export function withoutSdkImports(code) {
  return code.replace(sdkImport, (m) => m.replace(/[^\n]/g, ""));
}

// recordingPolicy is a pipeline policy that notes each request the SDK
// sends, with the engine's cost headers of its response. It runs closest
// to the transport (perRetry), so it sees the request as signed and the
// response as received, whichever HTTP client carries it. clock counts
// the run's request starts and ends: each entry's started and ended are
// ticks of it, the order the latency model reads (cost.js modelledMs).
function recordingPolicy(requests, onRequest, clock) {
  return {
    name: "tablelabRecorder",
    async sendRequest(request, next) {
      const started = ++clock.tick;
      const entry = {
        method: request.method,
        url: request.url,
        requestHeaders: headerList(request.headers),
        requestBody: await bodyText(request.body),
        status: 0,
        responseHeaders: [],
        responseBody: "",
        ms: 0,
        started,
      };
      requests.push(entry);
      const start = Date.now();
      try {
        const response = await next(request);
        entry.status = response.status;
        entry.responseHeaders = headerList(response.headers);
        // The store's clock as the service read it, for the page's
        // per-second views.
        entry.date = response.headers.get("date") ?? "";
        entry.responseBody = response.bodyAsText ?? (response.blobBody ? await bodyText(await response.blobBody) : "");
        const plan = response.headers.get(PLAN_HEADER);
        if (plan) {
          entry.plan = plan;
          entry.examined = Number(response.headers.get(EXAMINED_HEADER) ?? 0);
          entry.returned = Number(response.headers.get(RETURNED_HEADER) ?? 0);
          const warning = response.headers.get(WARNING_HEADER);
          if (warning) entry.warning = warning;
        }
        return response;
      } catch (err) {
        entry.error = String(err?.message ?? err);
        throw err;
      } finally {
        entry.ms = Date.now() - start;
        entry.ended = ++clock.tick;
        onRequest?.(entry);
      }
    },
  };
}

// headerList is an SDK request's or response's headers as [name, value]
// pairs in the order the pipeline holds them, names as sent.
function headerList(headers) {
  const out = [];
  if (!headers) return out;
  for (const [name, value] of headers) out.push([name, String(value)]);
  return out;
}

// SHOWN_BYTES is the most of a binary body the wire log shows as text.
const SHOWN_BYTES = 16 << 10;

// bodyText is a request or response body as the wire log shows it: text
// as it is, bytes as text when they are short UTF-8, else their size. A
// stream is not read (the SDK reads it), only named.
async function bodyText(body) {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  let bytes;
  if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  else if (typeof Blob !== "undefined" && body instanceof Blob) {
    if (body.size > SHOWN_BYTES) return `(${body.size.toLocaleString("en-US")} bytes)`;
    bytes = new Uint8Array(await body.arrayBuffer());
  } else return "(a stream)";
  if (bytes.length <= SHOWN_BYTES) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // binary: its size says enough
    }
  }
  return `(${bytes.length.toLocaleString("en-US")} bytes)`;
}

// withOptions subclasses an SDK client so every instance, however the code
// makes it (constructor or fromConnectionString), carries the recording
// policy and, when given, the HTTP client. optionsAt is the position of the
// constructor's credential-or-options argument.
function withOptions(Client, optionsAt, options) {
  if (typeof Client !== "function") return Client;
  const merge = (user = {}) => ({
    ...options.extra,
    ...user,
    ...(options.httpClient ? { httpClient: options.httpClient } : {}),
    additionalPolicies: [
      ...(user.additionalPolicies ?? []),
      { policy: options.policy, position: "perRetry" },
    ],
  });
  const Wrapped = class extends Client {
    constructor(...args) {
      const at = isCredential(args[optionsAt]) ? optionsAt + 1 : optionsAt;
      while (args.length < at) args.push(undefined);
      args[at] = merge(args[at]);
      super(...args);
      return traced(this);
    }

    static fromConnectionString(connectionString, ...rest) {
      // TableClient takes a table name before the options.
      const at = optionsAt - 1;
      while (rest.length < at) rest.push(undefined);
      rest[at] = merge(rest[at]);
      return traced(Client.fromConnectionString(connectionString, ...rest));
    }
  };
  Object.defineProperty(Wrapped, "name", { value: Client.name });
  return Wrapped;
}

// STORAGE_CLIENTS are the storage SDKs' client classes and where their
// options go: "service" clients take (url, credential?, options?) and
// fromConnectionString(connectionString, options?); "named" ones (a queue,
// a container) (connectionString, name, options?) or (url, credential?,
// options?); "blob" ones (connectionString, container, blob, options?) or
// (url, credential?, options?). Any of them may take (url, pipeline)
// instead, with the options inside the pipeline.
const STORAGE_CLIENTS = {
  QueueServiceClient: "service",
  BlobServiceClient: "service",
  QueueClient: "named",
  ContainerClient: "named",
  BlobClient: "blob",
  BlockBlobClient: "blob",
  AppendBlobClient: "blob",
  PageBlobClient: "blob",
};

// storageOptions adds the HTTP client, when given, to a storage client's
// pipeline options. The recording policy cannot go in as an additional
// policy: the storage SDKs hand such policies both to the pipeline they
// build and to the client that reuses it, which refuses the second.
function storageOptions(options, user = {}) {
  return options.httpClient ? { ...user, httpClient: options.httpClient } : user;
}

// withStorageOptions is withOptions for the storage SDKs' clients: the
// HTTP client goes in through the options, the recording policy into the
// pipeline the client made, which the clients it makes (getQueueClient,
// getBlockBlobClient, …) share.
function withStorageOptions(Client, kind, options) {
  const Wrapped = class extends Client {
    constructor(...args) {
      if (isPipeline(args[1])) {
        args[1].options = storageOptions(options, args[1].options);
      } else {
        const at = kind === "blob" && typeof args[1] === "string" && typeof args[2] === "string" ? 3 : 2;
        while (args.length < at) args.push(undefined);
        args[at] = storageOptions(options, args[at]);
      }
      super(...args);
      addRecorder(this.storageClientContext?.pipeline, options.policy);
      return traced(this);
    }
  };
  if (kind === "service") {
    Wrapped.fromConnectionString = (connectionString, user) => {
      const client = Client.fromConnectionString(connectionString, storageOptions(options, user));
      addRecorder(client.storageClientContext?.pipeline, options.policy);
      return traced(client);
    };
  }
  Object.defineProperty(Wrapped, "name", { value: Client.name });
  return Wrapped;
}

// addRecorder puts the recording policy into a client's pipeline, once,
// closest to the transport, where it sees the request as signed.
function addRecorder(pipeline, policy) {
  if (!pipeline || pipeline.getOrderedPolicies().some((p) => p.name === policy.name)) return;
  pipeline.addPolicy(policy, { afterPhase: "Sign" });
}

// isPipeline tells a storage SDK's Pipeline from credentials and options,
// as the SDKs do.
function isPipeline(x) {
  return Boolean(x) && typeof x === "object" && Array.isArray(x.factories) && typeof x.options === "object";
}

// isCredential tells the SDK's credential kinds (named key, SAS, token)
// from an options object, as the SDK's own constructors do.
function isCredential(x) {
  if (!x || typeof x !== "object") return false;
  return (
    typeof x.getToken === "function" ||
    (typeof x.name === "string" && typeof x.key === "string") ||
    typeof x.signature === "string"
  );
}

/**
 * formatValue is how print shows a value, the same in every environment
 * (Node's console.log and a browser's differ): text as it is, Dates in
 * ISO 8601, errors as "Name: message", other objects as JSON.
 */
export function formatValue(v) {
  if (typeof v === "string") return v;
  if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  if (typeof v === "bigint") return `${v}n`;
  if (v === null || typeof v !== "object") return String(v);
  try {
    return JSON.stringify(v, (_, x) => {
      if (typeof x === "bigint") return `${x}n`;
      if (ArrayBuffer.isView(x)) return Array.from(x);
      if (x instanceof Map) return Object.fromEntries(x);
      if (x instanceof Set) return [...x];
      return x;
    });
  } catch {
    return String(v);
  }
}

// syntaxPlace finds where code fails to parse: V8's SyntaxError names the
// token but not its place, so acorn, loaded only now, parses the code as
// the body it is (await allowed at the top) and reports {line, column},
// both counted from 1; {} when acorn finds nothing wrong.
async function syntaxPlace(code) {
  try {
    const { parse } = await import("./vendor/acorn.js");
    parse(code, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true });
  } catch (err) {
    if (err?.loc) return { line: err.loc.line, column: err.loc.column + 1 };
  }
  return {};
}

// An SDK call's error is raised where its response is read, in a task
// that no longer has the reader's code on its stack. traced wraps a
// client (and what its methods hand back: iterators, child clients) so
// that each call takes its stack as it is made, from the reader's line,
// and an error the call ends with carries that stack as CALL_SITE.
const CALL_SITE = Symbol("tablelab call site");

function traced(obj) {
  if (!obj || (typeof obj !== "object" && typeof obj !== "function") || obj[CALL_SITE] === obj) return obj;
  const proxy = new Proxy(obj, {
    get(target, prop) {
      if (prop === CALL_SITE) return proxy;
      // The target's own getters and methods see the target, not the
      // proxy: the SDKs' classes keep private fields.
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function" || prop === "constructor") return value;
      return function (...args) {
        const site = new Error().stack;
        let out;
        try {
          out = value.apply(this === proxy ? target : this, args);
        } catch (err) {
          throw atSite(err, site);
        }
        if (out === target) return proxy;
        if (out && typeof out.then === "function") {
          return out.then(undefined, (err) => {
            throw atSite(err, site);
          });
        }
        return sdkObject(out) ? traced(out) : out;
      };
    },
  });
  return proxy;
}

// sdkObject tells what a client's method hands back that makes calls of
// its own: an iterator of pages, or another client.
function sdkObject(x) {
  if (!x || typeof x !== "object") return false;
  return typeof x.next === "function" || typeof x[Symbol.asyncIterator] === "function" || /Client$/.test(x.constructor?.name ?? "");
}

function atSite(err, site) {
  if (err && typeof err === "object" && !(CALL_SITE in err)) {
    Object.defineProperty(err, CALL_SITE, { value: site, enumerable: false });
  }
  return err;
}

// userFrame matches a stack frame in the reader's code: V8 names code made
// by the Function constructor "<anonymous>" inside an "eval at" frame.
const userFrame = /\(eval at [^\n]*<anonymous>:(\d+):(\d+)\)$/m;

// runtimePlace reads the innermost frame of the reader's code from err's
// stack, or else from the stack of the SDK call it ended (CALL_SITE): {line, column} in the reader's terms, or {} when no frame is
// theirs. The function's source begins with two lines of its own (its
// head, then "{"), and the block the code runs in adds one character to
// the code's first line.
function runtimePlace(err) {
  const stack = `${typeof err?.stack === "string" ? err.stack : ""}\n${err?.[CALL_SITE] ?? ""}`;
  const m = stack.match(userFrame);
  if (!m) return {};
  const line = Number(m[1]) - 2;
  const column = Number(m[2]) - (line === 1 ? 1 : 0);
  return line >= 1 ? { line, column: Math.max(1, column) } : {};
}

// describeError keeps what a reader needs of an error (a RestError's code
// and status included) in a form that crosses postMessage.
function describeError(err) {
  if (!(err instanceof Error)) {
    return { name: "Error", message: `uncaught: ${formatValue(err)}` };
  }
  const out = { name: err.name, message: err.message };
  // The Table SDK leaves a RestError's code unset and keeps the service's
  // error in details.odataError; the reader wants to see that code.
  const service = err.details?.odataError;
  const code = err.code ?? service?.code;
  if (code !== undefined) out.code = String(code);
  if (err.statusCode !== undefined) out.statusCode = err.statusCode;
  if (typeof service?.message?.value === "string") out.detail = service.message.value;
  return out;
}
