import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { startSite } from "./browse.mjs";
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const site = await startSite();
for (const scheme of ["light","dark"]) for (const path of process.argv.slice(2)) {
  const { page } = await site.open(undefined, { colorScheme: process.env.TOGGLE ? "light" : scheme });
  if (process.env.TOGGLE) await page.addInitScript((t) => localStorage.setItem("tablelab-theme", t), scheme);
  await page.goto(site.base + path, { waitUntil: "load" }); await page.waitForLoadState("networkidle");
  if (process.env.RUNALL) { for (const b of await page.locator("button.run-button").all()) { await b.click(); } await page.waitForFunction(() => [...document.querySelectorAll("figure.run-example")].every(f => !["ready","running"].includes(f.dataset.state)), null, {timeout: 120000}); }
  await page.addScriptTag({ content: axeSource });
  const v = await page.evaluate(async () => (await axe.run(document, { resultTypes: ["violations"] })).violations.filter(v=>["serious","critical"].includes(v.impact)).map(v => ({id: v.id, n: v.nodes.length, nodes: v.nodes.slice(0,6).map(n => n.target.join(" ") + " :: " + (n.any[0]?.message ?? n.failureSummary).slice(0,140))})));
  console.log("==", scheme, path); for (const x of v) { console.log(" ", x.id, x.n); for (const n of x.nodes) console.log("    ", n); }
  await page.close();
}
await site.close();
