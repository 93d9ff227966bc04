// The playground page (#playground): the editor first, with Run, and
// beside it (under it on a phone) what the code did, a tab each: its
// output with the plan of every query, the entities the last query
// returned, a map of the table's keyspace, the partition heat, the wire
// log and a running cost meter.
//
// The reader's work is never lost without their say:
// - the code is kept as a draft on every change; opening a share link
//   keeps the draft it replaces, to go back to;
// - the reader's store ("playground", in IndexedDB) changes only when they
//   ask: a run goes to a copy of it unless Keep changes is on, Import
//   replaces its tables only after the whole file is read and checked and
//   the reader confirms, Reset asks first;
// - a link's data opens in a store of its own ("shared"), which the reader
//   may keep (it then replaces their tables, once they confirm) or leave.
//
// What tests can read: #playground[data-state] ("ready", "running",
// "done", "error", "stopped"); #pg-output (exactly what the code printed);
// #pg-error (hidden when there is none); #pg-plans li.run-plan[data-plan];
// #pg-heat .heat[data-over] li.heat-row[data-partition][data-peak]
// [data-over]; #pg-grid; #pg-wire li[data-service][data-method]
// [data-status] and #pg-wire-dropped[data-dropped]; #pg-cost
// dd[data-total]; #pg-map[data-walked-from][data-walked-to]; #pg-store
// [data-store] ("playground" or "shared"); #pg-keep; #pg-share-link.

import { EngineClient } from "./engine.js";
import { RunHost, KEEP_REQUESTS } from "./run-host.js";
import { createEditor } from "./editor.js";
import { el, errorText, renderError, renderHeat, renderPlans, renderScorecards } from "./view.js";
import { Heat, PARTITION_TARGET } from "./heat.js";
import { isLeftover } from "./explain.js";
import { shareHash, readShareHash } from "./share.js";
import { LiveView, renderCost, renderGrid, renderMap } from "./panels.js";
import { STARTERS } from "./starters.js";

// The stores: the reader's own, a link's data, and the copy a run works
// on when its changes are not kept. Only the first is kept in IndexedDB.
const MINE = "playground";
const SHARED = "shared";
const SCRATCH = "run";
const CHECK = "import-check";

const DRAFT_KEY = "tablelab-playground-code";
const PREVIOUS_KEY = "tablelab-playground-previous";
const KEEP_KEY = "tablelab-playground-keep";
const SPLIT_KEY = "tablelab-playground-split";

const WIRE_LIMIT = KEEP_REQUESTS;
const PLAN_LIMIT = 200;

const here = new URL(".", import.meta.url);

// storage is localStorage where the browser allows it; the page works
// without (nothing is then remembered across a reload).
const storage = {
  get(key) {
    try {
      return localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch {
      // not remembered; nothing else depends on it
    }
  },
};

function button(id, text, title, cls = "pg-button") {
  const b = el("button", cls, text);
  b.type = "button";
  if (id) b.id = id;
  if (title) b.title = title;
  return b;
}

// TABS are the panels beside the editor: [id, tab label].
const TABS = [
  ["pg-output", "Output"],
  ["pg-grid", "Results"],
  ["pg-map", "Keyspace"],
  ["pg-heat", "Heat"],
  ["pg-wire", "Wire log"],
  ["pg-cost", "Cost"],
];

function build(root) {
  root.classList.add("pg");
  const toolbar = el("div", "pg-toolbar");
  toolbar.setAttribute("role", "group");
  toolbar.setAttribute("aria-label", "Playground controls");

  const run = button("pg-run", "Run", "Run (Ctrl/⌘+Enter)", "pg-button pg-primary");
  const stop = button("pg-stop", "Stop", "Stop the running program");
  stop.hidden = true;
  const keep = el("input");
  keep.type = "checkbox";
  keep.id = "pg-keep";
  const keepLabel = el("label", "pg-check");
  keepLabel.title = "Off: each run works on a copy of your store, which stays as it was. On: runs change your store.";
  keepLabel.append(keep, " Keep changes");
  const starter = el("select", "pg-select");
  starter.id = "pg-starter";
  starter.setAttribute("aria-label", "Starter example");
  starter.append(el("option", "", "Starter examples…"));
  STARTERS.forEach((s, i) => {
    const o = el("option", "", s.title);
    o.value = String(i);
    starter.append(o);
  });

  const store = el("span", "pg-store");
  store.id = "pg-store";
  const reset = button("pg-reset", "Reset", "Delete every table, queue and blob container of this store (asks first)");
  const exportButton = button("pg-export", "Export", "Download this store's tables as JSON (queues and blobs stay out)");
  const importButton = button("pg-import", "Import", "Replace this store's tables with an exported JSON file (checked first, asks first)");
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
  const help = el("a", "pg-help", "Help");
  help.href = "#pg-about";
  toolbar.append(
    run,
    stop,
    keepLabel,
    starter,
    el("span", "pg-gap"),
    store,
    reset,
    exportButton,
    importButton,
    importFile,
    share,
    withDataLabel,
    help,
  );

  // The notice under the toolbar: a link's store or code is on show, and
  // the way back to the reader's own.
  const notice = el("div", "pg-notice");
  notice.id = "pg-notice";
  notice.hidden = true;
  const noticeText = el("p", "pg-notice-text");
  const keepShared = button("pg-shared-keep", "Keep this data", "Replace your store's tables with this link's (asks first)");
  const backShared = button("pg-shared-back", "Back to my store", "Show your own store again; the link's data is dropped");
  const backCode = button("pg-draft-back", "Back to my code", "Put your own code, as you left it, back in the editor");
  notice.append(noticeText, keepShared, backShared, backCode);

  const status = el("p", "pg-status");
  status.id = "pg-status";
  status.setAttribute("role", "status");
  const shareLink = el("input", "pg-share-link");
  shareLink.id = "pg-share-link";
  shareLink.readOnly = true;
  shareLink.hidden = true;
  shareLink.setAttribute("aria-label", "Share link");

  const main = el("div", "pg-main");
  const editorBox = el("div", "pg-editor");
  const splitter = el("div", "pg-splitter");
  splitter.setAttribute("role", "separator");
  splitter.setAttribute("aria-orientation", "vertical");
  splitter.setAttribute("aria-label", "Resize the editor and the panels");
  splitter.setAttribute("aria-controls", "pg-side");
  splitter.setAttribute("aria-valuemin", "25");
  splitter.setAttribute("aria-valuemax", "75");
  splitter.tabIndex = 0;
  const side = el("div", "pg-side");
  side.id = "pg-side";
  const tablist = el("div", "pg-tabs");
  tablist.setAttribute("role", "tablist");
  tablist.setAttribute("aria-label", "What the code did");
  side.append(tablist);
  const tabs = {};
  const panels = {};
  for (const [id, label] of TABS) {
    const tab = button(`${id}-tab`, label, undefined, "pg-tab");
    tab.setAttribute("role", "tab");
    tab.setAttribute("aria-controls", `${id}-panel`);
    tab.dataset.tab = id.replace(/^pg-/, "");
    tablist.append(tab);
    const panel = el("section", "pg-panel");
    panel.id = `${id}-panel`;
    panel.setAttribute("role", "tabpanel");
    panel.setAttribute("aria-labelledby", tab.id);
    panel.tabIndex = 0;
    side.append(panel);
    tabs[id] = tab;
    panels[id] = panel;
  }

  const output = el("pre", "run-printed");
  output.id = "pg-output";
  // A log: what the program prints is read out as it comes.
  output.setAttribute("role", "log");
  output.tabIndex = 0;
  output.setAttribute("aria-label", "What the code printed");
  const errorBox = el("div", "pg-error");
  errorBox.id = "pg-error";
  errorBox.hidden = true;
  const plans = el("div", "pg-plans");
  plans.id = "pg-plans";
  panels["pg-output"].append(output, errorBox, el("h2", "pg-panel-title", "Query plans"), plans);

  const gridWrap = el("div", "pg-grid-wrap");
  gridWrap.tabIndex = 0;
  gridWrap.setAttribute("aria-label", "Entities the last query returned");
  const grid = el("table", "pg-grid");
  grid.id = "pg-grid";
  gridWrap.append(grid);
  panels["pg-grid"].append(gridWrap);

  const map = el("div", "pg-map");
  map.id = "pg-map";
  panels["pg-map"].append(map);

  const heat = el("div", "pg-heat");
  heat.id = "pg-heat";
  panels["pg-heat"].append(heat);

  const wireDropped = el("p", "pg-empty");
  wireDropped.id = "pg-wire-dropped";
  wireDropped.hidden = true;
  const wire = el("ol", "pg-wire");
  wire.id = "pg-wire";
  wire.setAttribute("aria-label", "Requests, newest last");
  panels["pg-wire"].append(wireDropped, wire);

  const cost = el("dl", "pg-cost");
  cost.id = "pg-cost";
  panels["pg-cost"].append(cost);

  main.append(editorBox, splitter, side);

  const confirm = el("dialog", "pg-confirm");
  confirm.id = "pg-confirm";
  confirm.setAttribute("aria-labelledby", "pg-confirm-title");
  const form = el("form");
  form.method = "dialog";
  const title = el("h2", "pg-confirm-title");
  title.id = "pg-confirm-title";
  const body = el("p", "pg-confirm-body");
  const actions = el("div", "pg-confirm-actions");
  const cancel = el("button", "pg-button", "Cancel");
  cancel.value = "cancel";
  const ok = el("button", "pg-button pg-danger", "Replace");
  ok.value = "confirm";
  actions.append(cancel, ok);
  form.append(title, body, actions);
  confirm.append(form);

  root.replaceChildren(toolbar, notice, status, shareLink, main, confirm);
  return {
    root, toolbar, starter, run, stop, keep, store, reset, exportButton, importButton, importFile, share, withData,
    shareLink, notice, noticeText, keepShared, backShared, backCode, status, main, editorBox, splitter, side, tabs,
    panels, output, errorBox, plans, map, grid, wire, wireDropped, cost, heat, confirm, confirmTitle: title,
    confirmBody: body, confirmOk: ok,
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
  // The store on show: the reader's own, or a link's.
  let shown = MINE;
  // Set while the page itself puts text in the editor: not the reader's
  // edit, so not a draft.
  let applying = false;
  let draftTimer = 0;
  // The program the last link opened, while the reader has not changed it.
  let linkCode = null;

  ui.keep.checked = storage.get(KEEP_KEY) === "on";
  ui.keep.addEventListener("change", () => storage.set(KEEP_KEY, ui.keep.checked ? "on" : "off"));

  const editor = createEditor(ui.editorBox, storage.get(DRAFT_KEY) ?? STARTERS[0].code, () => runCode(), "Playground code", onEdit);

  // onEdit keeps the reader's code as the draft; once they change what a
  // link opened, the address no longer stands for the editor, so it
  // drops the link and a reload shows the draft.
  function onEdit(code) {
    if (applying) return;
    if (linkCode !== null) {
      linkCode = null;
      showNotice();
    }
    clearTimeout(draftTimer);
    draftTimer = setTimeout(() => {
      draftTimer = 0;
      storage.set(DRAFT_KEY, code);
    }, 250);
    leaveLink();
  }
  addEventListener("pagehide", () => {
    if (draftTimer) storage.set(DRAFT_KEY, editor.code());
  });

  // leaveLink drops a share link from the address once the page no
  // longer shows what it opened: a reload then shows the reader's own.
  function leaveLink() {
    if (/(^#|&)code=/.test(location.hash)) history.replaceState(null, "", location.pathname + location.search);
  }

  function setCode(code) {
    applying = true;
    try {
      editor.setCode(code);
    } finally {
      applying = false;
    }
  }

  function selectTab(id, focus = false) {
    for (const [tid] of TABS) {
      const on = tid === id;
      ui.tabs[tid].setAttribute("aria-selected", String(on));
      ui.tabs[tid].tabIndex = on ? 0 : -1;
      ui.panels[tid].hidden = !on;
    }
    if (focus) ui.tabs[id].focus();
  }
  selectTab("pg-output");
  for (const [id] of TABS) ui.tabs[id].addEventListener("click", () => selectTab(id));
  ui.side.querySelector("[role=tablist]").addEventListener("keydown", (e) => {
    const ids = TABS.map(([id]) => id);
    const at = ids.findIndex((id) => ui.tabs[id].getAttribute("aria-selected") === "true");
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: ids.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    selectTab(ids[(to + ids.length) % ids.length], true);
  });

  setUpSplitter(ui);
  fitToWindow(ui);

  // ask shows the confirmation dialog and resolves to whether the reader
  // confirmed.
  function ask(title, body, okText) {
    ui.confirmTitle.textContent = title;
    ui.confirmBody.textContent = body;
    ui.confirmOk.textContent = okText;
    ui.confirm.returnValue = "";
    ui.confirm.showModal();
    return new Promise((resolve) => ui.confirm.addEventListener("close", () => resolve(ui.confirm.returnValue === "confirm"), { once: true }));
  }

  function showStore() {
    // What the panels show came from the other store: it goes.
    if (ui.store.dataset.store && ui.store.dataset.store !== shown) clearPanels();
    ui.store.dataset.store = shown;
    ui.store.textContent = shown === SHARED ? "Store: the link's data" : "Store: yours";
    ui.store.title =
      shown === SHARED
        ? "The data that came with the link, in a store of its own: your tables are untouched"
        : "Your store, kept in this browser";
    showNotice();
  }

  function showNotice() {
    const previous = storage.get(PREVIOUS_KEY);
    const sharedStore = shown === SHARED;
    // The way back to the reader's code is offered while the editor holds
    // the link's program as it came.
    const codeBack = previous !== null && linkCode !== null && editor.code() === linkCode && previous !== linkCode;
    ui.keepShared.hidden = ui.backShared.hidden = !sharedStore;
    ui.backCode.hidden = !codeBack;
    ui.notice.hidden = !sharedStore && !codeBack;
    ui.noticeText.textContent = sharedStore
      ? "This link came with data: it is open in a store of its own, and your tables are untouched. Keep it to make it yours, or go back to your store."
      : "The editor holds the link's program; yours is kept.";
  }

  // openLink opens the program (and data) a share link's fragment holds.
  // A damaged link changes nothing and says so.
  async function openLink(hash) {
    let shared;
    try {
      shared = await readShareHash(hash);
    } catch (err) {
      say(`This link is damaged (${err.message.replace(/^share link is damaged: /, "")}): nothing was opened, and your code is as it was.`);
      return;
    }
    if (!shared) return;
    if (shared.data !== undefined) {
      try {
        await engine.op(SHARED, "reset");
        await engine.op(SHARED, "replace", shared.data);
      } catch (err) {
        say(`This link's data is damaged (${err.message}): nothing was opened, and your code is as it was.`);
        return;
      }
    }
    const mine = editor.code();
    if (mine !== shared.code) storage.set(PREVIOUS_KEY, mine);
    linkCode = shared.code;
    setCode(shared.code);
    if (shared.data !== undefined) shown = SHARED;
    showStore();
    say(
      shared.data !== undefined
        ? "Opened the shared program and its data, in a store of its own: your tables are untouched."
        : "Opened the shared program. Your own code is kept: Back to my code brings it back.",
    );
  }

  addEventListener("hashchange", () => openLink(location.hash));
  if (location.hash) await openLink(location.hash);
  showStore();
  renderCost(ui.cost, totals, null);
  root.dataset.state = "ready";

  function clearPanels() {
    ui.output.textContent = "";
    ui.errorBox.hidden = true;
    ui.errorBox.replaceChildren();
    editor.clearMarks();
    for (const box of [ui.plans, ui.heat, ui.grid, ui.map, ui.wire]) box.replaceChildren();
  }

  async function runCode() {
    if (root.dataset.state === "running") return;
    root.dataset.state = "running";
    ui.run.disabled = true;
    ui.stop.hidden = false;
    clearPanels();
    selectTab("pg-output");
    // On a phone the panels are under the editor: Run brings the output
    // into view.
    if (getComputedStyle(ui.splitter).display === "none") ui.side.scrollIntoView({ block: "start" });
    const keep = ui.keep.checked;
    const store = keep ? shown : SCRATCH;
    say("Running…");
    const live = new LiveView(ui, WIRE_LIMIT, say);
    const heat = new Heat();
    let result;
    try {
      if (!keep) await engine.op(shown, "clone", SCRATCH);
      result = await host.run(editor.code(), store, {
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
    const error = result.error;
    if (error) {
      const leftovers =
        keep && isLeftover(error)
          ? "This store kept what earlier runs wrote (Keep changes is on), so the program met its own leftovers: Reset the store, or turn Keep changes off to start each run from the store as it was."
          : undefined;
      ui.errorBox.replaceChildren(error.name === "Stopped" ? el("p", "run-status", "Stopped before it finished.") : renderError(error, leftovers));
      ui.errorBox.hidden = false;
      if (error.line) editor.markError({ line: error.line, column: error.column, message: errorText(error) });
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
    await renderMap(ui.map, engine, store, result);
    root.dataset.state = error ? (error.name === "Stopped" ? "stopped" : "error") : "done";
    const kept = keep
      ? shown === SHARED
        ? "Its changes are in the link's store."
        : "Its changes are kept in your store."
      : "Its changes were not kept: the store is as it was before the run (Keep changes keeps them).";
    if (error?.name === "Stopped") say(`Stopped. ${kept}`);
    else if (error) say(`The program ended with ${error.line ? `an error at line ${error.line}` : "an error"}. ${kept}`);
    else say(`Done. ${kept}`);
  }

  ui.run.addEventListener("click", runCode);
  ui.stop.addEventListener("click", () => host.stop());
  ui.starter.addEventListener("change", () => {
    const s = STARTERS[Number(ui.starter.value)];
    ui.starter.selectedIndex = 0;
    if (!s) return;
    // A starter is an edit like any other: the code it replaces is
    // undone with Ctrl/⌘+Z.
    editor.setCode(s.code);
    say(`Loaded "${s.title}". Run it with the Run button or Ctrl/⌘+Enter (Ctrl/⌘+Z puts your code back).`);
  });

  ui.reset.addEventListener("click", async () => {
    const which = shown === SHARED ? "the link's store" : "your store";
    if (!(await ask(`Empty ${which}?`, `Every table, queue and blob container of ${which} will be deleted. Export first to keep a copy.`, "Empty it"))) {
      say("Nothing was deleted.");
      return;
    }
    host.stop();
    try {
      await engine.op(shown, "reset");
      totals.runs = totals.requests = totals.examined = totals.returned = 0;
      renderCost(ui.cost, totals, null);
      clearPanels();
      say("The store is empty.");
    } catch (err) {
      say(`Reset failed: ${err.message}`);
    }
  });

  ui.exportButton.addEventListener("click", async () => {
    try {
      const text = await engine.op(shown, "export");
      const a = document.createElement("a");
      a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
      a.download = "tablelab-playground.json";
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
      say("Exported the store's tables as tablelab-playground.json (go run . -import reads it too).");
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
      // The whole file is read and checked in a store of its own before
      // the reader is asked: a bad file changes nothing.
      try {
        await engine.op(CHECK, "reset");
        await engine.op(CHECK, "replace", text);
      } catch (err) {
        say(`Import failed: ${file.name} is not a tablelab export: ${err.message}. Nothing was changed.`);
        return;
      }
      const tables = await tableNames(CHECK);
      await engine.op(CHECK, "reset");
      const mine = await tableNames(shown);
      if (mine.length > 0) {
        const ok = await ask(
          "Replace the store's tables?",
          `${file.name} holds ${count(tables.length, "table")} (${tables.join(", ") || "none"}). Importing it replaces the store's ${count(mine.length, "table")} (${mine.join(", ")}); queues and blobs stay.`,
          "Replace",
        );
        if (!ok) {
          say("Import cancelled: nothing was changed.");
          return;
        }
      }
      await engine.op(shown, "replace", text);
      say(`Imported ${file.name}: ${count(tables.length, "table")}.`);
    } catch (err) {
      say(`Import failed: ${err.message}. Nothing was changed.`);
    }
  });

  ui.keepShared.addEventListener("click", async () => {
    const mine = await tableNames(MINE);
    const theirs = await tableNames(SHARED);
    const ok = await ask(
      "Replace your tables with the link's?",
      `Your store's ${count(mine.length, "table")} (${mine.join(", ") || "none"}) will be replaced by the link's ${count(theirs.length, "table")} (${theirs.join(", ") || "none"}). Your queues and blobs stay.`,
      "Replace my tables",
    );
    if (!ok) {
      say("Nothing was changed: the link's data is still in a store of its own.");
      return;
    }
    try {
      await engine.op(MINE, "replace", await engine.op(SHARED, "export"));
      await engine.op(SHARED, "reset");
      shown = MINE;
      // The link is the reader's now, its code with its data.
      storage.set(DRAFT_KEY, editor.code());
      leaveLink();
      showStore();
      say("The link's tables are now yours.");
    } catch (err) {
      say(`Keeping the link's data failed: ${err.message}. Your store is as it was.`);
    }
  });
  ui.backShared.addEventListener("click", async () => {
    shown = MINE;
    await engine.op(SHARED, "reset");
    leaveLink();
    showStore();
    say("Back to your own store.");
  });
  ui.backCode.addEventListener("click", () => {
    const previous = storage.get(PREVIOUS_KEY);
    if (previous === null) return;
    storage.set(PREVIOUS_KEY, null);
    editor.setCode(previous);
    say("Your code is back (Ctrl/⌘+Z brings the link's).");
  });

  ui.share.addEventListener("click", async () => {
    try {
      const data = ui.withData.checked ? await engine.op(shown, "export") : undefined;
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

  // tableNames lists a store's tables, straight from the engine.
  async function tableNames(store) {
    const text = await engine.op(store, "export");
    return (JSON.parse(text).tables ?? []).map((t) => t.name);
  }
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

// setUpSplitter lets the reader move the line between the editor and the
// panels, with the pointer or the arrow keys; the place is remembered.
function setUpSplitter(ui) {
  const set = (pct) => {
    const p = Math.max(25, Math.min(75, Math.round(pct)));
    ui.main.style.setProperty("--pg-split", `${p}%`);
    ui.splitter.setAttribute("aria-valuenow", String(p));
    return p;
  };
  let at = set(Number(storage.get(SPLIT_KEY)) || 58);
  const save = () => storage.set(SPLIT_KEY, String(at));
  ui.splitter.addEventListener("keydown", (e) => {
    const step = { ArrowLeft: -5, ArrowRight: 5, Home: -100, End: 100 }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    at = set(at + step);
    save();
  });
  ui.splitter.addEventListener("pointerdown", (e) => {
    ui.splitter.setPointerCapture(e.pointerId);
    const move = (ev) => {
      const r = ui.main.getBoundingClientRect();
      at = set(((ev.clientX - r.left) / r.width) * 100);
    };
    const up = () => {
      ui.splitter.removeEventListener("pointermove", move);
      save();
    };
    ui.splitter.addEventListener("pointermove", move);
    ui.splitter.addEventListener("pointerup", up, { once: true });
  });
}

// fitToWindow gives the editor and panels the rest of the window below
// the toolbar, however tall what stands above them is (the header, a
// toolbar that wraps, a notice, a share link).
function fitToWindow(ui) {
  const fit = () => ui.main.style.setProperty("--pg-top", `${Math.max(0, ui.main.getBoundingClientRect().top + scrollY)}px`);
  fit();
  const watch = new ResizeObserver(fit);
  for (const node of [document.querySelector(".site-header"), ui.toolbar, ui.notice, ui.status, ui.shareLink]) if (node) watch.observe(node);
  addEventListener("resize", fit);
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

const root = document.getElementById("playground");
if (root) start(root);
