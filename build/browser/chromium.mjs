// Launching Debian's Chromium for the browser test. The test command
// installs it (apt-get install chromium); nothing here downloads a browser.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** Where Debian's chromium package puts the browser. */
export const chromiumPath = "/usr/bin/chromium";

/**
 * Why the browser test cannot run here, or "" when it can. Under CI the
 * browser must be there: the caller turns the reason into a failure then.
 */
export function missingBrowser() {
  if (existsSync(chromiumPath)) return "";
  return `${chromiumPath} is missing (apt-get install -y chromium; go run ./build test installs it)`;
}

/**
 * A headless Chromium with a fresh profile of its own, removed on close.
 * Returns the persistent context (one browser, one profile: IndexedDB
 * outlives a page's reload, as it does for a reader).
 */
export async function launch() {
  const profile = mkdtempSync(join(tmpdir(), "tablelab-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
    viewport: { width: 1280, height: 800 },
    acceptDownloads: true,
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}
