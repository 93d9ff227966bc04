// The partition heat model: entity operations per partition per second
// of the run's store clock, from the requests the runner records, set
// against the partition target. What a run prints never depends on it:
// the runner worker works out each request's operations (operationsOf)
// and the page adds them up (Heat).
//
// An operation is a write of one entity (a batch counts each of its
// operations) or an entity a read examined (the engine's
// X-Tablelab-Examined). The partition of a write is in its request (the
// entity's URL, or the PartitionKey of the body it inserts); that of a
// read in its URL or, for a range or partition scan, the one PartitionKey
// its filter names, which the engine's plan guarantees there is. A table
// scan walks many partitions and says not how many entities of each, so
// its entities are counted per table, apart from the partitions.
//
// Time is the response's Date header: the store's clock, which stands
// still while a run holds it, so every request of a run falls in one
// second until the code sleeps.

/** PARTITION_TARGET is the service's target for one partition: entities a second. */
export const PARTITION_TARGET = 2000;

// OTHER_PORTS are the development storage's Blob and Queue ports, whose
// requests touch no table.
const OTHER_PORTS = new Set(["10000", "10001"]);

/**
 * operationsOf is what one recorded request did to the partitions:
 * [{table, partition, count, read}] (a table scan's entry has partition
 * null). Requests that touch no entity (tables, queues, blobs) and
 * requests that never got an answer give [].
 */
export function operationsOf(entry) {
  if (!entry?.status || !entry.url) return [];
  let u;
  try {
    u = new URL(entry.url);
  } catch {
    return [];
  }
  if (OTHER_PORTS.has(u.port)) return [];
  const rest = decodeURIComponent(u.pathname.replace(/^\/[^/]+\/?/, ""));
  if (rest === "$batch") return batchOperations(entry.requestBody ?? "");
  const target = entityTarget(rest);
  if (!target || /^Tables$/i.test(target.table)) return [];
  const { table, partition } = target;
  if (entry.plan) {
    let pk = partition;
    if (pk === undefined && entry.plan !== "table-scan") pk = filterPartition(u.searchParams.get("$filter") ?? "");
    return [{ table, partition: pk ?? null, count: entry.examined ?? 0, read: true }];
  }
  if (entry.method === "GET") return [];
  if (partition !== undefined) return [{ table, partition, count: 1, read: false }];
  if (entry.method === "POST") {
    const pk = bodyPartition(entry.requestBody ?? "");
    if (pk !== undefined) return [{ table, partition: pk, count: 1, read: false }];
  }
  return [];
}

// entityTarget reads "Table", "Table()" or
// "Table(PartitionKey='p',RowKey='r')": the table and, when the URL names
// one, the entity's PartitionKey.
function entityTarget(rest) {
  const m = /^([^()/]+)(?:\((.*)\))?$/.exec(rest);
  if (!m) return null;
  const keys = /PartitionKey='((?:[^']|'')*)'/.exec(m[2] ?? "");
  return { table: m[1], partition: keys ? keys[1].replace(/''/g, "'") : undefined };
}

// filterPartition is the PartitionKey a filter pins with eq, when it names
// exactly one.
function filterPartition(filter) {
  const found = new Set();
  for (const m of filter.matchAll(/PartitionKey\s+eq\s+'((?:[^']|'')*)'/g)) found.add(m[1].replace(/''/g, "'"));
  return found.size === 1 ? [...found][0] : undefined;
}

// bodyPartition is the PartitionKey of the JSON entity in text.
function bodyPartition(text) {
  const m = /"PartitionKey"\s*:\s*("(?:[^"\\]|\\.)*")/.exec(text);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]);
  } catch {
    return undefined;
  }
}

// batchOperations counts the operations of a $batch body: every one is on
// the same partition (the service refuses a batch that is not), named by
// the first operation's URL or body.
function batchOperations(body) {
  const lines = [...body.matchAll(/^(GET|POST|PUT|MERGE|PATCH|DELETE) (\S+) HTTP\/1\.1\r?$/gm)];
  if (lines.length === 0) return [];
  let path;
  try {
    path = decodeURIComponent(new URL(lines[0][2]).pathname.replace(/^\/[^/]+\/?/, ""));
  } catch {
    return [];
  }
  const target = entityTarget(path);
  if (!target) return [];
  const pk = target.partition ?? bodyPartition(body.slice(lines[0].index));
  if (pk === undefined) return [];
  return [{ table: target.table, partition: pk, count: lines.length, read: false }];
}

/**
 * Heat adds up a run's operations per partition and per second of the
 * store's clock, counted from the run's first second.
 */
export class Heat {
  constructor() {
    this.first = null;
    this.last = null;
    this.partitions = new Map(); // "table\u0000pk" → {table, partition, seconds: Map}
    this.scans = new Map(); // table → Map(second → count)
  }

  /**
   * add counts one recorded request (a runner entry with its date). An
   * entry that carries ops, its operationsOf as the runner worker worked
   * them out, is not read again.
   */
  add(entry) {
    const ops = entry.ops ?? operationsOf(entry);
    if (ops.length === 0) return;
    const at = Date.parse(entry.date ?? "");
    let second = Number.isNaN(at) ? this.last : Math.floor(at / 1000);
    if (second === null) return;
    this.first = this.first === null ? second : Math.min(this.first, second);
    this.last = second;
    for (const op of ops) {
      if (op.count <= 0) continue;
      let seconds;
      if (op.partition === null) {
        if (!this.scans.has(op.table)) this.scans.set(op.table, new Map());
        seconds = this.scans.get(op.table);
      } else {
        const key = `${op.table}\u0000${op.partition}`;
        if (!this.partitions.has(key)) this.partitions.set(key, { table: op.table, partition: op.partition, seconds: new Map() });
        seconds = this.partitions.get(key).seconds;
      }
      seconds.set(second, (seconds.get(second) ?? 0) + op.count);
    }
  }

  /**
   * summary is what the panel draws: {seconds, partitions, scans, over,
   * busiest}. seconds is how many seconds the run's clock spanned;
   * partitions the busiest limit of them, each {table, partition, total,
   * peak, peakSecond, perSecond, over}, busiest (by peak) first; over how
   * many of all the partitions went past the target in some second;
   * scans the tables' table-scan counts, {table, total, perSecond}.
   * perSecond lists a count for each second from the first.
   */
  summary(limit = 8) {
    const span = this.first === null ? 0 : this.last - this.first + 1;
    const row = (seconds) => {
      const perSecond = new Array(span).fill(0);
      for (const [s, n] of seconds) perSecond[s - this.first] += n;
      let peak = 0;
      let peakSecond = 0;
      perSecond.forEach((n, i) => {
        if (n > peak) [peak, peakSecond] = [n, i];
      });
      return { total: perSecond.reduce((a, b) => a + b, 0), peak, peakSecond, perSecond };
    };
    const all = [...this.partitions.values()].map((p) => {
      const r = row(p.seconds);
      return { table: p.table, partition: p.partition, ...r, over: r.peak > PARTITION_TARGET };
    });
    all.sort((a, b) => b.peak - a.peak || b.total - a.total || cmp(a.table, b.table) || cmp(a.partition, b.partition));
    return {
      seconds: span,
      partitions: all.slice(0, limit),
      more: Math.max(0, all.length - limit),
      count: all.length,
      over: all.filter((p) => p.over).length,
      scans: [...this.scans].map(([table, seconds]) => ({ table, ...row(seconds) })).sort((a, b) => cmp(a.table, b.table)),
    };
  }
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
