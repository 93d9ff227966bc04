// The reader's progress through the docs, kept in this browser only
// (localStorage, nothing sent anywhere): the pages they have opened and
// the exercises they have passed. Each page records its own visit; the
// navigation and the Start here list then mark every page seen (✓) and
// every page whose exercises all pass (★), with the words for screen
// readers, and a line under the Start here list counts them. A browser
// that keeps no storage (a private window that refuses it) simply shows
// no marks.
//
// The page says who it is in <body data-page="…">, its URL from the
// site's root; links carry the same in data-page, and data-exercises
// when their page sets exercises.

const KEY = "tablelab-progress";

/** load returns the progress kept: {visited: {page: true}, passed: {"page#id": true}}. */
export function load() {
  try {
    const data = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return { visited: data.visited ?? {}, passed: data.passed ?? {} };
  } catch {
    return { visited: {}, passed: {} };
  }
}

function save(progress) {
  try {
    localStorage.setItem(KEY, JSON.stringify(progress));
  } catch {
    // no storage: progress is not kept, and nothing else changes
  }
}

/** currentPage is the page's URL from the site's root, as data-page names it. */
export function currentPage() {
  return document.body?.dataset.page ?? "";
}

/**
 * markPassed records that the exercise id of this page passed its
 * check, and shows it at once.
 */
export function markPassed(id, page = currentPage()) {
  const progress = load();
  progress.passed[`${page}#${id}`] = true;
  progress.visited[page] = true;
  save(progress);
  decorate(progress);
}

/** passedOn counts the exercises of page the reader has passed. */
export function passedOn(progress, page) {
  const prefix = `${page}#`;
  return Object.keys(progress.passed).filter((k) => k.startsWith(prefix)).length;
}

// state is what a link's page has come to: "done" when every exercise
// on it passed, "visited" when it was opened, else "".
function state(progress, page, exercises) {
  if (exercises > 0 && passedOn(progress, page) >= exercises) return "done";
  return progress.visited[page] ? "visited" : "";
}

// decorate marks each link to a page, in the navigation and in the Start
// here list, with what the reader has done there.
function decorate(progress) {
  for (const node of document.querySelectorAll(".site-nav a[data-page], .path-list li[data-page]")) {
    const page = node.dataset.page;
    const exercises = Number(node.dataset.exercises ?? 0);
    const now = state(progress, page, exercises);
    node.querySelector(":scope > .progress-mark")?.remove();
    if (now === "") {
      delete node.dataset.progress;
      continue;
    }
    node.dataset.progress = now;
    const mark = document.createElement("span");
    mark.className = "progress-mark";
    const words = now === "done" ? (exercises === 1 ? "exercise passed" : "exercises passed") : "visited";
    mark.title = words[0].toUpperCase() + words.slice(1);
    mark.append(now === "done" ? " ★" : " ✓");
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = ` (${words})`;
    mark.append(hidden);
    // In the Start here list the mark follows the page's title, before
    // its summary; in the navigation it ends the link.
    const link = node.matches("li") ? node.querySelector(":scope > a") : null;
    if (link) link.after(mark);
    else node.append(mark);
  }
  const list = document.querySelector(".path-list");
  if (list) {
    const items = [...list.querySelectorAll("li[data-page]")];
    const seen = items.filter((li) => li.dataset.progress).length;
    const withExercises = items.filter((li) => Number(li.dataset.exercises ?? 0) > 0);
    const done = withExercises.filter((li) => li.dataset.progress === "done").length;
    let line = document.querySelector(".path-progress");
    if (!line) {
      line = document.createElement("p");
      line.className = "path-progress";
      line.setAttribute("aria-live", "polite");
      list.before(line);
    }
    line.textContent = `In this browser you have opened ${seen} of these ${items.length} pages and passed the exercises of ${done} of the ${withExercises.length} that set them.`;
  }
}

const page = currentPage();
if (page) {
  const progress = load();
  if (!progress.visited[page]) {
    progress.visited[page] = true;
    save(progress);
  }
  decorate(progress);
}
