// A quick loop for writing docs: runs the `js run` blocks of the Markdown
// files named on the command line in Node, through the site's runner with
// the real SDKs, against a fresh `go run . -memory`, and prints what each
// printed and the plans of its queries beside what the block declares.
// The parity tier is the check; this is for the writer.
//
//	node build/browser/try.mjs content/concepts/queries.md [more.md …]
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as tables from "@azure/data-tables";
import * as blobs from "@azure/storage-blob";
import * as queues from "@azure/storage-queue";
import { startServer, connectionString, repoRoot } from "./server.mjs";
import { settled } from "./examples.mjs";

const { run, sdkOf } = await import(join(repoRoot, "site/play/runner.js"));
const sdk = sdkOf(tables, blobs, queues);

/** The run blocks of one Markdown text: {line, plans, source, expected}. */
function blocks(text) {
  const lines = text.split("\n");
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s{0,3}(`{3,}|~{3,})\s*js\s+run\b(.*)$/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const plansWord = /plans=(\S*)/.exec(open[2]);
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trim().startsWith(fence); j++) body.push(lines[j]);
    const ex = {
      line: i + 1,
      plans: plansWord ? plansWord[1].split(",").filter(Boolean) : [],
      source: body.join("\n") + "\n",
      expected: undefined,
    };
    let k = j + 1;
    while (k < lines.length && lines[k].trim() === "") k++;
    const out2 = /^\s{0,3}(`{3,}|~{3,})\s*output\b/.exec(lines[k] ?? "");
    if (out2) {
      const exp = [];
      let m = k + 1;
      for (; m < lines.length && !lines[m].trim().startsWith(out2[1]); m++) exp.push(lines[m]);
      ex.expected = exp.join("\n") + "\n";
      j = m;
    }
    out.push(ex);
    i = j;
  }
  return out;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node build/browser/try.mjs file.md …");
  process.exit(2);
}
let bad = 0;
for (const file of files) {
  for (const ex of blocks(readFileSync(resolve(file), "utf8"))) {
    // A server per example: each starts from empty tables, as each Run in
    // the browser does with its own store.
    const server = await startServer();
    try {
      const r = await run(ex.source, {
        sdk,
        connectionString: connectionString(server),
        clientOptions: { allowInsecureConnection: true },
      });
      const outOK = settled(r.output) === settled(ex.expected);
      const plansOK = JSON.stringify(r.plans) === JSON.stringify(ex.plans);
      if (!outOK || !plansOK || r.error) bad++;
      console.log(`=== ${file}:${ex.line}  output ${outOK ? "ok" : "DIFFERS"}  plans ${plansOK ? "ok" : "DIFFER"}${r.error ? "  THREW" : ""}`);
      if (r.error) console.log("error:", JSON.stringify(r.error));
      console.log(`plans: ${r.plans.join(",")}${plansOK ? "" : `   (declared: ${ex.plans.join(",")})`}`);
      console.log(r.output.replace(/\n$/, ""));
      if (!outOK && ex.expected !== undefined) console.log(`--- declared:\n${ex.expected.replace(/\n$/, "")}`);
    } finally {
      await server.stop();
    }
  }
}
process.exit(bad ? 1 : 0);
