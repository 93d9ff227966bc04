// The search box: full-text search of every section of every page, ranked
// by MiniSearch (BM25) from the index the site build wrote (search.json at
// the site's root, in MiniSearch's serialized form). Neither MiniSearch nor
// the index loads with the page: both come when the reader first focuses
// or types in the box. The box is a combobox: the arrow keys move through
// the results (aria-activedescendant), Enter opens the one chosen or the
// first, Escape closes the list.
const box = document.querySelector(".search");
const input = document.getElementById("search-input");
const panel = document.getElementById("search-panel");
const list = document.getElementById("search-results");
const status = document.getElementById("search-status");
const siteRoot = new URL("../", import.meta.url);

/** How many results the list shows, and how long a snippet is. */
const maxResults = 10;
const snippetChars = 170;

let loading = null;
// The index's options (search-options.js), once loaded.
let options = null;

/** Loads MiniSearch, its options and the index once; later calls get the same promise. */
function load() {
  loading ??= (async () => {
    const [{ default: MiniSearch }, opts, resp] = await Promise.all([
      import("./vendor/minisearch.js"),
      import("./search-options.js"),
      fetch(new URL("search.json", siteRoot)),
    ]);
    if (!resp.ok) throw new Error(`search.json: HTTP ${resp.status}`);
    const index = MiniSearch.loadJSON(await resp.text(), opts.indexOptions);
    options = opts;
    list.dataset.ready = "true";
    return index;
  })();
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * find returns the best results for query: every word must match, or,
 * when no section has them all, any word.
 */
function find(index, query) {
  const { searchOptions } = options;
  let found = index.search(query, searchOptions);
  if (found.length === 0) found = index.search(query, { ...searchOptions, combineWith: "OR" });
  return found.slice(0, maxResults).map((r) => {
    const [page] = r.id.split("#");
    return {
      href: r.id,
      score: r.score,
      terms: new Set(r.terms),
      page: r.title ?? index.getStoredFields(page)?.title ?? page,
      heading: r.heading ?? "",
      text: r.text ?? "",
      code: r.code ?? "",
    };
  });
}

/** The [start, end) of each word of text whose term is in terms. */
function matches(text, terms) {
  const spans = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (terms.has(options.processTerm(m[0]))) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/**
 * snippet cuts from text a window of about snippetChars around the place
 * where the most different matched words are close together, at word
 * boundaries: {text, spans} with the spans shifted into it.
 */
function snippet(text, terms) {
  const spans = matches(text, terms);
  let from = 0;
  if (spans.length > 0) {
    let best = -1;
    for (const [s] of spans) {
      const seen = new Set();
      for (const [a, b] of spans) if (a >= s && b <= s + snippetChars) seen.add(options.processTerm(text.slice(a, b)));
      if (seen.size > best) [best, from] = [seen.size, s];
    }
    // Some words before the first match, so it is read in its sentence.
    from = Math.max(0, from - 40);
  }
  let to = Math.min(text.length, from + snippetChars);
  if (from > 0) {
    const space = text.indexOf(" ", from);
    if (space !== -1 && space < to) from = space + 1;
  }
  if (to < text.length) {
    const space = text.lastIndexOf(" ", to);
    if (space > from) to = space;
  }
  const lead = from > 0 ? "… " : "";
  const cut = lead + text.slice(from, to) + (to < text.length ? " …" : "");
  const shift = lead.length - from;
  return {
    text: cut,
    spans: spans.filter(([a, b]) => a >= from && b <= to).map(([a, b]) => [a + shift, b + shift]),
  };
}

/** An element of class cls holding text with spans marked. */
function marked(tag, cls, text, spans) {
  const el = document.createElement(tag);
  el.className = cls;
  let at = 0;
  for (const [a, b] of spans) {
    el.append(text.slice(at, a));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(a, b);
    el.append(mark);
    at = b;
  }
  el.append(text.slice(at));
  return el;
}

let shown = []; // the options in the list
let active = -1; // the option chosen with the arrow keys, or -1

function open(isOpen) {
  panel.hidden = !isOpen;
  input.setAttribute("aria-expanded", String(isOpen && shown.length > 0));
  if (!isOpen) choose(-1);
}

// choose makes option i the active one (-1: none), scrolled into the
// list's view when the keyboard chose it.
function choose(i, scroll = false) {
  if (shown[active]) shown[active].setAttribute("aria-selected", "false");
  active = i;
  const option = shown[active];
  if (option) {
    option.setAttribute("aria-selected", "true");
    input.setAttribute("aria-activedescendant", option.id);
    if (scroll) option.scrollIntoView({ block: "nearest" });
  } else {
    input.removeAttribute("aria-activedescendant");
  }
}

function show(query, found) {
  shown = found.map((r, i) => {
    const a = document.createElement("a");
    a.id = `search-option-${i}`;
    a.setAttribute("role", "option");
    a.setAttribute("aria-selected", "false");
    a.tabIndex = -1;
    a.href = new URL(r.href, siteRoot).href;
    a.dataset.score = String(r.score);
    a.append(marked("span", "result-page", r.page, matches(r.page, r.terms)));
    if (r.heading) a.append(marked("span", "result-section", r.heading, matches(r.heading, r.terms)));
    // The snippet comes from the prose, or from the code when only the
    // code holds the words.
    const fromCode = r.code !== "" && matches(r.text, r.terms).length === 0 && matches(r.code, r.terms).length > 0;
    const s = snippet(fromCode ? r.code : r.text || r.heading || r.page, r.terms);
    a.append(marked("span", fromCode ? "result-snippet result-code" : "result-snippet", s.text, s.spans));
    return a;
  });
  active = -1;
  list.replaceChildren(...shown);
  // A listbox without options is not one: with nothing found, the
  // status alone says so.
  list.hidden = shown.length === 0;
  list.dataset.query = query;
  status.textContent =
    found.length === 0 ? `No results for “${query}”` : `${found.length} result${found.length === 1 ? "" : "s"} for “${query}”`;
  open(true);
}

// The latest query's search, which Enter waits for: a reader who types
// and presses Enter at once opens the first result of what they typed.
let searching = Promise.resolve();

function update() {
  const query = input.value.trim();
  if (query === "") {
    shown = [];
    list.replaceChildren();
    status.textContent = "";
    delete list.dataset.query;
    open(false);
    searching = Promise.resolve();
    return;
  }
  if (!list.dataset.ready) {
    status.textContent = "Loading the search index…";
    panel.hidden = false;
  }
  searching = load().then(
    (index) => {
      // Only the latest query's results are shown.
      if (input.value.trim() === query) show(query, find(index, query));
    },
    (err) => {
      status.textContent = `Search is unavailable: ${err.message}`;
      panel.hidden = false;
    },
  );
}

if (box && input && panel && list && status) {
  box.hidden = false;
  input.addEventListener("focus", () => {
    load().catch(() => {}); // a failure is reported when the reader types
    if (input.value.trim() !== "" && list.dataset.query) open(true);
  });
  input.addEventListener("input", update);
  input.addEventListener("keydown", async (e) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (panel.hidden) {
        if (input.value.trim() === "") return;
        open(true);
        choose(-1);
      }
      if (shown.length === 0) return;
      const next = e.key === "ArrowDown" ? Math.min(active + 1, shown.length - 1) : Math.max(active - 1, -1);
      choose(next, true);
    } else if (e.key === "Enter") {
      e.preventDefault();
      await searching;
      const target = shown[Math.max(active, 0)];
      if (target) window.location.href = target.href;
    } else if (e.key === "Escape" && !panel.hidden) {
      // Closes the list and keeps the words; a second Escape clears them,
      // as a search field does.
      e.preventDefault();
      open(false);
    }
  });
  list.addEventListener("mousemove", (e) => {
    const option = e.target.closest("[role=option]");
    if (option) choose(shown.indexOf(option));
  });
  box.addEventListener("focusout", (e) => {
    if (!box.contains(e.relatedTarget)) open(false);
  });
  document.addEventListener("click", (e) => {
    if (!box.contains(e.target)) open(false);
  });
}
