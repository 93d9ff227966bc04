// tablelab's embed: runnable Azure Table examples on any page, with one
// tag:
//
//   <script type="module" src="https://…/embed/tablelab-embed.js"></script>
//
// It makes live every <tablelab-example> element, and every code block
// marked for it: a <pre> (or an element around one, or a <code> inside
// one) with the class "tablelab" or "language-tablelab" (a Markdown fence
// whose language is tablelab) or the attribute data-tablelab. A marked
// block is moved into a <tablelab-example> made for it, with its data-*
// attributes; a block marked "tablelab-expected" right after it is the
// output it must print. content/embed.md documents the attributes.
//
// This file is all a page loads until an example comes near the screen
// (an IntersectionObserver, a screen ahead); then element.js, the site's
// example modules and the stylesheet load, and the example gets its
// toolbar. The engine (its worker, the wasm, the SDKs) loads only when a
// reader runs an example, or points at one or tabs into it, once for
// every example of the page; the editor when a reader edits one.

const MARK = ".tablelab, .language-tablelab, [data-tablelab]";
const EXPECTED = ".tablelab-expected, .language-tablelab-expected, [data-tablelab-expected]";

let observer = null;
let element = null;

// load brings in the example's parts once, for every example.
const load = () => (element ??= import("./element.js"));

// live makes an example live now.
function live(example) {
  load().then(
    (m) => m.makeLive(example, { mark: MARK, expected: EXPECTED }),
    (err) => {
      example.dataset.state = "failed";
      console.error(`tablelab: the embed's modules did not load from ${new URL(".", import.meta.url)}: ${err.message}`);
    },
  );
}

// soon makes an example live when it comes within a screen of the view.
function soon(example) {
  if (typeof IntersectionObserver === "undefined") return live(example);
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        observer.unobserve(e.target);
        live(e.target);
      }
    },
    { rootMargin: "100% 0px" },
  );
  observer.observe(example);
}

class TablelabExample extends HTMLElement {
  static observedAttributes = ["theme", "data-theme"];

  connectedCallback() {
    if (this.shadowRoot) return;
    // The output it must print is not part of what the page shows.
    for (const child of this.children) if (child.matches(EXPECTED)) child.hidden = true;
    soon(this);
  }

  disconnectedCallback() {
    observer?.unobserve(this);
  }

  attributeChangedCallback() {
    // element.js follows the theme once the example is live.
    this.tablelabTheme?.();
  }
}

// blockOf is the element to move into an example for a mark: the <pre>
// itself, the <pre> a marked <code> is in, or a marked wrapper around a
// <pre> (a highlighter's <div>); null for a mark with no code block.
function blockOf(mark) {
  if (mark.localName === "pre") return mark;
  const pre = mark.closest("pre");
  if (pre) return pre;
  return mark.querySelector("pre") ? mark : null;
}

// wrap makes a <tablelab-example> of each marked block under root that
// is not in one yet.
function wrap(root) {
  for (const mark of root.querySelectorAll(MARK)) {
    if (mark.matches(EXPECTED) || mark.closest("tablelab-example")) continue;
    const block = blockOf(mark);
    if (!block || block.closest("tablelab-example")) continue;
    const example = document.createElement("tablelab-example");
    // The options, wherever the page's Markdown put them.
    for (const el of new Set([block, mark, block.querySelector("pre, code"), mark.querySelector("pre, code")])) {
      for (const a of el?.attributes ?? []) {
        if (a.name.startsWith("data-") && a.name !== "data-tablelab" && !example.hasAttribute(a.name)) example.setAttribute(a.name, a.value);
      }
    }
    const next = block.nextElementSibling;
    block.before(example);
    example.append(block);
    if (next && (next.matches(EXPECTED) || next.querySelector(EXPECTED))) example.append(next);
  }
}

if (!customElements.get("tablelab-example")) {
  wrap(document);
  customElements.define("tablelab-example", TablelabExample);
  // Pages that change without loading (a site's instant navigation) get
  // their new blocks made live too, looked for once per task.
  let queued = false;
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      wrap(document);
    });
  }).observe(document.documentElement, { childList: true, subtree: true });
}
