// Bundles the playground's browser libraries into ../vendor/ and writes
// ../vendor/THIRD_PARTY_LICENSES from the licence file of every package
// each bundle contains (read from esbuild's metafile, so the list cannot
// drift from what was bundled).
import { build } from "esbuild";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "vendor");

// The SDK runs in the playground's runner Worker, which has no document.
// @azure/core-xml's browser build creates a DOM document when it loads
// (for the XML of table ACLs), so the SDK bundle takes its portable build
// (fast-xml-parser) instead.
const portableXML = {
  name: "portable-core-xml",
  setup(b) {
    b.onResolve({ filter: /^@azure\/core-xml$/ }, () => ({
      path: join(here, "node_modules", "@azure", "core-xml", "dist", "esm", "index.js"),
    }));
  },
};

// @azure/data-tables' browser build signs nothing: its computeHMACSHA256
// throws, so generateTableSas and generateAccountSas fail in the page
// while the same example works in Node. hmac-sha256.js is a synchronous
// HMAC in plain JavaScript (crypto.subtle's is asynchronous, the SDK's
// call is not), which the bundle takes instead.
const tablesHMAC = {
  name: "tables-hmac",
  setup(b) {
    b.onResolve({ filter: /\/computeHMACSHA256\.js$/ }, (args) =>
      args.importer.includes(join("@azure", "data-tables", "dist", "browser"))
        ? { path: join(here, "hmac-sha256.js") }
        : undefined,
    );
  },
};

const bundles = [
  { entry: "codemirror.entry.js", file: "codemirror.js", plugins: [] },
  { entry: "azure-storage.entry.js", file: "azure-storage.js", plugins: [portableXML, tablesHMAC] },
  { entry: "acorn.entry.js", file: "acorn.js", plugins: [] },
];

const packages = new Map(); // package name -> bundles containing it
for (const b of bundles) {
  const result = await build({
    entryPoints: [join(here, b.entry)],
    outfile: join(out, b.file),
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    metafile: true,
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "warning",
    plugins: b.plugins,
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (!m) continue;
    if (!packages.has(m[1])) packages.set(m[1], new Set());
    packages.get(m[1]).add(b.file);
  }
}

// licenceText returns a package's licence file; a package that ships none
// is recorded with the licence and author its package.json declares, so
// the gap is visible rather than silently skipped.
function licenceText(dir, pkg) {
  const name = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  if (name) return readFileSync(join(dir, name), "utf8").trim();
  if (!pkg.license) throw new Error(`no licence in ${dir}`);
  const author = typeof pkg.author === "object" ? pkg.author.name : pkg.author;
  return `The package ships no licence file; its package.json declares "${pkg.license}"` +
    (author ? `, author ${author}` : "") + ".";
}

let text =
  "Third-party software bundled in site/play/vendor/ (rebuilt by site/play/vendor-src/build.mjs).\n";
for (const name of [...packages.keys()].sort()) {
  const dir = join(here, "node_modules", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  text += `\n${"=".repeat(72)}\n${name}@${pkg.version} (${pkg.license}), in ${[...packages.get(name)].join(", ")}\n${"=".repeat(72)}\n\n`;
  text += licenceText(dir, pkg) + "\n";
}
writeFileSync(join(out, "THIRD_PARTY_LICENSES"), text);
console.log(`bundled ${packages.size} packages into ${out}`);
