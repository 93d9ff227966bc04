// The search box: looks through the titles and headings of every page,
// from the index the site build wrote (search.json at the site's root).
const box = document.querySelector(".search");
const input = document.getElementById("search-input");
const list = document.getElementById("search-results");
const status = document.getElementById("search-status");
const siteRoot = new URL("../", import.meta.url);

let index = null;

async function load() {
  if (index === null) {
    const resp = await fetch(new URL("search.json", siteRoot));
    if (!resp.ok) throw new Error(`search.json: ${resp.status}`);
    index = await resp.json();
  }
  return index;
}

// matches lists the pages and sections whose text holds every word of
// the query, titles first.
function matches(pages, query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const has = (text) => words.every((w) => text.toLowerCase().includes(w));
  const found = [];
  for (const page of pages) {
    if (has(page.title)) found.push({ text: page.title, href: page.url });
  }
  for (const page of pages) {
    for (const h of page.headings) {
      if (has(h.text)) found.push({ text: h.text, href: `${page.url}#${h.id}`, page: page.title });
    }
  }
  return found.slice(0, 12);
}

function show(found) {
  list.replaceChildren();
  for (const f of found) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = new URL(f.href, siteRoot).href;
    a.textContent = f.text;
    if (f.page) {
      const span = document.createElement("span");
      span.className = "in";
      span.textContent = ` · ${f.page}`;
      a.append(span);
    }
    li.append(a);
    list.append(li);
  }
  list.hidden = found.length === 0;
  status.textContent = input.value.trim() === "" ? "" : `${found.length} result${found.length === 1 ? "" : "s"}`;
}

if (box && input && list) {
  box.hidden = false;
  input.addEventListener("input", async () => {
    const query = input.value.trim();
    if (query === "") {
      show([]);
      return;
    }
    try {
      show(matches(await load(), query));
    } catch (err) {
      status.textContent = `Search is unavailable: ${err.message}`;
    }
  });
  // Arrow keys move between the input and the results; Escape closes them.
  box.addEventListener("keydown", (e) => {
    const links = [...list.querySelectorAll("a")];
    const at = links.indexOf(document.activeElement);
    if (e.key === "ArrowDown" && links.length > 0) {
      e.preventDefault();
      links[Math.min(at + 1, links.length - 1)].focus();
    } else if (e.key === "ArrowUp" && at >= 0) {
      e.preventDefault();
      (at === 0 ? input : links[at - 1]).focus();
    } else if (e.key === "Escape") {
      list.hidden = true;
      input.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (!box.contains(e.target)) list.hidden = true;
  });
}
