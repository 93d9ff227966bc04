// The runnable examples of the built site, read from its HTML as the site
// builder renders them (<figure class="run-example">, the shared contract),
// and the pages that hold them.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** Every .html file under dir, as paths relative to it with "/" separators. */
export function htmlPages(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".html")) out.push(relative(dir, p).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

const entities = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** The text an HTML-escaped run of characters stands for. */
export function unescapeHTML(s) {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, name) => {
    if (name[0] === "#") {
      const hex = name[1] === "x" || name[1] === "X";
      return String.fromCodePoint(parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10));
    }
    return entities[name.toLowerCase()] ?? m;
  });
}

function attributes(tag) {
  const attrs = {};
  for (const m of tag.matchAll(/([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
    attrs[m[1].toLowerCase()] = unescapeHTML(m[2] ?? m[3] ?? m[4] ?? "");
  }
  return attrs;
}

function hasClass(attrs, name) {
  return (attrs.class ?? "").split(/\s+/).includes(name);
}

// The first element named tag with class cls inside html: its inner text.
function inner(html, tag, cls) {
  const re = new RegExp(`<${tag}\\b([^>]*)>([\\s\\S]*?)</${tag}>`, "gi");
  for (const m of html.matchAll(re)) {
    if (hasClass(attributes(m[1]), cls)) return m[2];
  }
  return undefined;
}

/**
 * The run examples of one page's HTML, in page order: {id, plans, source,
 * expected, cosmos}. plans is the declared list (empty when none is
 * declared); expected is undefined when the example declares no output.
 * cosmos is {plans, expected} when the example also declares what it
 * answers under the Cosmos DB for Table profile (its switch), else
 * undefined.
 */
export function examplesOf(html) {
  const out = [];
  for (const m of html.matchAll(/<figure\b([^>]*)>([\s\S]*?)<\/figure>/gi)) {
    const attrs = attributes(m[1]);
    if (!hasClass(attrs, "run-example")) continue;
    const source = inner(m[2], "textarea", "run-source");
    const expected = inner(m[2], "pre", "run-expected");
    const plans = (attrs["data-plans"] ?? "").split(",").map((p) => p.trim()).filter(Boolean);
    const cosmosExpected = inner(m[2], "pre", "run-expected-cosmos");
    out.push({
      id: attrs.id ?? "",
      plans,
      // A textarea's first newline is not part of its value, as in the browser.
      source: source === undefined ? undefined : unescapeHTML(source).replace(/^\r?\n/, ""),
      expected: expected === undefined ? undefined : unescapeHTML(expected).replace(/^\r?\n/, ""),
      cosmos:
        cosmosExpected === undefined
          ? undefined
          : {
              plans: (attrs["data-cosmos-plans"] ?? "").split(",").map((p) => p.trim()).filter(Boolean),
              expected: unescapeHTML(cosmosExpected).replace(/^\r?\n/, ""),
            },
    });
  }
  return out;
}

/**
 * The exercises of one page's HTML, in page order: {id, task, source,
 * solution, check}, where source is the starting design, solution the
 * model answer and check the check block's text.
 */
export function exercisesOf(html) {
  const out = [];
  const text = (raw) => (raw === undefined ? undefined : unescapeHTML(raw).replace(/^\r?\n/, ""));
  for (const m of html.matchAll(/<figure\b([^>]*)>([\s\S]*?)<\/figure>/gi)) {
    const attrs = attributes(m[1]);
    if (!hasClass(attrs, "exercise")) continue;
    out.push({
      id: attrs.id ?? "",
      task: unescapeHTML((inner(m[2], "figcaption", "exercise-task") ?? "").replace(/<span class="exercise-label">[^<]*<\/span>/, "").replace(/<[^>]*>/g, "")).trim(),
      source: text(inner(m[2], "textarea", "exercise-source")),
      solution: text(inner(m[2], "textarea", "exercise-solution-source")),
      check: text(inner(m[2], "pre", "exercise-check")),
    });
  }
  return out;
}

/** Every exercise of the built site: {page, id, task, source, solution, check}. */
export function siteExercises(dir) {
  const out = [];
  for (const page of htmlPages(dir)) {
    for (const ex of exercisesOf(readFileSync(join(dir, page), "utf8"))) out.push({ page, ...ex });
  }
  return out;
}

/** Every run example of the built site: {page, id, plans, source, expected}. */
export function siteExamples(dir) {
  const out = [];
  for (const page of htmlPages(dir)) {
    for (const ex of examplesOf(readFileSync(join(dir, page), "utf8"))) out.push({ page, ...ex });
  }
  return out;
}

/**
 * How many run blocks the Markdown sources declare: every fenced block
 * whose info string starts with "js run". The site must render each one.
 */
export function markdownRunBlocks(dir) {
  let n = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".md")) {
        for (const line of readFileSync(p, "utf8").split("\n")) {
          if (/^\s{0,3}(`{3,}|~{3,})\s*js\s+run\b/.test(line)) n++;
        }
      }
    }
  };
  walk(dir);
  return n;
}

/** Output as compared: the text without its final newlines. */
export function settled(text) {
  return (text ?? "").replace(/\n+$/, "");
}
