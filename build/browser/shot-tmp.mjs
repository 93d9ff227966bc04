// scratch: screenshots for development (not committed)
import { startSite } from "./browse.mjs";
const site = await startSite();
const [path = "playground.html", w = "1366", h = "768", scheme = "light", action = ""] = process.argv.slice(2);
const { page, problems } = await site.open(undefined, { viewport: { width: +w, height: +h }, colorScheme: scheme });
await page.goto(site.base + path, { waitUntil: "load" });
await page.waitForTimeout(800);
if (action === "run") { await page.locator("#pg-run").click(); await page.waitForFunction(() => !["ready","running"].includes(document.getElementById("playground").dataset.state), null, {timeout: 60000}); await page.waitForTimeout(300); }
await page.screenshot({ path: `/tmp/shot-${w}-${scheme}${action}.png` });
console.log(problems);
await page.close(); await site.close();
