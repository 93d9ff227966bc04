// The site served and a browser to read it with, for the test files that
// open pages: `go run . -memory -site-addr …` on free loopback ports and
// Debian's headless Chromium with a fresh profile, and open(), which
// notes every console error, uncaught exception, failed request and HTTP
// error of a page in its problems.
import { mkdirSync } from "node:fs";
import { launch } from "./chromium.mjs";
import { outDir } from "./record.mjs";
import { requireDist, startServer } from "./server.mjs";

/**
 * startSite starts the server with the site and a browser. It resolves to
 * {server, browser, base, open(path?, {viewport, colorScheme, expect}),
 * close()}; open resolves to {page, problems, requests}, requests being
 * the URL of every request the page made; base is the site's root URL, and a path given as a whole URL
 * opens that URL instead (a page of another origin). expect lists HTTP
 * statuses a test asks for on purpose (a 404 page), which are then not
 * problems. With devPorts false the server's services take any free
 * ports (startServer), for tests that never reach them.
 */
export async function startSite({ devPorts = true } = {}) {
  requireDist();
  const server = await startServer({ site: true, devPorts });
  if (!server.servesSite) {
    await server.stop();
    throw new Error("this build of the server has no -site-addr flag");
  }
  let browser;
  try {
    browser = await launch();
  } catch (err) {
    await server.stop();
    throw err;
  }
  mkdirSync(outDir, { recursive: true });
  const base = `http://127.0.0.1:${server.sitePort}/`;

  async function open(path, { viewport, colorScheme, expect = [] } = {}) {
    const page = await browser.context.newPage();
    const problems = [];
    const requests = [];
    page.on("request", (r) => requests.push(r.url()));
    page.on("console", (m) => {
      if (m.type() === "error" && !expect.some((s) => m.text().includes(`status of ${s}`))) {
        problems.push(`console: ${m.text()} (${m.location().url || "no url"})`);
      }
    });
    page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
    // A load the page itself gave up (it navigated away while a worker
    // was starting) is not a failure of the site.
    page.on("requestfailed", (r) => {
      if (r.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`);
    });
    page.on("response", (r) => {
      if (r.status() >= 400 && !expect.includes(r.status())) problems.push(`HTTP ${r.status()}: ${r.url()}`);
    });
    if (viewport) await page.setViewportSize(viewport);
    if (colorScheme) await page.emulateMedia({ colorScheme });
    if (path !== undefined) await page.goto(/^https?:/.test(path) ? path : base + path, { waitUntil: "load" });
    return { page, problems, requests };
  }

  async function close() {
    await browser?.close();
    await server?.stop();
  }
  return { server, browser, base, open, close };
}
