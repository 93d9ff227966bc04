// What a design costs: the size of the entities a request writes, as the
// service counts it, and what requests and stored bytes come to in money
// under Azure Table storage's published prices; and, for Cosmos DB for
// Table, a model of the request units a request would be charged. One
// module for the browser's runner Worker and for Node alike, read from
// the requests the runner records (runner.js): nothing here asks the
// engine, so every environment counts the same.
//
// The figures are in PRICES and COSMOS_RU, with their sources; the docs'
// "What a design costs in money" section (content/reference/scorecards.md)
// and the Cosmos DB page name them too.

/**
 * PRICES is the price list the money lines use: Azure Table storage, pay
 * as you go, a standard general-purpose v2 account, locally redundant
 * (LRS), in East US, in US dollars. A transaction is one request: each
 * page of a query and each batch is one, however many entities it holds.
 * Storage is billed on the average stored over the month, per GB, the
 * first terabyte's rate.
 */
export const PRICES = Object.freeze({
  list: "Azure Table storage pricing, azure.microsoft.com/pricing/details/storage/tables/",
  region: "East US",
  redundancy: "LRS",
  currency: "USD",
  asOf: "2026",
  transactionsPer10k: 0.00036,
  gbMonth: 0.045,
});

/** HOURS_A_MONTH is the month Azure's prices assume: 730 hours. */
export const HOURS_A_MONTH = 730;

/** SECONDS_A_MONTH is HOURS_A_MONTH in seconds. */
export const SECONDS_A_MONTH = HOURS_A_MONTH * 3600;

/** GB is the gigabyte the storage line counts in: 2^30 bytes. */
export const GB = 2 ** 30;

/**
 * monthlyRequests is what a request rate comes to in a month: the
 * transactions and their price. calls is how many times a second the
 * access pattern runs, requests how many requests one run of it makes.
 */
export function monthlyRequests(requests, calls, prices = PRICES) {
  const transactions = requests * calls * SECONDS_A_MONTH;
  return { transactions, dollars: (transactions / 10000) * prices.transactionsPer10k };
}

/** monthlyStorage is the price of keeping bytes for a month. */
export function monthlyStorage(bytes, prices = PRICES) {
  return (bytes / GB) * prices.gbMonth;
}

/**
 * dollars writes an amount of money as the scorecards print it: "$22.71",
 * "$1,234.50", and "<$0.01" for an amount too small to show in cents.
 */
export function dollars(n) {
  if (n > 0 && n < 0.005) return "<$0.01";
  const [whole, cents] = n.toFixed(2).split(".");
  return `$${grouped(whole)}.${cents}`;
}

/**
 * byteSize writes a count of bytes in the unit that keeps it short:
 * "412 bytes", "15.3 KiB", "2.1 GiB".
 */
export function byteSize(n) {
  if (n < 1024) return `${grouped(String(Math.round(n)))} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 100 ? Math.round(v) : v.toFixed(1)} ${units[i]}`;
}

/** counted writes a count with its noun: "1 request", "2,000 entities". */
export function counted(n, one, many) {
  return `${grouped(n)} ${n === 1 ? one : many}`;
}

/**
 * grouped writes a number with commas between thousands, the same in
 * every environment whatever its locale data: 1234567.5 is "1,234,567.5".
 */
export function grouped(n) {
  const [whole, frac] = String(n).split(".");
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (frac ? `.${frac}` : "");
}

// The Edm types' value sizes, as the service counts an entity against its
// 1 MiB limit; String and Binary add their lengths.
const VALUE_SIZE = {
  "Edm.Int32": 4,
  "Edm.Int64": 8,
  "Edm.Double": 8,
  "Edm.DateTime": 8,
  "Edm.Boolean": 1,
  "Edm.Guid": 16,
};

/**
 * entitySize is the size of an entity, given as the JSON the protocol
 * carries ({PartitionKey, RowKey, name, "name@odata.type", …}), as the
 * service counts it: 4 bytes, twice the UTF-16 length of both keys, and
 * for each property 8 bytes, twice its name's length and its value's size
 * (a String 4 bytes and two a code unit, a Binary 4 bytes and its bytes).
 * keys, when given, are {partitionKey, rowKey} for a body without them
 * (a merge names its entity in the URL). The Timestamp and OData's
 * annotations are not the entity's properties; nor is a null, which the
 * service does not store.
 */
export function entitySize(json, keys = {}) {
  const pk = json.PartitionKey ?? keys.partitionKey ?? "";
  const rk = json.RowKey ?? keys.rowKey ?? "";
  let size = 4 + 2 * (String(pk).length + String(rk).length);
  for (const [name, value] of Object.entries(json)) {
    if (name === "PartitionKey" || name === "RowKey" || name === "Timestamp" || name.includes("@") || name.startsWith("odata.")) continue;
    if (value === null || value === undefined) continue;
    size += 8 + 2 * name.length + valueSize(value, json[`${name}@odata.type`]);
  }
  return size;
}

function valueSize(value, type) {
  if (type === "Edm.String" || (type === undefined && typeof value === "string")) return 4 + 2 * String(value).length;
  if (type === "Edm.Binary") return 4 + base64Length(String(value));
  if (type !== undefined) return VALUE_SIZE[type] ?? 8;
  if (typeof value === "boolean") return 1;
  // An untyped number is an Int32 when it is a whole number in range,
  // as the service reads it, else a Double.
  if (typeof value === "number" && Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) return 4;
  return 8;
}

function base64Length(s) {
  const clean = s.replace(/=+$/, "");
  return Math.floor((clean.length * 3) / 4);
}

/**
 * isTableRequest tells a request of the Table service from the Queue's
 * and the Blob's: the Table SDK names its protocol's version in
 * DataServiceVersion, which the others never send.
 */
export function isTableRequest(entry) {
  return (entry.requestHeaders ?? []).some(([name]) => name.toLowerCase() === "dataserviceversion");
}

// The entity operations a table request carries: [{method, path, body}],
// one for a single request, one a part for a batch.
function operations(entry) {
  let path;
  try {
    path = decodeURIComponent(new URL(entry.url).pathname);
  } catch {
    return [];
  }
  if (/\/\$batch$/.test(path)) return batchOperations(entry.requestBody ?? "");
  return [{ method: entry.method, path, body: entry.requestBody ?? "" }];
}

// batchOperations reads a $batch body's parts: each a request line, its
// headers, a blank line and, for a write, the entity's JSON.
function batchOperations(text) {
  const out = [];
  const parts = text.split(/\r?\n--[^\r\n]*/);
  for (const part of parts) {
    const line = /^(GET|POST|PUT|MERGE|PATCH|DELETE) (\S+) HTTP\/1\.1\r?$/m.exec(part);
    if (!line) continue;
    let path = line[2];
    try {
      path = decodeURIComponent(new URL(line[2]).pathname);
    } catch {
      // a relative URL, as some clients write it
    }
    const rest = part.slice(line.index + line[0].length);
    const blank = /\r?\n\r?\n/.exec(rest);
    out.push({ method: line[1], path, body: blank ? rest.slice(blank.index + blank[0].length).trim() : "" });
  }
  return out;
}

// entityPath reads ".../Table(PartitionKey='p',RowKey='r')" or
// ".../Table": {table, partitionKey?, rowKey?}, or null for a path that
// names no table's entities (Tables, the service).
function entityPath(path) {
  const m = /\/([^/()]+)(?:\((.*)\))?$/.exec(path);
  if (!m || /^Tables$/i.test(m[1]) || m[1] === "$batch") return null;
  const key = (name) => {
    const k = new RegExp(`${name}='((?:[^']|'')*)'`).exec(m[2] ?? "");
    return k ? k[1].replace(/''/g, "'") : undefined;
  };
  return { table: m[1], partitionKey: key("PartitionKey"), rowKey: key("RowKey") };
}

/**
 * writesOf is what a recorded request wrote to the tables:
 * {written, deleted, bytes, sizes: [{table, bytes}]}, where written
 * counts the entities inserted, replaced or merged, deleted those
 * deleted, bytes the size of the entities written (entitySize) and sizes
 * each written entity's. A request that failed wrote nothing (a batch
 * whose change set failed included); so did one of another service, or
 * a read.
 */
export function writesOf(entry) {
  const none = { written: 0, deleted: 0, bytes: 0, sizes: [] };
  if (!entry.status || entry.status >= 300 || !isTableRequest(entry)) return none;
  // A batch is answered 202 however it went; a change set that failed
  // answers with the one operation's error, and nothing of it was written.
  if (/\/\$batch(\?|$)/.test(entry.url) && /^HTTP\/1\.1 [45]\d\d /m.test(entry.responseBody ?? "")) return none;
  const out = { written: 0, deleted: 0, bytes: 0, sizes: [] };
  for (const op of operations(entry)) {
    const target = entityPath(op.path);
    if (!target || op.method === "GET") continue;
    if (op.method === "DELETE") {
      if (target.partitionKey !== undefined) out.deleted++;
      continue;
    }
    let json;
    try {
      json = JSON.parse(op.body);
    } catch {
      continue;
    }
    if (!json || typeof json !== "object" || Array.isArray(json)) continue;
    const bytes = entitySize(json, target);
    out.written++;
    out.bytes += bytes;
    out.sizes.push({ table: target.table, bytes });
  }
  return out;
}

/**
 * COSMOS_RU is Microsoft's published table of request units by item size
 * for Azure Cosmos DB (learn.microsoft.com/azure/cosmos-db/
 * understand-request-unit-consumption, "Document size"; reads at session
 * or eventual consistency): [upTo KiB, read RU, write RU].
 */
export const COSMOS_RU = Object.freeze([
  [1, 1.0, 4.95],
  [2, 1.04, 6.29],
  [4, 1.14, 6.67],
  [8, 1.33, 7.04],
  [16, 1.67, 9.52],
  [32, 2.19, 11.23],
  [64, 4.76, 22.67],
  [128, 9.95, 48.19],
  [256, 20.28, 98.29],
  [512, 40.95, 184.57],
  [1024, 145.9, 625.0],
  [2048, 291.8, 1250.0],
]);

// ruFor is the table's row for an item of bytes: the first whose size is
// at least the item's.
function ruFor(bytes) {
  const kib = bytes / 1024;
  return COSMOS_RU.find(([upTo]) => kib <= upTo) ?? COSMOS_RU[COSMOS_RU.length - 1];
}

/**
 * requestUnits is tablelab's model of what Cosmos DB for Table would
 * charge a recorded request, in request units; 0 for a request that
 * failed or is not the Table service's. The model, not Cosmos DB's own
 * charge (which the service sends in x-ms-request-charge):
 *
 *   - a point read is the read RU of the entity's size (a 1 KiB entity,
 *     1 RU);
 *   - a query page charges every entity it examined as a point read of
 *     the average size of those it returned (1 KiB when it returned
 *     none), and at least 1 RU;
 *   - each entity written (insert, replace, merge) is the write RU of
 *     its size (a 1 KiB entity, 4.95 RU), a delete that of a 1 KiB item.
 *
 * Microsoft publishes the per-size figures; how a query's charge grows
 * with what it loads is the model's own choice, which counts a query
 * dearer than Cosmos DB's index usually makes it.
 */
export function requestUnits(entry) {
  if (!entry.status || entry.status >= 300 || !isTableRequest(entry)) return 0;
  if (entry.plan) {
    const sizes = returnedSizes(entry.responseBody ?? "");
    if (entry.plan === "point") return ruFor(sizes[0] ?? 1024)[1];
    const mean = sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : 1024;
    return Math.max(1, (entry.examined ?? 0) * ruFor(mean)[1]);
  }
  let ru = 0;
  const w = writesOf(entry);
  for (const s of w.sizes) ru += ruFor(s.bytes)[2];
  ru += w.deleted * COSMOS_RU[0][2];
  return ru;
}

// returnedSizes is the size of each entity a read's response holds: a
// query's "value" list, or a point read's entity.
function returnedSizes(text) {
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return [];
  }
  if (!json || typeof json !== "object") return [];
  const list = Array.isArray(json.value) ? json.value : [json];
  return list.filter((e) => e && typeof e === "object").map((e) => entitySize(e));
}

/**
 * LATENCY is tablelab's latency model, which a scorecard given
 * {latency: true} prints as each pattern's time: every request is a round
 * trip of roundTripMs, and a query's page takes perHundredExaminedMs more
 * for each hundred entities it examined (a full page of 1,000, 10 ms
 * more). The figures are round numbers chosen to compare designs, not
 * measurements of Azure; what the model gets right is the shape: requests
 * made one after another add up, requests in flight together overlap.
 */
export const LATENCY = Object.freeze({ roundTripMs: 10, perHundredExaminedMs: 1 });

/** requestMs is one recorded request's time under the latency model. */
export function requestMs(entry) {
  return LATENCY.roundTripMs + ((entry.examined ?? 0) / 100) * LATENCY.perHundredExaminedMs;
}

/**
 * modelledMs is how long a run of requests takes under the latency model,
 * in milliseconds, from the order in which the client started and ended
 * them (each entry's started and ended, ticks of one counter). A client
 * starts a request when an answer it waited for has come in: the answer
 * that came in last before the request started (its trigger), and every
 * request started with or before that one and answered before this one
 * started, as Promise.all waits for all of its group. So requests made
 * one after another add up, requests started together overlap, and a
 * chain per item (read, then write, for each of a list at once) takes
 * the chain's length. The result depends on what the code waited for,
 * not on the machine's speed or on which of the overlapping answers
 * happened to come first.
 */
export function modelledMs(entries) {
  const events = [];
  for (const e of entries) {
    if (typeof e.started !== "number") continue;
    events.push({ tick: e.started, entry: e, start: true });
    // A request that never ended (the code stopped) ends at the last tick.
    events.push({ tick: typeof e.ended === "number" ? e.ended : Infinity, entry: e, start: false });
  }
  events.sort((a, b) => a.tick - b.tick);
  const ends = new Map();
  const ended = []; // [started tick, modelled end], in the order they ended
  let total = 0;
  for (const ev of events) {
    if (!ev.start) {
      ended.push([ev.entry.started, ends.get(ev.entry)]);
      continue;
    }
    let ready = 0;
    if (ended.length > 0) {
      const trigger = ended[ended.length - 1][0];
      for (const [started, end] of ended) if (started <= trigger) ready = Math.max(ready, end);
    }
    const end = ready + requestMs(ev.entry);
    ends.set(ev.entry, end);
    total = Math.max(total, end);
  }
  return total;
}

/** msText writes a modelled time as a scorecard prints it: "10 ms", "1,204 ms". */
export function msText(ms) {
  return `${grouped(Math.round(ms))} ms`;
}

/** ru writes request units as the plan panel shows them: "1 RU", "4.95 RU", "1,204 RU". */
export function ruText(n) {
  return `${grouped(n >= 100 ? Math.round(n) : Math.round(n * 100) / 100)} RU`;
}
