// Pieces of the page both the docs examples and the playground show: the
// plan of each query and a reader's error as the SDK raised it.

import { explainError, firstLine } from "./explain.js";
import { byteSize, dollars, msText, ruText } from "./cost.js";

/** PLAN_LABELS names each plan class as the docs do. */
export const PLAN_LABELS = {
  point: "point",
  range: "range",
  "partition-scan": "partition scan",
  "table-scan": "table scan",
  // Cosmos DB for Table's index answered the filter (its profile only).
  index: "index",
};

/** el makes an element with a class and text. */
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * planBadge is a plan class as a label with its colour: the text says the
 * class, so the colour is never the only sign.
 */
export function planBadge(plan) {
  const badge = el("span", `plan plan-badge plan-${/^[a-z-]+$/.test(plan) ? plan : "unknown"}`, PLAN_LABELS[plan] ?? plan);
  return badge;
}

/**
 * renderPlans lists each query's plan, with the entities it examined and
 * returned, in the order the code made them; with ru set (the Cosmos DB
 * for Table side), each query's request units as cost.js models them,
 * marked as a model. Each item carries data-plan, data-examined and
 * data-returned (and data-ru) for tests and styles.
 */
export function renderPlans(queries, { ru = false } = {}) {
  const list = el("ol", "run-plans");
  list.setAttribute("aria-label", "Query plans");
  for (const q of queries) {
    const item = el("li", "run-plan");
    item.dataset.plan = q.plan;
    item.dataset.examined = String(q.examined);
    item.dataset.returned = String(q.returned);
    item.append(planBadge(q.plan), ` examined ${q.examined.toLocaleString("en-US")} · returned ${q.returned.toLocaleString("en-US")}`);
    if (ru) {
      item.dataset.ru = String(q.ru ?? 0);
      const units = el("span", "run-plan-ru", ` · ≈ ${ruText(q.ru ?? 0)}`);
      units.title = "Request units as tablelab models them from Microsoft's published figures, not Cosmos DB's own charge";
      item.append(units);
    }
    const where = queryTarget(q.url);
    if (where) item.append(el("code", "run-plan-target", where));
    // What the engine noticed about the query's filter, beside its plan.
    if (q.warning) {
      const warn = el("span", "run-plan-warning");
      warn.append(el("strong", "", "Warning: "), q.warning);
      item.append(warn);
      item.dataset.warning = "true";
    }
    list.append(item);
  }
  return list;
}

/**
 * renderScorecards is the "Access patterns" panel of a run: each
 * scorecard the code printed as a small table, side by side when the
 * width allows (a naive design beside the pattern's), one row a check
 * with its costliest plan, its reads and what they examined and returned;
 * the requests and writes of a card whose checks wrote, its time under
 * the latency model when the scorecard asked for it, its money when the
 * scorecard stated volumes, and, with ru set (the Cosmos DB for Table
 * side), cost.js's model of the request units. Each card carries
 * data-title, each row data-name, data-plan, data-reads, data-examined,
 * data-returned, data-requests, data-written, data-bytes, data-ru,
 * data-ms (with the latency model) and data-line (the line the scorecard
 * printed), for tests.
 */
export function renderScorecards(cards, { ru = false } = {}) {
  const section = el("section", "scorecards");
  section.setAttribute("aria-label", "Access patterns");
  section.append(el("p", "scorecards-title", "Access patterns"));
  const row = el("div", "scorecards-cards");
  const fmt = (n) => n.toLocaleString("en-US");
  for (const card of cards) {
    const table = el("table", "scorecard");
    table.dataset.title = card.title;
    table.append(el("caption", "", card.title));
    const writes = card.rows.some((r) => (r.requests ?? r.reads) !== r.reads);
    const priced = card.rows.some((r) => r.dollars !== undefined) || card.stored !== undefined;
    const timed = card.rows.some((r) => r.ms !== undefined);
    const columns = [["Pattern", ""], ["Plan", ""], ["Examined", "num"], ["Returned", "num"]];
    if (writes) columns.push(["Requests", "num"], ["Written", "num"]);
    if (timed) columns.push(["Time (model)", "num"]);
    if (ru) columns.push(["RU (model)", "num"]);
    if (priced) columns.push(["A month", "num"]);
    const head = el("tr");
    for (const [text, cls] of columns) {
      const th = el("th", cls, text);
      th.scope = "col";
      head.append(th);
    }
    table.createTHead().append(head);
    const body = table.createTBody();
    for (const r of card.rows) {
      const tr = el("tr", "scorecard-row");
      Object.assign(tr.dataset, {
        name: r.name,
        plan: r.plan,
        reads: String(r.reads),
        examined: String(r.examined),
        returned: String(r.returned),
        requests: String(r.requests ?? r.reads),
        written: String(r.written ?? 0),
        bytes: String(r.bytes ?? 0),
        ru: String(r.ru ?? 0),
        line: r.line ?? "",
      });
      if (r.ms !== undefined) tr.dataset.ms = String(r.ms);
      const name = el("th", "", r.name);
      name.scope = "row";
      const plan = el("td");
      if (r.reads === 0) plan.append(r.writes ? "writes only" : "no reads");
      else {
        plan.append(planBadge(r.plan));
        if (r.reads > 1) plan.append(el("span", "scorecard-reads", ` ×${fmt(r.reads)}`));
      }
      tr.append(name, plan, el("td", "num", fmt(r.examined)), el("td", "num", fmt(r.returned)));
      if (writes) {
        const written = el("td", "num", fmt(r.written ?? 0));
        if (r.written) written.title = byteSize(r.bytes);
        if (r.deleted) written.append(el("span", "scorecard-deleted", ` −${fmt(r.deleted)}`));
        tr.append(el("td", "num", fmt(r.requests ?? r.reads)), written);
      }
      if (timed) tr.append(el("td", "num", r.ms === undefined ? "" : msText(r.ms)));
      if (ru) tr.append(el("td", "num", ruText(r.ru ?? 0)));
      if (priced) {
        const cell = el("td", "num", r.dollars === undefined ? "" : dollars(r.dollars));
        if (r.perSecond !== undefined) cell.title = `${fmt(r.perSecond)} a second`;
        tr.append(cell);
      }
      body.append(tr);
    }
    if (priced) {
      const foot = table.createTFoot();
      const line = (label, value) => {
        const tr = el("tr", "scorecard-money");
        const th = el("th", "", label);
        th.scope = "row";
        th.colSpan = columns.length - 1;
        tr.append(th, el("td", "num", value));
        foot.append(tr);
      };
      if (card.stored) line(`Stored: ${fmt(card.stored.entities)} entities, ${byteSize(card.stored.bytes)}`, dollars(card.stored.dollars));
      line("In all, a month", dollars(card.dollars ?? 0));
    }
    // A card wider than the screen (a phone, a card with every column)
    // scrolls sideways in a box of its own, which the keyboard can reach,
    // rather than widening the page.
    const box = el("div", "scorecard-box");
    box.tabIndex = 0;
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", card.title);
    box.append(table);
    row.append(box);
  }
  section.append(row);
  return section;
}

/**
 * renderHeat draws a heat summary (heat.js): the busiest partitions, each
 * as a bar of its busiest second's operations against a line at target
 * a second, with a strip of its seconds when the run slept; a partition
 * past the line is marked "over" in words as well as colour. The section
 * carries data-over (partitions over the line) and data-seconds; each row
 * data-table, data-partition, data-peak and data-over, for tests.
 */
export function renderHeat(summary, target) {
  const section = el("section", "heat");
  section.setAttribute("aria-label", "Partition heat");
  section.dataset.over = String(summary.over);
  section.dataset.seconds = String(summary.seconds);
  const fmt = (n) => n.toLocaleString("en-US");
  const head = el("p", "heat-title", "Partition heat");
  const secs = summary.seconds === 1 ? "one second" : `${fmt(summary.seconds)} seconds`;
  head.append(
    el(
      "span",
      "heat-sub",
      ` · entity operations per second of the store's clock (${secs}), against ${fmt(target)} a partition` +
        (summary.over ? ` · ${summary.over} over` : " · none over"),
    ),
  );
  section.append(head);
  if (summary.partitions.length === 0) {
    section.append(el("p", "heat-empty", "No entity was written or read."));
    return section;
  }
  // The scale leaves room past the line, so "over" shows as a bar that
  // crosses it.
  const top = Math.max(target * 1.25, ...summary.partitions.map((p) => p.peak));
  const line = `${((target / top) * 100).toFixed(2)}%`;
  const list = el("ol", "heat-rows");
  for (const p of summary.partitions) {
    const item = el("li", `heat-row${p.over ? " heat-over" : ""}`);
    Object.assign(item.dataset, { table: p.table, partition: p.partition, peak: String(p.peak), over: String(p.over) });
    const name = el("span", "heat-name");
    name.append(el("span", "heat-table", `${p.table} · `), el("code", "", p.partition === "" ? "(empty)" : p.partition));
    const bar = el("span", "heat-bar");
    bar.style.setProperty("--line", line);
    const fill = el("span", "heat-fill");
    fill.style.width = `${((p.peak / top) * 100).toFixed(2)}%`;
    bar.append(fill, el("span", "heat-line"));
    bar.title = `${fmt(p.peak)} operations in second ${p.peakSecond}`;
    const figure = el("span", "heat-peak", `${fmt(p.peak)}/s`);
    if (p.over) figure.append(el("strong", "heat-over-label", " over"));
    item.append(name, bar, figure);
    if (summary.seconds > 1) {
      const strip = el("span", "heat-strip");
      strip.setAttribute("aria-hidden", "true");
      for (const [i, n] of p.perSecond.slice(0, 120).entries()) {
        const cell = el("span", `heat-cell${n > target ? " heat-cell-over" : ""}`);
        cell.style.setProperty("--level", (n / top).toFixed(3));
        cell.title = `second ${i}: ${fmt(n)}`;
        strip.append(cell);
      }
      item.append(strip);
    }
    list.append(item);
  }
  section.append(list);
  const notes = [];
  if (summary.more) notes.push(`${fmt(summary.more)} more partitions, each quieter`);
  for (const s of summary.scans) notes.push(`table scans of ${s.table}: ${fmt(s.total)} entities examined across its partitions`);
  if (notes.length) section.append(el("p", "heat-note", notes.join(" · ")));
  return section;
}

// STORAGE_PARAMS are the query parameters of the Queue and Blob services
// that say what a request does (its operation, its listing, its message);
// the rest are the SAS and the SDKs' bookkeeping.
const STORAGE_PARAMS = new Set([
  "restype", "comp", "prefix", "delimiter", "marker", "maxresults", "include",
  "numofmessages", "visibilitytimeout", "messagettl", "peekonly", "popreceipt",
  "blockid", "blocklisttype",
]);

/**
 * queryTarget is the readable part of a request URL: the path after the
 * account and the query options (a table query's, or what a queue or blob
 * request does), without the SAS.
 */
export function queryTarget(url) {
  try {
    const u = new URL(url);
    const path = decodeURIComponent(u.pathname.replace(/^\/[^/]+\/?/, ""));
    const keep = [];
    for (const [k, v] of u.searchParams) {
      if (k.startsWith("$") || k.startsWith("Next") || STORAGE_PARAMS.has(k)) keep.push(`${k}=${v}`);
    }
    return keep.length ? `${path}?${keep.join("&")}` : path;
  } catch {
    return "";
  }
}

/**
 * serviceOf names the storage service a request URL is for, by the
 * development storage's ports: "blob" (10000), "queue" (10001) or "table".
 */
export function serviceOf(url) {
  try {
    const u = new URL(url);
    if (u.port === "10000" || /^[^.]+\.blob\./.test(u.hostname)) return "blob";
    if (u.port === "10001" || /^[^.]+\.queue\./.test(u.hostname)) return "queue";
  } catch {
    // not a URL: the table, as before there were three
  }
  return "table";
}

/**
 * errorText says what went wrong as the SDK raised it: the error's name,
 * and for a RestError the HTTP status, the service's code and message.
 */
export function errorText(error) {
  let head = error.name || "Error";
  if (error.statusCode !== undefined) head += ` ${error.statusCode}`;
  if (error.code) head += ` ${error.code}`;
  if (error.line) head += ` at line ${error.line}, column ${error.column ?? 1}`;
  // A service's message, without the request id and time after it; an
  // error of the code's own, whole.
  return `${head}: ${error.detail !== undefined ? firstLine(error.detail) : error.message}`;
}

/**
 * renderError is an error as a reader sees it under their code: errorText,
 * then, for the errors a learner meets, a sentence of plain explanation
 * with a link to the page of the guide that explains it (explain.js);
 * note, when given, is one more sentence of the page's own (the playground
 * says when a kept store's leftovers caused it). The element is a div of
 * class run-error, its explanation p.run-error-explain.
 */
export function renderError(error, note) {
  const box = el("div", "run-error");
  box.setAttribute("role", "alert");
  box.append(el("p", "run-error-text", errorText(error)));
  const why = explainError(error);
  if (why || note) {
    const p = el("p", "run-error-explain");
    if (note) p.append(note, " ");
    if (why) {
      const link = el("a", "", "Read more");
      link.href = new URL(`../${why.page}`, import.meta.url).href;
      // On another site's page (the embed) the guide opens beside it.
      if (link.origin !== location.origin) {
        link.target = "_blank";
        link.rel = "noopener";
      }
      p.append(why.text, " ", link, ".");
    }
    box.append(p);
  }
  return box;
}

/**
 * prettyXML puts each element of an XML text on a line of its own,
 * indented by its depth; an element holding only text stays on one line.
 * It only lays out what the services send and never fails: text that is
 * not XML comes back with line breaks between its tags.
 */
export function prettyXML(text) {
  const lines = text.trim().replace(/>\s*</g, ">\n<").split("\n");
  let depth = 0;
  const out = [];
  for (const line of lines) {
    if (line.startsWith("</")) depth = Math.max(0, depth - 1);
    out.push("  ".repeat(depth) + line);
    const opens = line.startsWith("<") && !/^<[?!/]/.test(line) && !line.endsWith("/>") && !line.includes("</");
    if (opens) depth++;
  }
  return out.join("\n");
}
