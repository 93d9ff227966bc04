// The keyspace map's model: a table's keys in the engine's order, grouped
// into partitions, with the stretch the last query walked and the entities
// it returned. Pure functions, so node --test checks them.
//
// Every count comes from the engine: the keys from a listing of the table,
// the walk's length from X-Tablelab-Examined, the returned entities from
// the response. Only where the walk began is read from the request: the
// continuation it resumed from, the keys in its URL, or the key bounds its
// $filter states (for a table scan, the table's first key).

/**
 * compareKeys orders [PartitionKey, RowKey] pairs as the engine does: by
 * PartitionKey, then RowKey, comparing UTF-16 code units like the service.
 */
export function compareKeys(a, b) {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  if (a[1] !== b[1]) return a[1] < b[1] ? -1 : 1;
  return 0;
}

/** partitionsOf groups sorted keys into {pk, start, count} runs. */
export function partitionsOf(keys) {
  const out = [];
  for (let i = 0; i < keys.length; i++) {
    const last = out[out.length - 1];
    if (last && last.pk === keys[i][0]) last.count++;
    else out.push({ pk: keys[i][0], start: i, count: 1 });
  }
  return out;
}

/** lowerIndex is the position of the first key not before key. */
export function lowerIndex(keys, key) {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareKeys(keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * walkStart reads where a query's walk began from its URL: the
 * continuation it resumed from; the keys of a point read's path; the
 * bounds its $filter puts on PartitionKey and RowKey in its top-level
 * "and"s; otherwise the table's start. It returns a [pk, rk] key ("" is
 * the lowest).
 */
export function walkStart(url) {
  const u = new URL(url);
  const npk = u.searchParams.get("NextPartitionKey");
  if (npk !== null) return [npk, u.searchParams.get("NextRowKey") ?? ""];
  const path = decodeURIComponent(u.pathname);
  const point = /\(PartitionKey='((?:[^']|'')*)',\s*RowKey='((?:[^']|'')*)'\)$/.exec(path);
  if (point) return [unquote(point[1]), unquote(point[2])];
  const filter = u.searchParams.get("$filter");
  if (!filter) return ["", ""];
  let pk = null;
  let rk = "";
  for (const term of topLevelAnds(filter)) {
    const m = /^\(*\s*(PartitionKey|RowKey)\s+(eq|ge|gt)\s+'((?:[^']|'')*)'\s*\)*$/.exec(term.trim());
    if (!m) continue;
    const value = unquote(m[3]);
    if (m[1] === "PartitionKey") {
      if (pk === null || value > pk) pk = value;
    } else if (value > rk) {
      rk = value;
    }
  }
  if (pk === null) return ["", ""];
  return [pk, rk];
}

function unquote(s) {
  return s.replace(/''/g, "'");
}

// topLevelAnds splits a filter on the "and"s outside parentheses and
// string literals; a filter with a top-level "or" yields no bounds.
function topLevelAnds(filter) {
  const terms = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < filter.length; i++) {
    const c = filter[i];
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0 && /^\sor\s/i.test(filter.slice(i, i + 4))) return [];
    else if (depth === 0 && /^\sand\s/i.test(filter.slice(i, i + 5))) {
      terms.push(filter.slice(start, i));
      start = i + 5;
    }
  }
  terms.push(filter.slice(start));
  // A whole filter in parentheses is one term: look inside it.
  if (terms.length === 1) {
    const t = terms[0].trim();
    if (t.startsWith("(") && t.endsWith(")") && balanced(t.slice(1, -1))) return topLevelAnds(t.slice(1, -1));
  }
  return terms;
}

function balanced(s) {
  let depth = 0;
  let quoted = false;
  for (const c of s) {
    if (c === "'") quoted = !quoted;
    if (quoted) continue;
    if (c === "(") depth++;
    if (c === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * mapOf builds the map's model: keys (sorted [pk, rk] pairs of the whole
 * table), the last query ({url, plan, examined}) and the keys it returned.
 * It resolves to {partitions, walked: [from, to), returned: sorted
 * indexes, plan}; walked is empty when the query examined nothing.
 */
export function mapOf(keys, query, returnedKeys) {
  const partitions = partitionsOf(keys);
  const returned = [];
  for (const k of returnedKeys) {
    const i = lowerIndex(keys, k);
    if (i < keys.length && compareKeys(keys[i], k) === 0) returned.push(i);
  }
  returned.sort((a, b) => a - b);
  let walked = [0, 0];
  // An index (Cosmos DB for Table's profile) reads what matches wherever
  // it lies: no stretch of the keyspace was walked.
  if (query && query.examined > 0 && query.plan !== "index") {
    const from = query.plan === "table-scan" && !new URL(query.url).searchParams.has("NextPartitionKey")
      ? 0
      : lowerIndex(keys, walkStart(query.url));
    walked = [from, Math.min(keys.length, from + query.examined)];
  }
  return { partitions, walked, returned, plan: query?.plan ?? null };
}
