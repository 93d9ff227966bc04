// The browser test's record of what each example printed, which the parity
// run compares with Node's. It lives in the tests' output folder and is
// only trusted for an example whose source it holds unchanged.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The tests' output folder: screenshots and the record (git-ignored). */
export const outDir = join(dirname(fileURLToPath(import.meta.url)), "out");

const recordPath = join(outDir, "browser-examples.json");

/** Writes the record: {"page#id": {source, output, plans}}. */
export function writeBrowserRecord(examples) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(recordPath, JSON.stringify({ examples }, null, 1));
}

/**
 * What the browser printed for an example of this source, or undefined
 * when the browser test has not run it (skipped, failed early, or the
 * example changed since).
 */
export function readBrowserRecord() {
  let examples = {};
  try {
    examples = JSON.parse(readFileSync(recordPath, "utf8")).examples ?? {};
  } catch {
    // no record: every lookup answers undefined
  }
  return (key, source) => {
    const seen = examples[key];
    return seen && seen.source === source ? seen : undefined;
  };
}
