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

const bundles = [
  { entry: "codemirror.entry.js", file: "codemirror.js" },
  { entry: "data-tables.entry.js", file: "data-tables.js" },
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
  });
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (!m) continue;
    if (!packages.has(m[1])) packages.set(m[1], new Set());
    packages.get(m[1]).add(b.file);
  }
}

function licenceText(dir) {
  const name = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  if (!name) throw new Error(`no licence file in ${dir}`);
  return readFileSync(join(dir, name), "utf8").trim();
}

let text =
  "Third-party software bundled in site/play/vendor/ (rebuilt by site/play/vendor-src/build.mjs).\n";
for (const name of [...packages.keys()].sort()) {
  const dir = join(here, "node_modules", name);
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  text += `\n${"=".repeat(72)}\n${name}@${pkg.version} (${pkg.license}), in ${[...packages.get(name)].join(", ")}\n${"=".repeat(72)}\n\n`;
  text += licenceText(dir) + "\n";
}
writeFileSync(join(out, "THIRD_PARTY_LICENSES"), text);
console.log(`bundled ${packages.size} packages into ${out}`);
