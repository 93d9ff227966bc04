// The playground page (#playground): an editor on the left and, on the
// right (under it on a phone), what the code did: its output, the
// entities the last query returned, the plan of each query, a map of the
// table's keyspace with the stretch the last query walked, the wire log
// (tables, queues and blobs alike) and a running cost meter. The store is the engine's "playground",
// kept in IndexedDB, with Reset, Export and Import; Share puts the code
// (and, if asked, the data) in the URL's fragment.
//
// What tests can read: #playground[data-state] ("ready", "running",
// "done", "error", "stopped"); #pg-output (exactly what the code printed);
// #pg-error; #pg-plans li.run-plan[data-plan]; #pg-heat section.heat
// [data-over] li.heat-row[data-partition][data-peak][data-over]; #pg-grid; #pg-wire
// li[data-service][data-method][data-status] (the newest WIRE_LIMIT
// requests; data-service is "table", "queue" or "blob") and
// #pg-wire-dropped[data-dropped]; #pg-cost dd[data-total]; #pg-map
// [data-walked-from][data-walked-to]; #pg-share-link (the link Share made).
//
// A program may make thousands of requests: what it prints and requests
// reaches the page as it happens and is put on it twice a second, and
// each panel draws a bounded number of rows, so the page stays
// responsive however much the program does.

import { EngineClient, ENDPOINT } from "./engine.js";
import { RunHost, KEEP_REQUESTS } from "./run-host.js";
import { createEditor } from "./editor.js";
import { el, errorText, planBadge, prettyXML, queryTarget, renderHeat, renderPlans, renderScorecards, serviceOf } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";
import { formatRequest, parseResponse } from "./wire.js";
import { shareHash, readShareHash } from "./share.js";
import { entitiesOf, gridOf } from "./grid.js";
import { mapOf } from "./keyspace.js";
import { STARTERS } from "./starters.js";

const STORE = "playground";
const CODE_KEY = "tablelab-playground-code";
// The map draws every entity up to this many; a larger table is drawn
// from its first keys, and says so.
const MAP_LIMIT = 5000;
const HOVER_LIMIT = 2000;
// Past this many partitions the map names none under the strip: their
// titles on hover still do.
const LABEL_LIMIT = 100;
// The wire log shows the newest requests up to this many and counts the
// rest; the results grid and the plans list draw up to their limits.
const WIRE_LIMIT = KEEP_REQUESTS;
const GRID_LIMIT = 200;
const PLAN_LIMIT = 200;
// A run's progress is put on the page at most once in this many
// milliseconds. Each update is a frame of style, layout, paint and a
// commit to the compositor, which on a busy machine costs the main thread
// far more than the messages behind it; drawn once an animation frame, a
// program making a request every few milliseconds kept the page painting
// without pause.
const DRAW_MS = 500;

const here = new URL(".", import.meta.url);

function button(id, text, title) {
  const b = el("button", "pg-button", text);
  b.type = "button";
  b.id = id;
  if (title) b.title = title;
  return b;
}

function panel(id, title) {
  const section = el("section", "pg-panel");
  section.id = `${id}-panel`;
  const h = el("h2", "pg-panel-title", title);
  h.id = `${id}-title`;
  section.setAttribute("aria-labelledby", h.id);
  section.append(h);
  return section;
}

function build(root) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("play.css", here).href;
  document.head.append(link);

  root.classList.add("pg");
  const toolbar = el("div", "pg-toolbar");
  toolbar.setAttribute("role", "group");
  toolbar.setAttribute("aria-label", "Playground controls");
  const starter = el("select", "pg-select");
  starter.id = "pg-starter";
  starter.setAttribute("aria-label", "Starter example");
  starter.append(el("option", "", "Starter examples…"));
  STARTERS.forEach((s, i) => {
    const o = el("option", "", s.title);
    o.value = String(i);
    starter.append(o);
  });
  const run = button("pg-run", "Run", "Run (Ctrl/⌘+Enter)");
  run.classList.add("pg-primary");
  const stop = button("pg-stop", "Stop", "Stop the running program");
  stop.hidden = true;
  const reset = button("pg-reset", "Reset store", "Delete every table, queue and blob container of the playground's store");
  const exportButton = button("pg-export", "Export", "Download the store's tables as JSON (queues and blobs stay out)");
  const importButton = button("pg-import", "Import", "Replace the store's tables with an exported JSON file");
  const importFile = el("input");
  importFile.type = "file";
  importFile.accept = ".json,application/json";
  importFile.id = "pg-import-file";
  importFile.hidden = true;
  const share = button("pg-share", "Share", "Put the code in the page's address, to copy as a link");
  const withData = el("input");
  withData.type = "checkbox";
  withData.id = "pg-share-data";
  const withDataLabel = el("label", "pg-check");
  withDataLabel.append(withData, " with data");
  const shareLink = el("input", "pg-share-link");
  shareLink.id = "pg-share-link";
  shareLink.readOnly = true;
  shareLink.hidden = true;
  shareLink.setAttribute("aria-label", "Share link");
  const status = el("p", "pg-status");
  status.id = "pg-status";
  status.setAttribute("role", "status");
  toolbar.append(starter, run, stop, el("span", "pg-gap"), reset, exportButton, importButton, importFile, share, withDataLabel);

  const main = el("div", "pg-main");
  const editorBox = el("div", "pg-editor");
  const panels = el("div", "pg-panels");

  const outputPanel = panel("pg-output", "Output");
  const output = el("pre", "run-printed");
  output.id = "pg-output";
  output.setAttribute("aria-live", "polite");
  const errorBox = el("p", "run-error");
  errorBox.id = "pg-error";
  errorBox.hidden = true;
  outputPanel.append(output, errorBox);

  const planPanel = panel("pg-plans", "Query plans");
  const plans = el("div", "pg-plans");
  plans.id = "pg-plans";
  planPanel.append(plans);

  const mapPanel = panel("pg-map", "Keyspace map");
  const map = el("div", "pg-map");
  map.id = "pg-map";
  mapPanel.append(map);

  const gridPanel = panel("pg-grid", "Results");
  const gridWrap = el("div", "pg-grid-wrap");
  gridWrap.tabIndex = 0;
  gridWrap.setAttribute("aria-label", "Entities the last query returned");
  const grid = el("table", "pg-grid");
  grid.id = "pg-grid";
  gridWrap.append(grid);
  gridPanel.append(gridWrap);

  const wirePanel = panel("pg-wire", "Wire log");
  const wireDropped = el("p", "pg-empty");
  wireDropped.id = "pg-wire-dropped";
  wireDropped.hidden = true;
  const wire = el("ol", "pg-wire");
  wire.id = "pg-wire";
  wirePanel.append(wireDropped, wire);

  const heatPanel = panel("pg-heat", "Partition heat");
  const heat = el("div", "pg-heat");
  heat.id = "pg-heat";
  heatPanel.append(heat);

  const costPanel = panel("pg-cost", "Cost");
  const cost = el("dl", "pg-cost");
  cost.id = "pg-cost";
  costPanel.append(cost);

  panels.append(outputPanel, planPanel, heatPanel, mapPanel, gridPanel, costPanel, wirePanel);
  main.append(editorBox, panels);
  root.replaceChildren(toolbar, status, shareLink, main);
  return {
    root, starter, run, stop, reset, exportButton, importButton, importFile, share, withData, shareLink,
    status, editorBox, output, errorBox, plans, map, grid, wire, wireDropped, cost, heat,
  };
}

async function start(root) {
  const ui = build(root);
  const engine = new EngineClient(new URL("../engine/worker.js", here));
  const host = new RunHost(engine, new URL("run-worker.js", here), { keep: WIRE_LIMIT });
  host.warm();
  const totals = { runs: 0, requests: 0, examined: 0, returned: 0 };
  const say = (text) => {
    ui.status.textContent = text;
  };

  let initial = null;
  let sharedData;
  try {
    const shared = await readShareHash(location.hash);
    if (shared) {
      initial = shared.code;
      sharedData = shared.data;
    }
  } catch (err) {
    say(`This link could not be opened: ${err.message}`);
  }
  if (initial === null) {
    try {
      initial = localStorage.getItem(CODE_KEY);
    } catch {
      // Storage may be off; the first starter will do.
    }
  }
  const editor = createEditor(ui.editorBox, initial ?? STARTERS[0].code, () => runCode(), "Playground code");
  ui.editorBox.addEventListener("keyup", () => {
    try {
      localStorage.setItem(CODE_KEY, editor.code());
    } catch {
      // Not remembered; nothing else depends on it.
    }
  });
  if (sharedData !== undefined) {
    try {
      await engine.op(STORE, "reset");
      await engine.op(STORE, "import", sharedData);
      say("Opened the shared program and its data.");
    } catch (err) {
      say(`The shared data could not be imported: ${err.message}`);
    }
  } else if (initial !== null && location.hash) {
    say("Opened the shared program.");
  }
  renderCost(ui.cost, totals, null);
  root.dataset.state = "ready";

  async function runCode() {
    if (root.dataset.state === "running") return;
    root.dataset.state = "running";
    ui.run.disabled = true;
    ui.stop.hidden = false;
    ui.output.textContent = "";
    ui.errorBox.hidden = true;
    ui.plans.replaceChildren();
    ui.heat.replaceChildren();
    say("Running…");
    const live = new LiveView(ui, say);
    const heat = new Heat();
    let result;
    try {
      result = await host.run(editor.code(), STORE, {
        onPrint: (line) => live.print(line),
        onRequest: (entry) => {
          live.request(entry);
          heat.add(entry);
        },
      });
    } catch (err) {
      result = { output: ui.output.textContent, plans: [], queries: [], requests: [], error: { name: "Error", message: err.message } };
    }
    // The wire log already holds what the run requested: it is finished,
    // not drawn again.
    live.finish();
    ui.run.disabled = false;
    ui.stop.hidden = true;
    ui.output.textContent = result.output;
    if (result.error) {
      ui.errorBox.textContent = errorText(result.error);
      ui.errorBox.hidden = false;
    }
    // The panels are drawn a task each, so that the page can lay out and
    // answer between them.
    await nextTask();
    const cards = result.scorecards?.length ? [renderScorecards(result.scorecards)] : [];
    ui.plans.replaceChildren(...cards, ...plansOf(result.queries));
    const last = {
      requests: result.requestCount ?? result.requests.length,
      examined: result.queries.reduce((n, q) => n + q.examined, 0),
      returned: result.queries.reduce((n, q) => n + q.returned, 0),
    };
    totals.runs++;
    totals.requests += last.requests;
    totals.examined += last.examined;
    totals.returned += last.returned;
    renderCost(ui.cost, totals, last);
    await nextTask();
    ui.heat.replaceChildren(renderHeat(heat.summary(), PARTITION_TARGET));
    await nextTask();
    renderGrid(ui.grid, result.requests);
    await nextTask();
    await renderMap(ui.map, engine, result);
    root.dataset.state = result.error ? (result.error.name === "Stopped" ? "stopped" : "error") : "done";
    say(result.error ? "The program ended with an error." : "Done.");
  }

  ui.run.addEventListener("click", runCode);
  ui.stop.addEventListener("click", () => host.stop());
  ui.starter.addEventListener("change", () => {
    const s = STARTERS[Number(ui.starter.value)];
    if (s) {
      editor.setCode(s.code);
      say(`Loaded "${s.title}". Run it with the Run button or Ctrl/⌘+Enter.`);
    }
    ui.starter.selectedIndex = 0;
  });
  ui.reset.addEventListener("click", async () => {
    host.stop();
    try {
      await engine.op(STORE, "reset");
      totals.runs = totals.requests = totals.examined = totals.returned = 0;
      renderCost(ui.cost, totals, null);
      ui.grid.replaceChildren();
      ui.map.replaceChildren();
      say("The store is empty.");
    } catch (err) {
      say(`Reset failed: ${err.message}`);
    }
  });
  ui.exportButton.addEventListener("click", async () => {
    try {
      const text = await engine.op(STORE, "export");
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      a.download = "tablelab-playground.json";
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      say("Exported the store as tablelab-playground.json (go run . can import it).");
    } catch (err) {
      say(`Export failed: ${err.message}`);
    }
  });
  ui.importButton.addEventListener("click", () => ui.importFile.click());
  ui.importFile.addEventListener("change", async () => {
    const file = ui.importFile.files?.[0];
    ui.importFile.value = "";
    if (!file) return;
    try {
      const text = await file.text();
      await engine.op(STORE, "reset");
      await engine.op(STORE, "import", text);
      say(`Imported ${file.name}.`);
    } catch (err) {
      say(`Import failed: ${err.message}`);
    }
  });
  ui.share.addEventListener("click", async () => {
    try {
      const data = ui.withData.checked ? await engine.op(STORE, "export") : undefined;
      const hash = await shareHash(editor.code(), data);
      history.replaceState(null, "", `#${hash}`);
      ui.shareLink.value = location.href;
      ui.shareLink.hidden = false;
      ui.shareLink.select();
      let copied = false;
      try {
        await navigator.clipboard.writeText(location.href);
        copied = true;
      } catch {
        // Without clipboard permission the selected link is there to copy.
      }
      say(`${copied ? "Copied a link" : "Made a link"} to this program${data !== undefined ? " and its data" : ""} (${location.href.length.toLocaleString("en-US")} characters).`);
    } catch (err) {
      say(`Share failed: ${err.message}`);
    }
  });
}

// LiveView puts what a run prints and requests on the page as it
// happens, in an animation frame at most once every DRAW_MS: a program
// making a request every millisecond costs the page two small updates a
// second, not one a message. The wire log keeps the newest WIRE_LIMIT
// requests and says how many it dropped.
class LiveView {
  constructor(ui, say) {
    this.ui = ui;
    this.say = say;
    this.lines = [];
    this.entries = [];
    this.printed = false;
    this.requested = 0;
    this.dropped = 0;
    this.timer = 0;
    this.frame = 0;
    this.drawn = -Infinity;
    ui.wire.replaceChildren();
    ui.wire.classList.add("pg-wire-live");
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
    if (this.entries.length >= 2 * WIRE_LIMIT) {
      const gone = this.entries.length - WIRE_LIMIT;
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
    this.ui.wire.classList.remove("pg-wire-live");
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
      this.ui.output.append(this.printed ? `\n${text}` : text);
      this.printed = true;
      this.lines = [];
    }
    this.#drawRequests();
    if (this.requested) this.say(`Running… ${this.requested.toLocaleString("en-US")} request${this.requested === 1 ? "" : "s"} so far.`);
  }

  #drawRequests() {
    if (!this.entries.length) return;
    const wire = this.ui.wire;
    const fresh = this.entries.slice(-WIRE_LIMIT);
    this.dropped += this.entries.length - fresh.length;
    this.entries = [];
    const items = document.createDocumentFragment();
    for (const entry of fresh) items.append(wireItem(entry));
    wire.append(items);
    for (let n = wire.childElementCount - WIRE_LIMIT; n > 0; n--) {
      wire.firstElementChild.remove();
      this.dropped++;
    }
    this.#showDropped();
  }

  #showDropped() {
    const note = this.ui.wireDropped;
    if (note.dataset.dropped === String(this.dropped)) return;
    note.dataset.dropped = String(this.dropped);
    note.hidden = this.dropped === 0;
    note.textContent = `${this.dropped.toLocaleString("en-US")} earlier request${this.dropped === 1 ? " is" : "s are"} not shown: the log keeps the newest ${WIRE_LIMIT}.`;
  }
}

// nextTask resolves in a task of its own, after what the page has
// waiting (a frame among it).
function nextTask() {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

// plansOf lists the plans of a run's queries, the first PLAN_LIMIT of
// them, and says how many more there were.
function plansOf(queries) {
  if (!queries.length) return [el("p", "pg-empty", "No query ran.")];
  const parts = [renderPlans(queries.slice(0, PLAN_LIMIT))];
  const more = queries.length - PLAN_LIMIT;
  if (more > 0) parts.push(el("p", "pg-empty", `…and ${more.toLocaleString("en-US")} more quer${more === 1 ? "y" : "ies"}; the cost meter counts them all.`));
  return parts;
}

// wireItem is one request of the log. Its bodies are drawn when it is
// first opened: a log of large batches would otherwise lay out every one.
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
      const bodies = [
        ["Request body", entry.requestBody],
        ["Response body", entry.responseBody || entry.error || ""],
      ];
      for (const [title, body] of bodies) {
        details.append(el("p", "pg-wire-label", title), el("pre", "pg-wire-body", body ? pretty(body) : "(empty)"));
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


function renderCost(dl, totals, last) {
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

// renderGrid shows the entities of the last response that had any, the
// first GRID_LIMIT of them.
function renderGrid(table, requests) {
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

// renderMap draws the keyspace of the table the last query read: its keys
// listed from the engine (a listing that is not part of the program, so
// it is not in the wire log or the cost), partitions as blocks as wide as
// their entity counts, the stretch the query walked shaded and the
// entities it returned marked.
async function renderMap(box, engine, result) {
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
    keys = await listKeys(engine, table);
  } catch (err) {
    box.replaceChildren(el("p", "pg-empty", `The keys of ${table} could not be listed: ${err.message}`));
    return;
  }
  const returnedKeys = entitiesOf(request?.responseBody ?? "").map((e) => [e.PartitionKey, e.RowKey]);
  const m = mapOf(keys.list, query, returnedKeys);
  box.dataset.walkedFrom = String(m.walked[0]);
  box.dataset.walkedTo = String(m.walked[1]);
  box.dataset.returned = String(m.returned.length);

  const n = Math.max(keys.list.length, 1);
  const svgNS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNS, "svg");
  svg.setAttribute("viewBox", `0 0 ${n} 10`);
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("class", "pg-map-strip");
  svg.setAttribute("role", "img");
  const summary = `${table}: ${keys.list.length} entities in ${m.partitions.length} partitions; the last query (${query.plan}) walked entities ${m.walked[0] + 1}–${m.walked[1]} and returned ${m.returned.length}.`;
  svg.setAttribute("aria-label", summary);
  const rect = (x, w, cls, title) => {
    const r = document.createElementNS(svgNS, "rect");
    r.setAttribute("x", String(x));
    r.setAttribute("y", cls === "pg-map-hit" ? "6" : "0");
    r.setAttribute("width", String(w));
    r.setAttribute("height", cls === "pg-map-hit" ? "4" : "10");
    r.setAttribute("class", cls);
    if (title) {
      const t = document.createElementNS(svgNS, "title");
      t.textContent = title;
      r.append(t);
    }
    svg.append(r);
  };
  m.partitions.forEach((p, i) => {
    const last = keys.list[p.start + p.count - 1];
    rect(p.start, p.count, `pg-map-part pg-map-part-${i % 2}`, `partition ${p.pk}: ${p.count} entities, RowKey ${keys.list[p.start][1]} … ${last[1]}`);
  });
  if (m.walked[1] > m.walked[0]) {
    rect(m.walked[0], m.walked[1] - m.walked[0], `pg-map-walk plan-${query.plan}`, `walked ${m.walked[1] - m.walked[0]} entities (${query.plan})`);
  }
  // Each key gets a hover target of its own while there are few enough to
  // point at; past that the partitions' titles give their key ranges.
  if (keys.list.length <= HOVER_LIMIT) {
    keys.list.forEach(([pk, rk], i) => rect(i, 1, "pg-map-key", `${pk} / ${rk}`));
  }
  for (const i of m.returned) {
    rect(i, 1, "pg-map-hit", `returned ${keys.list[i][0]} / ${keys.list[i][1]}`);
  }
  const labels = el("ol", "pg-map-labels");
  for (const p of m.partitions.length <= LABEL_LIMIT ? m.partitions : []) {
    const li = el("li", "", p.pk);
    li.style.flexGrow = String(p.count);
    li.title = `${p.pk}: ${p.count} entities`;
    labels.append(li);
  }
  const legend = el("p", "pg-map-legend");
  legend.append(
    planBadge(query.plan),
    ` walked ${(m.walked[1] - m.walked[0]).toLocaleString("en-US")} of ${keys.list.length.toLocaleString("en-US")} entities in ${table}; `,
    el("span", "pg-map-key-hit", "▮"),
    ` ${m.returned.length} returned. Hover for keys.`,
  );
  const parts = [legend, svg, labels];
  if (keys.truncated) parts.push(el("p", "pg-empty", `Only the first ${MAP_LIMIT.toLocaleString("en-US")} keys are drawn.`));
  parts.push(el("p", "pg-map-note", "Where the walk starts is read from the query's keys; its length is the engine's examined count."));
  box.replaceChildren(...parts);
}

// listKeys pages through a table's keys with $select, signed with the
// store's SAS, straight to the engine.
async function listKeys(engine, table) {
  const sas = String(await engine.op(STORE, "sas")).replace(/^\?/, "");
  const list = [];
  let next = "";
  do {
    const url = `${ENDPOINT}/${encodeURIComponent(table)}()?$select=PartitionKey,RowKey&${sas}${next}`;
    const text = formatRequest("GET", url, [
      ["Accept", "application/json;odata=nometadata"],
      ["x-ms-version", "2019-02-02"],
      ["DataServiceVersion", "3.0"],
    ]);
    const resp = parseResponse(await engine.request(STORE, text));
    if (resp.status !== 200) throw new Error(`HTTP ${resp.status}`);
    for (const e of JSON.parse(resp.body).value) list.push([e.PartitionKey, e.RowKey]);
    const npk = resp.headers["x-ms-continuation-nextpartitionkey"];
    next = npk
      ? `&NextPartitionKey=${encodeURIComponent(npk)}&NextRowKey=${encodeURIComponent(resp.headers["x-ms-continuation-nextrowkey"] ?? "")}`
      : "";
  } while (next && list.length < MAP_LIMIT);
  return { list: list.slice(0, MAP_LIMIT), truncated: list.length >= MAP_LIMIT && next !== "" };
}

const root = document.getElementById("playground");
if (root) start(root);
