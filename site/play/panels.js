// The playground's panels, drawn from what a run reported: the wire log
// (live while the program runs), the results grid, the keyspace map and
// the cost meter. Every number comes from the engine's answers.

import { ENDPOINT } from "./engine.js";
import { el, planBadge, prettyXML, queryTarget, serviceOf } from "./view.js";
import { formatRequest, parseResponse } from "./wire.js";
import { entitiesOf, gridOf } from "./grid.js";
import { mapOf } from "./keyspace.js";

// The map draws every entity up to this many; a larger table is drawn
// from its first keys, and says so.
const MAP_LIMIT = 5000;
// Past this many partitions the map names none under the strip; the
// readout still names each key.
const LABEL_LIMIT = 100;
const GRID_LIMIT = 200;
// A run's progress is put on the page at most once in this many
// milliseconds. Each update is a frame of style, layout, paint and a
// commit to the compositor, which on a busy machine costs the main thread
// far more than the messages behind it; drawn once an animation frame, a
// program making a request every few milliseconds kept the page painting
// without pause.
const DRAW_MS = 500;

/**
 * LiveView puts what a run prints and requests on the page as it happens,
 * in an animation frame at most once every DRAW_MS: a program making a
 * request every millisecond costs the page two small updates a second,
 * not one a message. The wire log keeps the newest limit requests and
 * says how many it dropped.
 */
export class LiveView {
  constructor({ output, wire, wireDropped }, limit, say) {
    Object.assign(this, { output, wire, wireDropped, limit, say });
    this.lines = [];
    this.entries = [];
    this.printed = false;
    this.requested = 0;
    this.dropped = 0;
    this.timer = 0;
    this.frame = 0;
    this.drawn = -Infinity;
    wire.replaceChildren();
    wire.classList.add("pg-wire-live");
    this.#showDropped();
  }

  print(line) {
    this.lines.push(line);
    this.#schedule();
  }

  request(entry) {
    this.requested++;
    this.entries.push(entry);
    // While frames do not come (a hidden tab), the queue keeps no more
    // than the log would show.
    if (this.entries.length >= 2 * this.limit) {
      const gone = this.entries.length - this.limit;
      this.entries.splice(0, gone);
      this.dropped += gone;
    }
    this.#schedule();
  }

  // finish draws the requests still queued at once; what is left to
  // print is the run's output, which the caller sets whole.
  finish() {
    clearTimeout(this.timer);
    cancelAnimationFrame(this.frame);
    this.timer = this.frame = 0;
    this.lines = [];
    this.#drawRequests();
    this.wire.classList.remove("pg-wire-live");
  }

  // schedule asks for a draw DRAW_MS after the last one, in the frame
  // after that: a hidden tab, which gets no frames, draws nothing.
  #schedule() {
    if (this.timer || this.frame) return;
    const frame = () => {
      this.timer = 0;
      this.frame = requestAnimationFrame(() => this.#draw());
    };
    const wait = this.drawn + DRAW_MS - performance.now();
    if (wait > 0) this.timer = setTimeout(frame, wait);
    else frame();
  }

  #draw() {
    this.frame = 0;
    this.drawn = performance.now();
    if (this.lines.length) {
      const text = this.lines.join("\n");
      this.output.append(this.printed ? `\n${text}` : text);
      this.printed = true;
      this.lines = [];
    }
    this.#drawRequests();
    if (this.requested) this.say(`Running… ${this.requested.toLocaleString("en-US")} request${this.requested === 1 ? "" : "s"} so far.`);
  }

  #drawRequests() {
    if (!this.entries.length) return;
    const fresh = this.entries.slice(-this.limit);
    this.dropped += this.entries.length - fresh.length;
    this.entries = [];
    const items = document.createDocumentFragment();
    for (const entry of fresh) items.append(wireItem(entry));
    this.wire.append(items);
    for (let n = this.wire.childElementCount - this.limit; n > 0; n--) {
      this.wire.firstElementChild.remove();
      this.dropped++;
    }
    this.#showDropped();
  }

  #showDropped() {
    const note = this.wireDropped;
    if (note.dataset.dropped === String(this.dropped)) return;
    note.dataset.dropped = String(this.dropped);
    note.hidden = this.dropped === 0;
    note.textContent = `${this.dropped.toLocaleString("en-US")} earlier request${this.dropped === 1 ? " is" : "s are"} not shown: the log keeps the newest ${this.limit}.`;
  }
}

// wireItem is one request of the log. Its headers and bodies are drawn
// when it is first opened: a log of large batches would otherwise lay out
// every one.
function wireItem(entry) {
  const item = el("li", "pg-wire-item");
  const service = serviceOf(entry.url);
  item.dataset.method = entry.method;
  item.dataset.status = String(entry.status);
  item.dataset.service = service;
  const details = el("details");
  const summary = el("summary");
  summary.append(
    el("span", `pg-wire-service pg-wire-${service}`, service),
    " ",
    el("span", "pg-wire-method", entry.method),
    " ",
    el("code", "pg-wire-path", queryTarget(entry.url)),
    " ",
    el("span", `pg-wire-status ${entry.status >= 400 || entry.status === 0 ? "pg-bad" : "pg-ok"}`, entry.status ? String(entry.status) : "failed"),
    " ",
    el("span", "pg-wire-time", `${entry.ms} ms`),
  );
  if (entry.plan) summary.append(" ", planBadge(entry.plan));
  details.append(summary);
  details.addEventListener(
    "toggle",
    () => {
      const sides = [
        ["Request", `${entry.method} ${entry.url}`, entry.requestHeaders, entry.requestBody],
        ["Response", entry.status ? `${entry.status}` : "no response", entry.responseHeaders, entry.responseBody || entry.error || ""],
      ];
      for (const [title, line, headers, body] of sides) {
        const part = el("div", "pg-wire-part");
        part.append(el("p", "pg-wire-label", title), el("code", "pg-wire-line", line));
        const h = el("pre", "pg-wire-headers", (headers ?? []).map(([k, v]) => `${k}: ${v}`).join("\n") || "(no headers)");
        h.tabIndex = 0;
        h.setAttribute("aria-label", `${title} headers`);
        const b = el("pre", "pg-wire-body", body ? pretty(body) : "(no body)");
        b.tabIndex = 0;
        b.setAttribute("aria-label", `${title} body`);
        part.append(h, b);
        details.append(part);
      }
    },
    { once: true },
  );
  item.append(details);
  return item;
}

// pretty lays out a JSON body (a table's) or an XML body (a queue's or a
// blob listing's) one element a line; anything else stays as it is.
function pretty(body) {
  if (/^\s*</.test(body)) return prettyXML(body);
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/**
 * renderCost fills the cost meter: the totals since the page opened, and
 * the last run's beside them.
 */
export function renderCost(dl, totals, last) {
  const rows = [
    ["Billable transactions", "requests", "one per request: a batch is one, each page of a query is one"],
    ["Entities examined", "examined", "what the engine read to answer the queries"],
    ["Entities returned", "returned", "what the queries sent back"],
  ];
  dl.replaceChildren();
  for (const [label, key, hint] of rows) {
    const dt = el("dt", "", label);
    dt.title = hint;
    const dd = el("dd");
    dd.dataset.total = String(totals[key]);
    dd.append(el("strong", "", totals[key].toLocaleString("en-US")));
    if (last) dd.append(el("span", "pg-cost-last", ` (last run ${last[key].toLocaleString("en-US")})`));
    dl.append(dt, dd);
  }
  dl.append(el("dt", "", "Runs"), el("dd", "", String(totals.runs)));
  if (totals.examined > 0) {
    const ratio = totals.returned / totals.examined;
    dl.append(el("dt", "", "Returned per examined"), el("dd", "", `${Math.round(ratio * 100)}%`));
  }
}

/**
 * renderGrid shows the entities of the last response that had any, the
 * first GRID_LIMIT of them, PartitionKey and RowKey first, each column
 * with its types.
 */
export function renderGrid(table, requests) {
  let entities = [];
  for (let i = requests.length - 1; i >= 0 && entities.length === 0; i--) {
    if (requests[i].method === "GET" && requests[i].status === 200) entities = entitiesOf(requests[i].responseBody);
  }
  table.replaceChildren();
  if (entities.length === 0) {
    table.append(el("caption", "pg-empty", "No entities returned yet."));
    return;
  }
  // Only the rows drawn are laid out: their columns and types are those
  // of the entities shown (a page of a query may hold a thousand).
  const { columns, rows } = gridOf(entities.slice(0, GRID_LIMIT));
  const count = `${entities.length.toLocaleString("en-US")} entit${entities.length === 1 ? "y" : "ies"}`;
  table.append(
    el(
      "caption",
      "",
      entities.length > GRID_LIMIT
        ? `The first ${GRID_LIMIT} of ${count} from the last query that returned any`
        : `${count} from the last query that returned any`,
    ),
  );
  const head = el("tr");
  for (const c of columns) {
    const th = el("th");
    th.scope = "col";
    th.append(el("span", "pg-col-name", c.name));
    if (c.types.length) th.append(el("span", "pg-col-type", c.types.map((t) => t.replace(/^Edm\./, "")).join(" | ")));
    head.append(th);
  }
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  for (const r of rows) {
    const tr = el("tr");
    for (const cell of r) {
      const td = el("td", cell ? `pg-cell pg-type-${cell.type.replace(/^Edm\./, "").toLowerCase() || "etag"}` : "pg-cell pg-absent");
      td.textContent = cell ? cell.value : "";
      if (cell?.type) td.title = cell.type;
      tr.append(td);
    }
    tbody.append(tr);
  }
  table.append(thead, tbody);
}

/**
 * renderMap draws the keyspace of the table the last query read: its keys
 * listed from the engine (a listing that is not part of the program, so
 * it is not in the wire log or the cost), partitions as blocks as wide as
 * their entity counts, the stretch the query walked shaded and the
 * entities it returned marked. The strip is a slider over the entities:
 * arrow keys (Page Up/Down by partition, Home, End), a tap or the pointer
 * name each key in the readout beneath it.
 */
export async function renderMap(box, engine, store, result) {
  const query = result.queries[result.queries.length - 1];
  delete box.dataset.walkedFrom;
  delete box.dataset.walkedTo;
  delete box.dataset.returned;
  if (!query) {
    box.replaceChildren(el("p", "pg-empty", "The map shows the table the last query read."));
    return;
  }
  const request = result.requests.findLast((r) => r.plan && r.url === query.url);
  const table = decodeURIComponent(new URL(query.url).pathname.split("/")[2] ?? "").replace(/\(.*$/, "");
  let keys;
  try {
    keys = await listKeys(engine, store, table);
  } catch (err) {
    box.replaceChildren(el("p", "pg-empty", `The keys of ${table} could not be listed: ${err.message}`));
    return;
  }
  const list = keys.list;
  const returnedKeys = entitiesOf(request?.responseBody ?? "").map((e) => [e.PartitionKey, e.RowKey]);
  const m = mapOf(list, query, returnedKeys);
  box.dataset.walkedFrom = String(m.walked[0]);
  box.dataset.walkedTo = String(m.walked[1]);
  box.dataset.returned = String(m.returned.length);
  if (list.length === 0) {
    box.replaceChildren(el("p", "pg-empty", `${table} holds no entities.`));
    return;
  }

  const returned = new Set(m.returned);
  const partitionOf = (i) => m.partitions.findLast((p) => p.start <= i);
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${list.length} 10`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "pg-map-strip");
  const summary = `${table}: ${list.length} entities in ${m.partitions.length} partitions; the last query (${query.plan}) walked entities ${m.walked[0] + 1}–${m.walked[1]} and returned ${m.returned.length}.`;
  svg.setAttribute("role", "slider");
  svg.setAttribute("tabindex", "0");
  svg.setAttribute("aria-label", `Keys of ${table}`);
  svg.setAttribute("aria-describedby", "pg-map-summary");
  svg.setAttribute("aria-valuemin", "1");
  svg.setAttribute("aria-valuemax", String(list.length));
  // A slider must have a value before the reader moves it (axe-core's
  // aria-required-attr): the first key, said to be none read yet.
  svg.setAttribute("aria-valuenow", "1");
  svg.setAttribute("aria-valuetext", "No key read yet: use the arrow keys");
  const rect = (x, w, cls) => {
    const r = document.createElementNS(svgNS, "rect");
    r.setAttribute("x", String(x));
    r.setAttribute("y", cls === "pg-map-hit" ? "6" : "0");
    r.setAttribute("width", String(w));
    r.setAttribute("height", cls === "pg-map-hit" ? "4" : "10");
    r.setAttribute("class", cls);
    svg.append(r);
    return r;
  };
  m.partitions.forEach((p, i) => rect(p.start, p.count, `pg-map-part pg-map-part-${i % 2}`));
  if (m.walked[1] > m.walked[0]) rect(m.walked[0], m.walked[1] - m.walked[0], `pg-map-walk plan-${query.plan}`);
  for (const i of m.returned) rect(i, 1, "pg-map-hit");
  const cursor = rect(0, 1, "pg-map-cursor");
  cursor.setAttribute("visibility", "hidden");

  const readout = el("p", "pg-map-readout", "Focus the strip and use the arrow keys, or point at it, to read each key.");
  readout.setAttribute("aria-live", "polite");
  let at = -1;
  const show = (i) => {
    at = Math.max(0, Math.min(list.length - 1, i));
    const [pk, rk] = list[at];
    const p = partitionOf(at);
    const walked = at >= m.walked[0] && at < m.walked[1];
    const text = `${pk} / ${rk} · entity ${at + 1} of ${list.length}, partition ${pk} (${p.count} entit${p.count === 1 ? "y" : "ies"})${walked ? " · walked" : ""}${returned.has(at) ? " · returned" : ""}`;
    readout.textContent = text;
    svg.setAttribute("aria-valuenow", String(at + 1));
    svg.setAttribute("aria-valuetext", text);
    cursor.setAttribute("x", String(at));
    cursor.setAttribute("visibility", "visible");
  };
  // Until the reader moves it, the slider stands at the walk's first
  // entity, unmarked.
  const startAt = Math.min(m.walked[0], list.length - 1);
  svg.setAttribute("aria-valuenow", String(startAt + 1));
  svg.setAttribute("aria-valuetext", `${list[startAt][0]} / ${list[startAt][1]}, where the walk began`);
  svg.addEventListener("keydown", (e) => {
    const p = at < 0 ? m.partitions[0] : partitionOf(at);
    const moves = {
      ArrowRight: () => at + 1,
      ArrowUp: () => at + 1,
      ArrowLeft: () => at - 1,
      ArrowDown: () => at - 1,
      Home: () => 0,
      End: () => list.length - 1,
      PageDown: () => p.start + p.count,
      PageUp: () => (at > p.start ? p.start : (partitionOf(p.start - 1)?.start ?? 0)),
    };
    if (!moves[e.key]) return;
    e.preventDefault();
    show(at < 0 && e.key.startsWith("Arrow") ? 0 : moves[e.key]());
  });
  const pointAt = (e) => {
    const r = svg.getBoundingClientRect();
    if (r.width > 0) show(Math.floor(((e.clientX - r.left) / r.width) * list.length));
  };
  svg.addEventListener("pointerdown", pointAt);
  svg.addEventListener("pointermove", (e) => {
    if (e.pointerType === "mouse" || e.buttons) pointAt(e);
  });

  const labels = el("ol", "pg-map-labels");
  labels.setAttribute("aria-hidden", "true");
  for (const p of m.partitions.length <= LABEL_LIMIT ? m.partitions : []) {
    const li = el("li", "", p.pk);
    li.style.flexGrow = String(p.count);
    labels.append(li);
  }
  const legend = el("p", "pg-map-legend");
  legend.id = "pg-map-summary";
  legend.append(
    planBadge(query.plan),
    ` walked ${(m.walked[1] - m.walked[0]).toLocaleString("en-US")} of ${list.length.toLocaleString("en-US")} entities in ${table}; `,
    el("span", "pg-map-key-hit", "▮"),
    ` ${m.returned.length} returned.`,
  );
  legend.append(el("span", "visually-hidden", ` ${summary}`));
  const parts = [legend, svg, labels, readout];
  if (keys.truncated) parts.push(el("p", "pg-empty", `Only the first ${MAP_LIMIT.toLocaleString("en-US")} keys are drawn.`));
  parts.push(el("p", "pg-map-note", "Where the walk starts is read from the query's keys; its length is the engine's examined count."));
  box.replaceChildren(...parts);
}

// listKeys pages through a table's keys with $select, signed with the
// store's SAS, straight to the engine.
async function listKeys(engine, store, table) {
  const sas = String(await engine.op(store, "sas")).replace(/^\?/, "");
  const list = [];
  let next = "";
  do {
    const url = `${ENDPOINT}/${encodeURIComponent(table)}()?$select=PartitionKey,RowKey&${sas}${next}`;
    const text = formatRequest("GET", url, [
      ["Accept", "application/json;odata=nometadata"],
      ["x-ms-version", "2019-02-02"],
      ["DataServiceVersion", "3.0"],
    ]);
    const resp = parseResponse(await engine.request(store, text));
    if (resp.status !== 200) throw new Error(`HTTP ${resp.status}`);
    for (const e of JSON.parse(resp.body).value) list.push([e.PartitionKey, e.RowKey]);
    const npk = resp.headers["x-ms-continuation-nextpartitionkey"];
    next = npk
      ? `&NextPartitionKey=${encodeURIComponent(npk)}&NextRowKey=${encodeURIComponent(resp.headers["x-ms-continuation-nextrowkey"] ?? "")}`
      : "";
  } while (next && list.length < MAP_LIMIT);
  return { list: list.slice(0, MAP_LIMIT), truncated: list.length >= MAP_LIMIT && next !== "" };
}
