// Starting the page's Web Workers wherever their scripts are served from.
//
// A browser refuses `new Worker(url)` for a script of another origin,
// module or classic, whatever headers it carries. The embed
// (site/embed) runs on other sites' pages with its files on tablelab's
// origin, so a worker of another origin starts from a small script of
// the page's own origin, a blob: URL, which loads the real one: a module
// worker imports it (a cross-origin module import, which CORS allows), a
// classic worker importScripts it after naming, in tablelabBase, the URL
// its neighbours (wasm_exec.js, app.wasm) are found from, since inside it
// self.location is the blob's. On the site's own pages the script is
// same-origin and starts directly, as it always did.

// wrappers keeps one blob: URL a script and kind: a page starts the same
// two workers again and again (Stop terminates the runner), and a blob
// URL lives until the page goes or it is revoked.
const wrappers = new Map();

/**
 * startWorker starts the worker script at url (a URL or a string, read
 * against the document), with options as Worker takes them ({type:
 * "module"} for a module worker).
 */
export function startWorker(url, options = {}) {
  if (!crossOrigin(url)) return new Worker(url, options);
  const script = new URL(url, document.baseURI);
  const key = `${options.type ?? "classic"} ${script.href}`;
  let wrapper = wrappers.get(key);
  if (!wrapper) {
    const href = JSON.stringify(script.href);
    const source =
      options.type === "module" ? `import ${href};\n` : `self.tablelabBase = ${href};\nimportScripts(${href});\n`;
    wrapper = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
    wrappers.set(key, wrapper);
  }
  return new Worker(wrapper, options);
}

/**
 * crossOrigin reports whether url is of another origin than the page's:
 * what fails to load there is most often the CORS headers of the host
 * that serves the embed, which an error message should say.
 */
export function crossOrigin(url) {
  // Outside a page (Node's tests of the page's modules) there is no
  // other origin.
  if (typeof document === "undefined") return false;
  return new URL(url, document.baseURI).origin !== location.origin;
}
