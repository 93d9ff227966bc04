// The embed's example, made live (tablelab-embed.js loads this module when
// the first example comes near the screen): a shadow root that holds the
// page's own code block (slotted, so the page's styles and highlighting
// stay on it), the toolbar, the editor once the reader edits, and the
// output, all made by the site's own live-example.js, sharing one engine
// among the page's examples.
//
// Attributes of <tablelab-example> (each also as data-…, which is how a
// marked <pre> gives them):
//
//   store="name"     examples with the same store share one store, which
//                    keeps what each run writes; without it an example
//                    has a store of its own, emptied before each run
//   plans="a,b"      the plans its queries must have, in order (point,
//                    range, partition-scan, table-scan), for the check
//   map              draw the keyspace map of the last query
//   heat             always show the partition heat panel
//   theme="dark"     light or dark whatever the page says
//   label="…"        the code's accessible name
//
// A child marked tablelab-expected holds the output it must print.

import { lazyRunHost, liveExample, planList } from "../play/live-example.js";
import { el } from "../play/view.js";

const runHost = lazyRunHost();

// The one stylesheet, fetched once and adopted by every example's shadow
// root: parsed once, and never part of the page's own styles.
const sheet = fetch(new URL("tablelab-embed.css", import.meta.url)).then(async (r) => {
  if (!r.ok) throw new Error(`tablelab-embed.css: HTTP ${r.status}`);
  const s = new CSSStyleSheet();
  s.replaceSync(await r.text());
  return s;
});

let made = 0;

/**
 * makeLive gives example its shadow root and its controls. marks says how
 * the page marks code blocks and expected outputs (CSS selectors).
 */
export async function makeLive(example, marks) {
  if (example.shadowRoot || example.dataset.state) return;
  example.dataset.state = "loading";
  const n = ++made;
  let styles;
  try {
    styles = await sheet;
  } catch (err) {
    example.dataset.state = "failed";
    console.error(`tablelab: ${err.message}`);
    return;
  }
  const children = [...example.children];
  const expectedBlock = children.find((c) => c.matches(marks.expected) || c.querySelector(marks.expected));
  const block = children.find((c) => c !== expectedBlock && (c.localName === "pre" || c.querySelector("pre")));
  if (!block) {
    example.dataset.state = "failed";
    console.error("tablelab: a <tablelab-example> holds no <pre> with the example's code", example);
    return;
  }
  const pre = block.localName === "pre" ? block : block.querySelector("pre");
  const option = (name) => example.getAttribute(name) ?? example.getAttribute(`data-${name}`);
  const flag = (name) => example.hasAttribute(name) || example.hasAttribute(`data-${name}`);
  const shared = option("store");
  const label = option("label") || `tablelab example ${n} code`;

  // The page's code block shows in the shadow root through a slot that
  // takes it alone: the expected output, and anything else, stays out.
  const root = example.attachShadow({ mode: "open", slotAssignment: "manual" });
  root.adoptedStyleSheets = [styles];
  const box = el("div", "tl");
  const code = el("div", "run-code");
  const slot = document.createElement("slot");
  code.append(slot);
  slot.assign(block);
  const output = el("div", "run-output");
  output.setAttribute("aria-live", "polite");
  box.append(code, output);
  root.append(box);
  if (pre.tabIndex < 0) pre.tabIndex = 0;
  follow(example, box);

  const expected = expectedBlock ? codeText(expectedBlock) : null;
  liveExample(
    {
      host: example,
      box,
      output,
      code,
      focus: pre,
      source: codeText(pre),
      label,
      sides: {
        table: {
          // Names the page chooses stay apart from the ones it does not.
          store: shared ? `embed-shared-${shared}` : `embed-${n}`,
          expected,
          declared: planList(option("plans")),
          name: "",
        },
      },
      fresh: !shared,
      heat: flag("heat"),
      map: flag("map"),
    },
    runHost,
  );
  example.dataset.state = "ready";
}

// codeText is a code block's text as the reader sees it: a highlighter
// that ends each line with <br> (no newline in the text) gets its lines
// from the layout, and the newline a fence ends with is not part of the
// code.
function codeText(node) {
  const pre = node.localName === "pre" ? node : (node.querySelector("pre") ?? node);
  const text = pre.querySelector("br") ? pre.innerText : pre.textContent;
  return text.replace(/\n+$/, "");
}

// The theme. An example is dark or light as its theme attribute says;
// otherwise as the page says it is: data-theme, data-color-scheme,
// data-bs-theme or data-mode "dark" or "light", or the class dark or
// light, on <html> or <body> (what Docusaurus, Bootstrap, Tailwind and
// many others set), or a color-scheme of just "dark" or "light" there;
// and failing all of that as the reader's system prefers.
const examples = new Map();
const system = matchMedia("(prefers-color-scheme: dark)");

function pageTheme() {
  for (const node of [document.documentElement, document.body]) {
    if (!node) continue;
    for (const name of ["theme", "colorScheme", "bsTheme", "mode"]) {
      const v = node.dataset[name]?.toLowerCase();
      if (v === "dark" || v === "light") return v;
    }
    if (node.classList.contains("dark")) return "dark";
    if (node.classList.contains("light")) return "light";
  }
  for (const node of [document.body, document.documentElement]) {
    const scheme = node ? getComputedStyle(node).colorScheme.trim() : "";
    if (scheme === "dark" || scheme === "light") return scheme;
  }
  return system.matches ? "dark" : "light";
}

function apply(example, box, page) {
  const own = (example.getAttribute("theme") ?? example.dataset.theme ?? "").toLowerCase();
  box.classList.toggle("tl-dark", (own === "dark" || own === "light" ? own : page) === "dark");
}

function applyAll() {
  const page = pageTheme();
  for (const [example, box] of examples) {
    if (example.isConnected) apply(example, box, page);
    else examples.delete(example);
  }
}

let watching = false;

// follow keeps box's theme with the page's and example's.
function follow(example, box) {
  examples.set(example, box);
  example.tablelabTheme = () => apply(example, box, pageTheme());
  apply(example, box, pageTheme());
  if (watching) return;
  watching = true;
  system.addEventListener("change", applyAll);
  const watch = new MutationObserver(applyAll);
  const attributes = { attributes: true, attributeFilter: ["class", "style", "data-theme", "data-color-scheme", "data-bs-theme", "data-mode", "data-md-color-scheme"] };
  watch.observe(document.documentElement, attributes);
  if (document.body) watch.observe(document.body, attributes);
}
