// The explorer: the local server's own tables, queues and blob containers,
// through real requests to the running services (see site/explore). The
// tables' entities are a grid with typed columns; the query box shows
// each query's plan, examined and returned; an entity is inserted, edited
// with its ETag (a 412 says someone else changed it) and deleted.

import { button, call, childText, el, errorOf, formatBytes, info, notOnLocalServer, planBadge, tabs, xml } from "./common.js";
import { TYPES, bodyOf, entitiesIn, entityPath, propertiesOf, queryPath } from "./entity.js";
import { gridOf } from "../play/grid.js";

const JSON_HEADERS = { Accept: "application/json;odata=fullmetadata", "Content-Type": "application/json" };

/** shortType is an Edm type without its prefix: "Double". */
const shortType = (t) => t.replace(/^Edm\./, "");

/** state is what the page shows. */
const state = { account: "", services: [] };

async function main() {
  const root = document.getElementById("tool");
  if (!root) return;
  const about = await info();
  if (!about) {
    root.append(notOnLocalServer("explorer"));
    return;
  }
  state.account = about.accounts[0];
  state.services = about.services;

  const bar = el("div", "tool-bar");
  if (about.accounts.length > 1) {
    const label = el("label", "tool-field", "Account ");
    const pick = el("select", "tool-input");
    for (const a of about.accounts) pick.append(new Option(a, a));
    pick.addEventListener("change", () => {
      state.account = pick.value;
      for (const view of views) view.reset();
      current?.load();
    });
    label.append(pick);
    bar.append(label);
  } else {
    bar.append(el("span", "tool-muted", `Account ${state.account}`));
  }
  const status = el("p", "tool-status");
  status.setAttribute("role", "status");
  bar.append(status);

  const views = [];
  const items = [];
  for (const [service, id, label, make] of [
    ["Table", "tables", "Tables", tablesView],
    ["Queue", "queues", "Queues", queuesView],
    ["Blob", "containers", "Containers", containersView],
  ]) {
    if (!state.services.includes(service)) continue;
    const panel = el("section", "tool-panel");
    panel.id = `panel-${id}`;
    const view = make(panel, status);
    view.id = id;
    views.push(view);
    items.push({ id, label, panel });
  }
  let current;
  const t = tabs("Storage", items, (id) => {
    current = views.find((v) => v.id === id);
    current.load();
  });
  root.append(bar, t.list, ...items.map((i) => i.panel));
  t.select(items[0].id);
  // Coming back to the page (an SDK may have written meanwhile) lists
  // the resources again.
  window.addEventListener("focus", () => current?.refreshList());
}

/**
 * listPane is the left column of a view: its resources as buttons, one
 * of them current, with Refresh and a form that creates one.
 */
function listPane(noun, { onPick, onCreate }) {
  const nav = el("nav", "tool-list");
  nav.setAttribute("aria-label", `${noun}s`);
  const head = el("div", "tool-list-head");
  head.append(el("h2", "tool-list-title", `${noun}s`));
  const ul = el("ul");
  let names = [];
  let chosen = "";
  const refresh = button("Refresh", "tool-button tool-small");
  head.append(refresh);
  const form = el("form", "tool-create");
  const input = el("input", "tool-input");
  input.name = "name";
  input.required = true;
  input.placeholder = `New ${noun.toLowerCase()} name`;
  input.setAttribute("aria-label", `New ${noun.toLowerCase()} name`);
  form.append(input, el("button", "tool-button tool-small", "Create"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (await onCreate(input.value.trim())) input.value = "";
  });
  nav.append(head, ul, form);
  function render() {
    ul.replaceChildren();
    if (names.length === 0) ul.append(el("li", "tool-muted", `No ${noun.toLowerCase()}s yet.`));
    for (const name of names) {
      const li = el("li");
      const b = button(name, "tool-item", () => pick(name));
      b.dataset.name = name;
      if (name === chosen) b.setAttribute("aria-current", "true");
      li.append(b);
      ul.append(li);
    }
  }
  function pick(name) {
    chosen = name;
    render();
    onPick(name);
  }
  return {
    nav,
    refresh,
    set(list) {
      names = list;
      render();
    },
    get chosen() {
      return chosen;
    },
    pick,
  };
}

/** say shows the outcome of a request in the bar: what failed and why. */
function say(status, r, what) {
  if (r.ok) {
    status.textContent = "";
    status.className = "tool-status";
    return;
  }
  const { code, message } = errorOf(r);
  status.className = "tool-status tool-error";
  status.textContent = `${what}: ${r.status}${code ? " " + code : ""}${message ? ": " + message : ""}`;
}

/**
 * resourceView is the frame the three views share: one kind of resource
 * listed on the left, the chosen one on the right, listed the first time
 * the view is shown. create makes a resource and answers the response;
 * names answers the list, or null when listing failed; open shows one.
 */
function resourceView(panel, status, { noun, create, names, open }) {
  const main = el("div", "tool-main");
  const choose = () => el("p", "tool-muted", `Choose a ${noun.toLowerCase()}.`);
  const list = listPane(noun, {
    onPick: (name) => open(name),
    onCreate: async (name) => {
      const r = await create(name);
      say(status, r, `Create ${noun.toLowerCase()} ${name}`);
      if (r.ok) {
        await refreshList();
        list.pick(name);
      }
      return r.ok;
    },
  });
  const split = el("div", "tool-split");
  split.append(list.nav, main);
  panel.append(split);
  main.append(choose());

  async function refreshList() {
    const got = await names();
    if (got) list.set(got);
  }
  list.refresh.addEventListener("click", async () => {
    await refreshList();
    if (list.chosen) open(list.chosen);
  });
  let loaded = false;
  return {
    main,
    async load() {
      if (!loaded) {
        loaded = true;
        await refreshList();
      }
    },
    refreshList,
    reset() {
      loaded = false;
      main.replaceChildren(choose());
    },
  };
}

/** tablesView lists the tables and shows one table's entities. */
function tablesView(panel, status) {
  const view = resourceView(panel, status, {
    noun: "Table",
    create: (name) => call("table", state.account, "Tables", { method: "POST", headers: JSON_HEADERS, body: JSON.stringify({ TableName: name }) }),
    names: async () => {
      const names = [];
      let next = "";
      do {
        const r = await call("table", state.account, `Tables${next ? "?NextTableName=" + encodeURIComponent(next) : ""}`, { headers: { Accept: "application/json;odata=nometadata" } });
        say(status, r, "List tables");
        if (!r.ok) return null;
        names.push(...JSON.parse(r.text).value.map((t) => t.TableName));
        next = r.headers.get("x-ms-continuation-NextTableName") ?? "";
      } while (next);
      return names;
    },
    open: openTable,
  });

  function openTable(name) {
    const table = tableView(name, status, {
      onDropped: async () => {
        view.main.replaceChildren(el("p", "tool-muted", `Table ${name} deleted.`));
        await view.refreshList();
      },
    });
    view.main.replaceChildren(table.node);
    table.run();
  }
  return view;
}

/** field makes a labelled input of the query box. */
function field(label, name, attrs = {}) {
  const wrap = el("label", "tool-field");
  wrap.append(el("span", "tool-field-label", label));
  const input = el("input", "tool-input");
  input.name = name;
  Object.assign(input, attrs);
  wrap.append(input);
  return { wrap, input };
}

/**
 * tableView is one table: the query box, the answer's plan and counts,
 * the grid, and the editor.
 */
function tableView(name, status, { onDropped }) {
  const node = el("div", "tool-table");
  node.dataset.table = name;
  const head = el("div", "tool-main-head");
  head.append(el("h2", "", name));
  const insert = button("Insert entity", "tool-button tool-primary", () => editEntity(null));
  const drop = button("Delete table", "tool-button", () => confirmDropTable());
  head.append(insert, drop);

  const form = el("form", "tool-query");
  form.setAttribute("aria-label", `Query ${name}`);
  const filter = field("$filter", "filter", { placeholder: "PartitionKey eq 'a' and RowKey ge 'b'", spellcheck: false });
  filter.wrap.classList.add("tool-grow");
  const select = field("$select", "select", { placeholder: "Name,Price", spellcheck: false });
  const top = field("$top", "top", { type: "number", min: 1, max: 1000, placeholder: "1000" });
  top.wrap.classList.add("tool-narrow");
  const run = el("button", "tool-button tool-primary", "Run query");
  form.append(filter.wrap, select.wrap, top.wrap, run);

  const outcome = el("div", "tool-outcome");
  outcome.setAttribute("aria-live", "polite");
  const gridWrap = el("div", "tool-grid-wrap");
  gridWrap.tabIndex = 0;
  gridWrap.setAttribute("role", "region");
  gridWrap.setAttribute("aria-label", `Entities of ${name}`);
  const pager = el("div", "tool-pager");
  node.append(head, form, outcome, gridWrap, pager);

  let pages = []; // continuation of each page after the first
  let shown = [];
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    pages = [];
    runQuery();
  });

  async function runQuery(next) {
    const q = { filter: filter.input.value, select: select.input.value, top: top.input.value };
    const r = await call("table", state.account, queryPath(name, q, next), { headers: JSON_HEADERS });
    outcome.replaceChildren();
    pager.replaceChildren();
    if (!r.ok) {
      const { code, message } = errorOf(r);
      const p = el("p", "tool-error", `${r.status} ${code}: ${message}`);
      p.setAttribute("role", "alert");
      outcome.append(p);
      gridWrap.replaceChildren();
      return;
    }
    const plan = r.headers.get("X-Tablelab-Plan") ?? "";
    const examined = Number(r.headers.get("X-Tablelab-Examined") ?? 0);
    const returned = Number(r.headers.get("X-Tablelab-Returned") ?? 0);
    const line = el("p", "tool-plan");
    Object.assign(line.dataset, { plan, examined: String(examined), returned: String(returned) });
    line.append(
      planBadge(plan),
      ` examined ${examined.toLocaleString("en-US")} · returned ${returned.toLocaleString("en-US")} · ${Math.round(r.ms)} ms `,
    );
    const id = el("span", "tool-muted tool-rid", r.clientRequestId);
    id.title = "x-ms-client-request-id: find it in the inspector";
    line.append(id);
    outcome.append(line);
    shown = entitiesIn(r.text);
    renderGrid();
    const pk = r.headers.get("x-ms-continuation-NextPartitionKey");
    const rk = r.headers.get("x-ms-continuation-NextRowKey");
    if (pages.length > 0) {
      pager.append(button("First page", "tool-button", () => {
        pages = [];
        runQuery();
      }));
    }
    if (pk) {
      pager.append(button("Next page", "tool-button", () => {
        pages.push({ pk, rk });
        runQuery(pages.at(-1));
      }));
    }
  }

  function renderGrid() {
    gridWrap.replaceChildren();
    if (shown.length === 0) {
      gridWrap.append(el("p", "tool-muted", "No entities."));
      return;
    }
    const grid = gridOf(shown);
    // $select may leave out the keys and Timestamp: no empty columns.
    const keep = grid.columns.map((_, j) => grid.rows.some((cells) => cells[j] !== null));
    const columns = grid.columns.filter((_, j) => keep[j]);
    const rows = grid.rows.map((cells) => cells.filter((_, j) => keep[j]));
    const tableEl = el("table", "tool-grid entity-grid");
    const caption = el("caption", "visually-hidden", `Entities of ${name}, one row each, with their properties' types in the headings`);
    tableEl.append(caption);
    const hr = el("tr");
    const actions = el("th", "tool-actions-col");
    actions.scope = "col";
    actions.append(el("span", "visually-hidden", "Actions"));
    hr.append(actions);
    for (const c of columns) {
      const th = el("th");
      th.scope = "col";
      th.dataset.column = c.name;
      th.append(el("span", "tool-col-name", c.name));
      if (c.types.length && c.name !== "PartitionKey" && c.name !== "RowKey") {
        const t = el("span", "tool-col-type", c.types.map(shortType).join(" | "));
        th.dataset.types = c.types.join(",");
        th.append(t);
      }
      hr.append(th);
    }
    tableEl.createTHead().append(hr);
    const body = tableEl.createTBody();
    rows.forEach((cells, i) => {
      const entity = shown[i];
      const tr = el("tr");
      tr.dataset.pk = entity.PartitionKey ?? "";
      tr.dataset.rk = entity.RowKey ?? "";
      const td = el("td", "tool-actions");
      if ("PartitionKey" in entity && "RowKey" in entity) {
        const label = `${entity.PartitionKey} / ${entity.RowKey}`;
        const edit = button("Edit", "tool-button tool-small", () => editEntity(entity));
        edit.setAttribute("aria-label", `Edit ${label}`);
        const del = button("Delete", "tool-button tool-small tool-delete", () => confirmDelete(entity));
        del.setAttribute("aria-label", `Delete ${label}`);
        td.append(edit, del);
      }
      tr.append(td);
      cells.forEach((cell, j) => {
        const c = el("td", cell ? `tool-cell type-${shortType(cell.type || "String").toLowerCase()}` : "tool-cell tool-missing");
        c.dataset.column = columns[j].name;
        if (cell) {
          const text = cell.value.length > 80 ? cell.value.slice(0, 79) + "…" : cell.value;
          c.textContent = text;
          if (text !== cell.value) c.title = cell.value;
          if (cell.type) c.dataset.type = cell.type;
        }
        tr.append(c);
      });
      body.append(tr);
    });
    gridWrap.append(tableEl);
  }

  /** dialog opens a modal dialog titled title; close() removes it. */
  function dialog(title) {
    const d = el("dialog", "tool-dialog");
    const h = el("h2", "", title);
    h.id = `dialog-${crypto.randomUUID()}`;
    d.setAttribute("aria-labelledby", h.id);
    d.append(h);
    d.addEventListener("close", () => d.remove());
    document.body.append(d);
    return d;
  }

  /** problem shows a failed write in a dialog, 412 with what to do. */
  function problem(box, r, what, { retry, reload } = {}) {
    box.replaceChildren();
    box.hidden = false;
    const { code, message } = errorOf(r);
    if (r.status === 412) {
      box.classList.add("tool-conflict");
      box.append(
        el("p", "tool-conflict-title", `412 ${code || "UpdateConditionNotSatisfied"}: someone else changed this entity`),
        el("p", "", `Its ETag is no longer the one this page read, so the service refused to ${what}: another client wrote the entity after it was loaded here. Load their version to see it, or ${what} anyway (If-Match: *) to replace what they wrote.`),
      );
      const actions = el("div", "tool-actions-row");
      if (reload) actions.append(button("Load their version", "tool-button", reload));
      if (retry) actions.append(button(`${what[0].toUpperCase()}${what.slice(1)} anyway`, "tool-button tool-danger", retry));
      box.append(actions);
    } else {
      box.classList.remove("tool-conflict");
      box.append(el("p", "", `${r.status}${code ? " " + code : ""}${message ? ": " + message : ""}`));
    }
  }

  function editEntity(entity) {
    const editing = entity !== null;
    const d = dialog(editing ? `Edit ${entity.PartitionKey} / ${entity.RowKey}` : `Insert into ${name}`);
    const f = el("form", "tool-editor");
    f.method = "dialog";
    const keys = el("div", "tool-keys");
    const pk = field("PartitionKey", "pk", { required: !editing, readOnly: editing, value: entity?.PartitionKey ?? "" });
    const rk = field("RowKey", "rk", { required: !editing, readOnly: editing, value: entity?.RowKey ?? "" });
    keys.append(pk.wrap, rk.wrap);
    const props = el("fieldset", "tool-props");
    props.append(el("legend", "", "Properties"));
    const rowsBox = el("div", "tool-prop-rows");
    props.append(rowsBox, button("Add property", "tool-button tool-small", () => addRow({ name: "", type: "Edm.String", value: "" }, true)));
    const err = el("div", "tool-dialog-error");
    err.setAttribute("role", "alert");
    err.hidden = true;
    const actions = el("div", "tool-actions-row");
    const save = el("button", "tool-button tool-primary", editing ? "Save" : "Insert");
    save.type = "submit";
    const cancel = button("Cancel", "tool-button", () => d.close());
    actions.append(save, cancel);
    if (editing) {
      const del = button("Delete…", "tool-button tool-danger tool-end", () => {
        d.close();
        confirmDelete(entity);
      });
      del.setAttribute("aria-label", `Delete ${entity.PartitionKey} / ${entity.RowKey}`);
      actions.append(del);
    }
    f.append(keys, props, err, actions);
    d.append(f);

    let n = 0;
    function addRow(p, focus) {
      const row = el("div", "tool-prop-row");
      row.dataset.property = p.name;
      const i = n++;
      const nameIn = el("input", "tool-input");
      nameIn.value = p.name;
      nameIn.required = true;
      nameIn.setAttribute("aria-label", `Property ${i + 1} name`);
      nameIn.dataset.role = "name";
      const typeIn = el("select", "tool-input");
      for (const t of TYPES) typeIn.append(new Option(shortType(t), t, false, t === p.type));
      typeIn.setAttribute("aria-label", `Property ${i + 1} type`);
      typeIn.dataset.role = "type";
      const valueIn = el("input", "tool-input");
      valueIn.value = p.value;
      valueIn.setAttribute("aria-label", `Property ${i + 1} value`);
      valueIn.dataset.role = "value";
      const remove = button("Remove", "tool-button tool-small", () => row.remove());
      remove.setAttribute("aria-label", `Remove property ${i + 1}`);
      row.append(nameIn, typeIn, valueIn, remove);
      rowsBox.append(row);
      if (focus) nameIn.focus();
    }
    function fill(e) {
      rowsBox.replaceChildren();
      for (const p of propertiesOf(e ?? {})) addRow(p);
    }
    fill(entity);
    let etag = entity?.["odata.etag"] ?? "";

    async function submit(ifMatch) {
      let body;
      try {
        const rows = [...rowsBox.children].map((row) => ({
          name: row.querySelector("[data-role=name]").value,
          type: row.querySelector("[data-role=type]").value,
          value: row.querySelector("[data-role=value]").value,
        }));
        body = bodyOf(pk.input.value, rk.input.value, rows);
      } catch (e) {
        err.hidden = false;
        err.classList.remove("tool-conflict");
        err.replaceChildren(el("p", "", e.message));
        return;
      }
      const r = editing
        ? await call("table", state.account, entityPath(name, entity.PartitionKey, entity.RowKey), {
            method: "PUT",
            headers: { ...JSON_HEADERS, "If-Match": ifMatch ?? etag },
            body: JSON.stringify(body),
          })
        : await call("table", state.account, encodeURIComponent(name), {
            method: "POST",
            headers: { ...JSON_HEADERS, Prefer: "return-no-content" },
            body: JSON.stringify(body),
          });
      if (r.ok) {
        d.close();
        status.textContent = editing ? `Saved ${body.PartitionKey} / ${body.RowKey}.` : `Inserted ${body.PartitionKey} / ${body.RowKey}.`;
        status.className = "tool-status";
        runQuery(pages.at(-1));
        return;
      }
      problem(err, r, "save", {
        retry: () => submit("*"),
        reload: async () => {
          const got = await call("table", state.account, entityPath(name, entity.PartitionKey, entity.RowKey), { headers: JSON_HEADERS });
          if (got.status === 404) {
            err.replaceChildren(el("p", "", "It has been deleted since: Insert it again from the table's Insert entity."));
            return;
          }
          const [theirs] = entitiesIn(got.text);
          if (!theirs) return problem(err, got, "load it");
          fill(theirs);
          etag = theirs["odata.etag"];
          err.hidden = true;
          err.replaceChildren();
        },
      });
    }
    f.addEventListener("submit", (e) => {
      e.preventDefault();
      submit();
    });
    d.showModal();
    (editing ? rowsBox.querySelector("input") ?? save : pk.input).focus();
  }

  function confirmDelete(entity) {
    const label = `${entity.PartitionKey} / ${entity.RowKey}`;
    const d = dialog(`Delete ${label}?`);
    d.append(el("p", "", `The entity is deleted from ${name} only if no one has changed it since this page read it (If-Match: its ETag).`));
    const err = el("div", "tool-dialog-error");
    err.setAttribute("role", "alert");
    err.hidden = true;
    const actions = el("div", "tool-actions-row");
    async function remove(ifMatch) {
      const r = await call("table", state.account, entityPath(name, entity.PartitionKey, entity.RowKey), {
        method: "DELETE",
        headers: { ...JSON_HEADERS, "If-Match": ifMatch ?? entity["odata.etag"] ?? "*" },
      });
      if (r.ok) {
        d.close();
        status.textContent = `Deleted ${label}.`;
        status.className = "tool-status";
        runQuery(pages.at(-1));
        return;
      }
      problem(err, r, "delete", { retry: () => remove("*") });
    }
    const yes = button("Delete", "tool-button tool-danger", () => remove());
    actions.append(yes, button("Cancel", "tool-button", () => d.close()));
    d.append(err, actions);
    d.showModal();
    yes.focus();
  }

  function confirmDropTable() {
    const d = dialog(`Delete table ${name}?`);
    d.append(el("p", "", "Every entity in it goes too. This cannot be undone."));
    const err = el("div", "tool-dialog-error");
    err.setAttribute("role", "alert");
    err.hidden = true;
    const actions = el("div", "tool-actions-row");
    const cancel = button("Cancel", "tool-button", () => d.close());
    actions.append(
      button("Delete table", "tool-button tool-danger", async () => {
        const r = await call("table", state.account, `Tables('${encodeURIComponent(name.replaceAll("'", "''"))}')`, { method: "DELETE", headers: JSON_HEADERS });
        if (!r.ok) return problem(err, r, "delete the table");
        d.close();
        onDropped();
      }),
      cancel,
    );
    d.append(err, actions);
    d.showModal();
    cancel.focus();
  }

  return { node, run: () => runQuery() };
}

/** decoded is a queue message's text decoded from base64, when it is. */
function decoded(text) {
  if (text.length < 8 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(text)) return "";
  try {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const s = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return /^[\P{Cc}\t\n\r]*$/u.test(s) ? s : "";
  } catch {
    return "";
  }
}

/** simpleTable makes a table of rows under headings. */
function simpleTable(caption, headings, rows, className) {
  const t = el("table", `tool-grid ${className}`);
  t.append(el("caption", "visually-hidden", caption));
  const hr = el("tr");
  for (const h of headings) {
    const th = el("th");
    if (h) th.textContent = h;
    else th.append(el("span", "visually-hidden", "Download"));
    th.scope = "col";
    hr.append(th);
  }
  t.createTHead().append(hr);
  const body = t.createTBody();
  for (const cells of rows) {
    const tr = el("tr");
    for (const c of cells) {
      const td = el("td");
      td.append(c);
      tr.append(td);
    }
    body.append(tr);
  }
  return t;
}

/** names reads the names of an XML listing's items (Queue, Container). */
function names(text, item) {
  const doc = xml(text);
  return doc ? [...doc.getElementsByTagName(item)].map((n) => childText(n, "Name")) : [];
}

/** listAll lists every name of a Queue or Blob account listing. */
async function listAll(service, item, status, what) {
  const out = [];
  let marker = "";
  do {
    const r = await call(service, state.account, `?comp=list${marker ? "&marker=" + encodeURIComponent(marker) : ""}`);
    say(status, r, what);
    if (!r.ok) return null;
    out.push(...names(r.text, item));
    marker = childText(xml(r.text), "NextMarker");
  } while (marker);
  return out;
}

/** queuesView lists the queues and peeks at one queue's messages. */
function queuesView(panel, status) {
  const view = resourceView(panel, status, {
    noun: "Queue",
    create: (name) => call("queue", state.account, encodeURIComponent(name), { method: "PUT" }),
    names: () => listAll("queue", "Queue", status, "List queues"),
    open: peek,
  });
  const main = view.main;

  async function peek(name) {
    const node = el("div", "tool-queue");
    node.dataset.queue = name;
    const head = el("div", "tool-main-head");
    head.append(el("h2", "", name), button("Peek again", "tool-button", () => peek(name)));
    node.append(head);
    main.replaceChildren(node);
    const meta = await call("queue", state.account, `${encodeURIComponent(name)}?comp=metadata`);
    const r = await call("queue", state.account, `${encodeURIComponent(name)}/messages?peekonly=true&numofmessages=32`);
    if (!r.ok) {
      say(status, r, `Peek at ${name}`);
      return;
    }
    const count = meta.headers.get("x-ms-approximate-messages-count");
    const doc = xml(r.text);
    const msgs = doc ? [...doc.getElementsByTagName("QueueMessage")] : [];
    const about = el("p", "tool-muted", `About ${count ?? "?"} messages; the first ${msgs.length} visible ones, peeked (peeking changes nothing: no dequeue count, no visibility timeout).`);
    node.append(about);
    if (msgs.length === 0) {
      node.append(el("p", "tool-muted", "No visible messages."));
      return;
    }
    const rows = msgs.map((m) => {
      const text = childText(m, "MessageText");
      const cell = el("div", "tool-message");
      cell.append(el("span", "tool-message-text", text));
      const plain = decoded(text);
      if (plain) cell.append(el("span", "tool-muted tool-decoded", `base64 of: ${plain}`));
      return [childText(m, "MessageId"), childText(m, "InsertionTime"), childText(m, "ExpirationTime"), childText(m, "DequeueCount"), cell];
    });
    const wrap = el("div", "tool-grid-wrap");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", `Messages of ${name}`);
    wrap.append(simpleTable(`Messages of ${name}`, ["Message id", "Inserted", "Expires", "Dequeued", "Text"], rows, "tool-messages"));
    node.append(wrap);
  }
  return view;
}

/** containersView lists the containers and one container's blobs. */
function containersView(panel, status) {
  const view = resourceView(panel, status, {
    noun: "Container",
    create: (name) => call("blob", state.account, `${encodeURIComponent(name)}?restype=container`, { method: "PUT" }),
    names: () => listAll("blob", "Container", status, "List containers"),
    open: listBlobs,
  });
  const main = view.main;

  const blobPath = (container, blob) => `${encodeURIComponent(container)}/${blob.split("/").map(encodeURIComponent).join("/")}`;

  async function download(container, blob, b) {
    b.disabled = true;
    const resp = await fetch(`/_tablelab/api/blob/${encodeURIComponent(state.account)}/${blobPath(container, blob)}`, {
      headers: { "X-Tablelab-Explorer": "1", "x-ms-version": "2021-12-02", "x-ms-client-request-id": `explorer-${crypto.randomUUID()}` },
    });
    b.disabled = false;
    if (!resp.ok) {
      say(status, { ok: false, status: resp.status, headers: resp.headers, text: await resp.text() }, `Download ${blob}`);
      return;
    }
    const url = URL.createObjectURL(await resp.blob());
    const a = el("a");
    a.href = url;
    a.download = blob.split("/").at(-1);
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  async function listBlobs(name) {
    const node = el("div", "tool-container");
    node.dataset.container = name;
    const head = el("div", "tool-main-head");
    head.append(el("h2", "", name), button("List again", "tool-button", () => listBlobs(name)));
    node.append(head);
    main.replaceChildren(node);
    const blobs = [];
    let marker = "";
    do {
      const r = await call("blob", state.account, `${encodeURIComponent(name)}?restype=container&comp=list&maxresults=500${marker ? "&marker=" + encodeURIComponent(marker) : ""}`);
      if (!r.ok) {
        say(status, r, `List ${name}`);
        return;
      }
      const doc = xml(r.text);
      blobs.push(...[...doc.getElementsByTagName("Blob")]);
      marker = childText(doc, "NextMarker");
    } while (marker && blobs.length < 5000);
    if (blobs.length === 0) {
      node.append(el("p", "tool-muted", "No blobs."));
      return;
    }
    const rows = blobs.map((b) => {
      const blobName = childText(b, "Name");
      const size = Number(childText(b, "Content-Length"));
      const get = button("Download", "tool-button tool-small");
      get.setAttribute("aria-label", `Download ${blobName}`);
      get.addEventListener("click", () => download(name, blobName, get));
      return [blobName, formatBytes(size), childText(b, "Content-Type"), childText(b, "Last-Modified"), childText(b, "BlobType"), get];
    });
    const wrap = el("div", "tool-grid-wrap");
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", `Blobs of ${name}`);
    wrap.append(simpleTable(`Blobs of ${name}`, ["Name", "Size", "Content type", "Last modified", "Type", ""], rows, "tool-blobs"));
    node.append(wrap);
  }
  return view;
}

main();
