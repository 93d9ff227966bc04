// The browser test's record of what each example printed, which the parity
// run compares with Node's. It lives in the tests' output folder and is
// only trusted for an example whose source it holds unchanged.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The tests' output folder: screenshots and the record (git-ignored). */
export const outDir = join(dirname(fileURLToPath(import.meta.url)), "out");

/** Writes the record: {"page#id": {source, output, plans}}. */
export function writeBrowserRecord(examples) {
  writeRecord("browser-examples.json", { examples });
}

/**
 * What the browser printed for an example of this source, or undefined
 * when the browser test has not run it (skipped, failed early, or the
 * example changed since).
 */
export function readBrowserRecord() {
  const examples = readRecord("browser-examples.json").examples ?? {};
  return (key, source) => {
    const seen = examples[key];
    return seen && seen.source === source ? seen : undefined;
  };
}

/** Writes one of the browser tests' records, name, into outDir. */
export function writeRecord(name, data) {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, name), JSON.stringify(data, null, 1));
}

/** Reads a record writeRecord wrote, or {} when there is none. */
export function readRecord(name) {
  try {
    return JSON.parse(readFileSync(join(outDir, name), "utf8"));
  } catch {
    return {};
  }
}
