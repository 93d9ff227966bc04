// The live request inspector: every request the local server's services
// answer, from any SDK, as it happens (server-sent events from
// /_tablelab/inspect/events), with its plan, counts, status, error code,
// duration and the client's request id; filters by table, status, plan,
// service and source; headers and bodies of one request on demand; and
// a flag, with the pattern that avoids it, on a table scan or a query
// that examined far more than it returned.

import { TOOLS, button, el, info, notOnLocalServer, planBadge, statusClass } from "./common.js";

/** The most requests the page lists; older ones leave the list. */
const MAX_ROWS = 1000;

/** The SAS fields the explorer's requests carry, left out of their paths. */
const SAS_FIELDS = new Set(["sv", "ss", "srt", "sp", "se", "st", "spr", "sip", "sig"]);

/**
 * displayPath is a record's target as the list shows it: decoded, so a
 * filter reads as it was written, and without the SAS fields the
 * explorer signs its own requests with.
 */
export function displayPath(rec) {
  const [path, query = ""] = rec.path.split("?");
  let kept = query.split("&").filter((p) => p);
  if (rec.source === "explorer") kept = kept.filter((p) => !SAS_FIELDS.has(p.split("=")[0]));
  const text = kept.length ? `${path}?${kept.join("&")}` : path;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** matches says whether rec passes the filters f. */
export function matches(rec, f) {
  if (!f.explorer && rec.source === "explorer") return false;
  if (f.service && rec.service !== f.service) return false;
  if (f.table && !rec.resource?.toLowerCase().includes(f.table.toLowerCase())) return false;
  switch (f.status) {
    case "2xx":
    case "3xx":
    case "4xx":
    case "5xx":
      if (Math.floor(rec.status / 100) !== Number(f.status[0])) return false;
      break;
    case "errors":
      if (rec.status < 400) return false;
      break;
  }
  switch (f.plan) {
    case "":
      break;
    case "flagged":
      if (!rec.advice) return false;
      break;
    case "any":
      if (!rec.plan) return false;
      break;
    default:
      if (rec.plan !== f.plan) return false;
  }
  return true;
}

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", fractionalSecondDigits: 3, hour12: false });

function duration(micros) {
  if (micros < 1000) return `${(micros / 1000).toFixed(2)} ms`;
  if (micros < 100000) return `${(micros / 1000).toFixed(1)} ms`;
  return `${Math.round(micros / 1000)} ms`;
}

function selectField(label, name, options) {
  const wrap = el("label", "tool-field");
  wrap.append(el("span", "tool-field-label", label));
  const s = el("select", "tool-input");
  s.name = name;
  for (const [value, text] of options) s.append(new Option(text, value));
  wrap.append(s);
  return { wrap, input: s };
}

async function main() {
  const root = document.getElementById("tool");
  if (!root) return;
  const site = root.dataset.root ?? "";
  // The page is useful only where the server's tools answer.
  if (!(await info())) {
    root.append(notOnLocalServer("inspector"));
    return;
  }

  const bar = el("div", "tool-bar");
  const live = el("p", "insp-live");
  live.setAttribute("role", "status");
  const count = el("p", "tool-muted insp-count");
  const pause = button("Pause", "tool-button", () => setPaused(!paused));
  pause.setAttribute("aria-pressed", "false");
  const clearB = button("Clear", "tool-button", () => {
    clearedUpTo = lastId;
    records.length = 0;
    tbody.replaceChildren();
    waiting.length = 0;
    closeDetail();
    update();
  });
  bar.append(live, count, pause, clearB);

  const filters = el("form", "insp-filters");
  filters.setAttribute("aria-label", "Filters");
  const table = el("label", "tool-field");
  table.append(el("span", "tool-field-label", "Table, queue or container"));
  const tableIn = el("input", "tool-input");
  tableIn.name = "table";
  tableIn.type = "search";
  tableIn.setAttribute("list", "insp-resources");
  const resources = el("datalist");
  resources.id = "insp-resources";
  table.append(tableIn, resources);
  const status = selectField("Status", "status", [["", "All"], ["2xx", "2xx success"], ["3xx", "3xx"], ["4xx", "4xx client error"], ["5xx", "5xx server error"], ["errors", "Any error"]]);
  const plan = selectField("Plan", "plan", [["", "All requests"], ["any", "Any query"], ["point", "point"], ["range", "range"], ["partition-scan", "partition scan"], ["table-scan", "table scan"], ["flagged", "Flagged only"]]);
  const service = selectField("Service", "service", [["", "All"], ["Table", "Table"], ["Queue", "Queue"], ["Blob", "Blob"]]);
  const explorerBox = el("label", "tool-check");
  const explorerIn = el("input");
  explorerIn.type = "checkbox";
  explorerIn.name = "explorer";
  explorerBox.append(explorerIn, " The explorer's requests");
  filters.append(table, status.wrap, plan.wrap, service.wrap, explorerBox);
  filters.addEventListener("submit", (e) => e.preventDefault());
  filters.addEventListener("input", () => applyFilters());

  const split = el("div", "insp-split");
  const listWrap = el("div", "tool-grid-wrap insp-list");
  listWrap.setAttribute("role", "region");
  listWrap.setAttribute("aria-label", "Requests, newest first");
  listWrap.tabIndex = 0;
  const t = el("table", "tool-grid insp-table");
  t.append(el("caption", "visually-hidden", "Requests the server answered, newest first"));
  const hr = el("tr");
  for (const h of ["Time", "Service", "Request", "Status", "Plan", "Examined / returned", "Duration", "Client request id"]) {
    const th = el("th", "", h);
    th.scope = "col";
    hr.append(th);
  }
  t.createTHead().append(hr);
  const tbody = t.createTBody();
  const empty = el("p", "tool-muted insp-empty", "Waiting for requests: run your application or tests against the server, or use the explorer.");
  listWrap.append(t, empty);
  const detail = el("aside", "insp-detail");
  detail.setAttribute("aria-label", "Request details");
  detail.hidden = true;
  split.append(listWrap, detail);
  root.append(bar, filters, split);

  const records = [];
  const waiting = [];
  const seenResources = new Set();
  let paused = false;
  let lastId = 0;
  let clearedUpTo = 0;
  let missed = 0;
  let selected = null;

  function currentFilters() {
    return { table: tableIn.value.trim(), status: status.input.value, plan: plan.input.value, service: service.input.value, explorer: explorerIn.checked };
  }

  function rowOf(rec) {
    const tr = el("tr", "insp-row");
    if (rec.advice) tr.classList.add("insp-flagged");
    if (rec.source === "explorer") tr.classList.add("insp-explorer");
    Object.assign(tr.dataset, { id: String(rec.id), service: rec.service, status: String(rec.status), plan: rec.plan ?? "", resource: rec.resource ?? "", source: rec.source, clientRequestId: rec.clientRequestId ?? "" });
    const cell = (label, ...content) => {
      const td = el("td");
      td.dataset.label = label;
      td.append(...content);
      tr.append(td);
      return td;
    };
    cell("Time", timeFormat.format(new Date(rec.time)));
    cell("Service", rec.service);
    const open = button(`${rec.method} ${displayPath(rec)}`, "insp-open", () => openDetail(rec, open));
    open.setAttribute("aria-haspopup", "false");
    const req = cell("Request", open);
    req.classList.add("insp-req");
    if (rec.source === "explorer") req.append(el("span", "insp-tag", "explorer"));
    if (rec.advice) {
      const a = el("p", "insp-advice");
      a.append(el("strong", "", "Flagged: "), rec.advice.reason, " Try ");
      rec.advice.patterns.forEach((p, i) => {
        if (i > 0) a.append(i === rec.advice.patterns.length - 1 ? " or " : ", ");
        const link = el("a", "", p.title);
        link.href = site + p.page;
        a.append(link);
      });
      a.append(".");
      req.append(a);
    }
    const st = el("span", statusClass(rec.status), String(rec.status));
    const stCell = cell("Status", st);
    if (rec.code) stCell.append(" ", el("span", `insp-code ${statusClass(rec.status)}`, rec.code));
    // Empty cells are marked so a phone's card leaves them out.
    const mark = (td, empty) => (empty ? (td.dataset.empty = "") : td);
    mark(cell("Plan", rec.plan ? planBadge(rec.plan) : el("span", "tool-muted", "—")), !rec.plan);
    mark(cell("Examined / returned", rec.plan ? `${rec.examined.toLocaleString("en-US")} / ${rec.returned.toLocaleString("en-US")}` : ""), !rec.plan);
    cell("Duration", duration(rec.micros));
    mark(cell("Client request id", rec.clientRequestId ? el("code", "insp-cid", rec.clientRequestId) : ""), !rec.clientRequestId);
    return tr;
  }

  function add(rec) {
    if (rec.id <= clearedUpTo) return;
    records.push(rec);
    if (rec.resource && !seenResources.has(rec.resource)) {
      seenResources.add(rec.resource);
      resources.append(new Option(rec.resource));
    }
    const tr = rowOf(rec);
    tr.hidden = !matches(rec, currentFilters());
    tbody.prepend(tr);
    if (records.length > MAX_ROWS) {
      records.shift();
      tbody.lastElementChild?.remove();
    }
  }

  function applyFilters() {
    const f = currentFilters();
    const byId = new Map(records.map((r) => [String(r.id), r]));
    for (const tr of tbody.rows) tr.hidden = !matches(byId.get(tr.dataset.id), f);
    update();
  }

  function update() {
    const shown = [...tbody.rows].filter((r) => !r.hidden).length;
    count.textContent = `Showing ${shown} of ${records.length} requests${missed ? ` · ${missed} missed while the page fell behind` : ""}`;
    empty.hidden = records.length > 0;
  }

  function setPaused(p) {
    paused = p;
    pause.textContent = p ? "Resume" : "Pause";
    pause.setAttribute("aria-pressed", String(p));
    if (!p) {
      for (const rec of waiting.splice(0)) add(rec);
      update();
    }
    connection();
  }

  let state = "connecting";
  function connection() {
    live.className = `insp-live insp-state-${paused ? "paused" : state}`;
    live.textContent = paused ? `Paused: ${waiting.length} new requests waiting` : { connecting: "Connecting…", live: "Live: every request, as it happens", lost: "Connection lost: reconnecting…" }[state];
  }

  function closeDetail() {
    detail.hidden = true;
    detail.replaceChildren();
    selected?.classList.remove("insp-selected");
    selected = null;
  }

  async function openDetail(rec, opener) {
    selected?.classList.remove("insp-selected");
    selected = opener.closest("tr");
    selected.classList.add("insp-selected");
    detail.hidden = false;
    detail.replaceChildren(el("p", "tool-muted", "Loading…"));
    const resp = await fetch(`${TOOLS}inspect/requests/${rec.id}`);
    detail.replaceChildren();
    const head = el("div", "insp-detail-head");
    const h = el("h2", "", `${rec.method} ${displayPath(rec)}`);
    h.tabIndex = -1;
    head.append(h, button("Close", "tool-button tool-small", () => {
      closeDetail();
      opener.focus();
    }));
    detail.append(head);
    if (!resp.ok) {
      detail.append(el("p", "tool-error", await resp.text()));
      h.focus();
      return;
    }
    const d = await resp.json();
    const dl = el("dl", "insp-facts");
    const fact = (k, v) => {
      if (v === undefined || v === "") return;
      dl.append(el("dt", "", k), el("dd", "", v));
    };
    fact("Time", new Date(d.time).toISOString());
    fact("Service", d.service);
    fact("Source", d.source === "explorer" ? "the explorer" : "an application");
    fact("Status", `${d.status}${d.code ? " " + d.code : ""}`);
    if (d.plan) fact("Plan", `${d.plan}: examined ${d.examined}, returned ${d.returned}`);
    fact("Duration", duration(d.micros));
    fact("Client request id", d.clientRequestId);
    fact("Request id", d.requestId);
    fact("Full target", d.path);
    detail.append(dl);
    if (d.advice) {
      const a = el("p", "insp-advice");
      a.append(el("strong", "", "Flagged: "), d.advice.reason);
      detail.append(a);
    }
    detail.append(
      headersSection("Request headers", d.requestHeader),
      bodySection("Request body", d.requestBody, d.bodyLimit),
      headersSection("Response headers", d.responseHeader),
      bodySection("Response body", d.responseBody, d.bodyLimit),
    );
    h.focus();
  }

  const source = new EventSource(`${TOOLS}inspect/events`);
  source.addEventListener("open", () => {
    state = "live";
    connection();
  });
  source.addEventListener("error", () => {
    state = "lost";
    connection();
  });
  source.addEventListener("message", (e) => {
    const rec = JSON.parse(e.data);
    lastId = Math.max(lastId, rec.id);
    if (paused) {
      waiting.push(rec);
      if (waiting.length > MAX_ROWS) waiting.shift();
      connection();
      return;
    }
    add(rec);
    update();
  });
  source.addEventListener("missed", (e) => {
    missed += Number(e.data);
    update();
  });
  connection();
  update();
}

function headersSection(title, fields) {
  const d = el("details", "insp-section");
  d.open = true;
  d.append(el("summary", "", `${title} (${fields.length})`));
  const t = el("table", "tool-grid insp-headers");
  t.append(el("caption", "visually-hidden", title));
  const body = t.createTBody();
  for (const f of fields) {
    const tr = el("tr");
    const th = el("th", "", f.name);
    th.scope = "row";
    tr.append(th, el("td", "", f.value));
    body.append(tr);
  }
  d.append(t);
  return d;
}

function bodySection(title, b, limit) {
  const d = el("details", "insp-section");
  const empty = !b || b.size === 0;
  d.open = !empty;
  d.append(el("summary", "", `${title} (${empty ? "none" : b.size.toLocaleString("en-US") + " bytes"})`));
  if (empty) return d;
  if (b.note) d.append(el("p", "tool-muted", b.note));
  if (b.truncated && (b.text || b.base64)) d.append(el("p", "tool-muted", `The first ${limit.toLocaleString("en-US")} bytes, of ${b.size.toLocaleString("en-US")}.`));
  let text = b.text ?? "";
  if (text && !b.truncated) {
    try {
      text = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: shown as it came
    }
  }
  if (b.base64) {
    d.append(el("p", "tool-muted", "Not text: base64."));
    text = b.base64;
  }
  if (text) {
    const pre = el("pre", "insp-body");
    pre.tabIndex = 0;
    pre.append(el("code", "", text));
    d.append(pre);
  }
  return d;
}

// Imported by node --test for its pure parts, the module has no page.
if (typeof document !== "undefined") main();
