// What the explorer and the inspector share: the way to the local
// server's tools (under /_tablelab/ on the site `go run .` serves), small
// DOM helpers, and the words for an answer's status and error.

export { el, planBadge } from "../play/view.js";
import { el } from "../play/view.js";

/** Where the local server's site answers its tools. */
export const TOOLS = "/_tablelab/";

/** The header that marks a request as the explorer's own. */
const MARK = "X-Tablelab-Explorer";

/**
 * call sends one request through the explorer's way into the running
 * services: service is "table", "queue" or "blob", path is the resource
 * under the account (no leading slash). It resolves to {status, ok,
 * headers, text, ms, clientRequestId} whatever the status; it rejects
 * only when the server cannot be reached.
 */
export async function call(service, account, path, { method = "GET", headers = {}, body } = {}) {
  const clientRequestId = `explorer-${crypto.randomUUID()}`;
  const h = new Headers(headers);
  h.set(MARK, "1");
  h.set("x-ms-client-request-id", clientRequestId);
  if (!h.has("x-ms-version")) h.set("x-ms-version", service === "table" ? "2019-02-02" : "2021-12-02");
  const start = performance.now();
  const sep = path.startsWith("?") ? "" : "/";
  const resp = await fetch(`${TOOLS}api/${service}/${encodeURIComponent(account)}${sep}${path}`, { method, headers: h, body });
  const text = method === "HEAD" ? "" : await resp.text();
  return { status: resp.status, ok: resp.ok, headers: resp.headers, text, ms: performance.now() - start, clientRequestId };
}

/**
 * info asks the server what the explorer can reach: {accounts, services}.
 * It resolves to null when the page is not on the local server's site.
 */
export async function info() {
  try {
    const resp = await fetch(`${TOOLS}api/info`, { headers: { [MARK]: "1" } });
    if (!resp.ok) return null;
    return await resp.json();
  } catch {
    return null;
  }
}

/**
 * errorOf reads an error answer: the Table service's JSON or the Queue
 * and Blob services' XML, as {code, message}. code is "" when the body
 * says none.
 */
export function errorOf(r) {
  let code = r.headers.get("x-ms-error-code") || "";
  let message = "";
  try {
    const e = JSON.parse(r.text)["odata.error"];
    code ||= e?.code ?? "";
    message = e?.message?.value ?? "";
  } catch {
    const doc = xml(r.text);
    code ||= doc?.querySelector("Code")?.textContent ?? "";
    message = doc?.querySelector("Message")?.textContent ?? r.text;
  }
  // The service adds the request id and time on lines of their own.
  return { code, message: message.split("\n")[0].trim() };
}

/** xml parses an XML body, or returns null. */
export function xml(text) {
  if (!text || !text.trimStart().startsWith("<")) return null;
  const doc = new DOMParser().parseFromString(text, "application/xml");
  return doc.querySelector("parsererror") ? null : doc;
}

/** childText is the text of the first element named name under node. */
export function childText(node, name) {
  return node.getElementsByTagName(name)[0]?.textContent ?? "";
}

/** statusClass is the class of a status: ok, client error, server error. */
export function statusClass(status) {
  if (status >= 500) return "status-server";
  if (status >= 400) return "status-client";
  return "status-ok";
}

/** button makes a button with text, a class and a click handler. */
export function button(text, className, onClick) {
  const b = el("button", className, text);
  b.type = "button";
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

/**
 * tabs makes a tab list over panels ([{id, label, panel}]) with the
 * keyboard behaviour of one: arrows, Home and End move between tabs, and
 * only the chosen tab is in the tab order. onSelect(id) runs on a change.
 */
export function tabs(label, items, onSelect) {
  const list = el("div", "tool-tabs");
  list.setAttribute("role", "tablist");
  list.setAttribute("aria-label", label);
  const buttons = items.map((item) => {
    const b = el("button", "tool-tab", item.label);
    b.type = "button";
    b.id = `tab-${item.id}`;
    b.setAttribute("role", "tab");
    b.setAttribute("aria-controls", item.panel.id);
    item.panel.setAttribute("role", "tabpanel");
    item.panel.setAttribute("aria-labelledby", b.id);
    b.addEventListener("click", () => select(item.id));
    list.append(b);
    return b;
  });
  function select(id, focus = false) {
    items.forEach((item, i) => {
      const on = item.id === id;
      buttons[i].setAttribute("aria-selected", String(on));
      buttons[i].tabIndex = on ? 0 : -1;
      item.panel.hidden = !on;
      if (on && focus) buttons[i].focus();
    });
    onSelect?.(id);
  }
  list.addEventListener("keydown", (e) => {
    const i = buttons.indexOf(document.activeElement);
    if (i < 0) return;
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: buttons.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(items[(to + items.length) % items.length].id, true);
  });
  return { list, select };
}

/** notOnLocalServer says where the tool works, when the page is elsewhere. */
export function notOnLocalServer(what) {
  const box = el("div", "tool-notice");
  box.setAttribute("role", "status");
  const p = el("p", "", `The ${what} works on the site the local server serves: run `);
  p.append(el("code", "", "go run ."), " in a checkout of tablelab and open this page at ", el("code", "", "http://127.0.0.1:8080/"), " on the same machine.");
  box.append(p);
  return box;
}

/** formatBytes says a size in bytes, KiB or MiB. */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
