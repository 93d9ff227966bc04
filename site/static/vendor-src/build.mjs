// Bundles MiniSearch into ../vendor/minisearch.js, an ES module whose
// default export is the MiniSearch class, and copies its licence beside it.
import { build } from "esbuild";
import { copyFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "vendor");
const pkg = join(here, "node_modules", "minisearch");
const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));

await build({
  stdin: { contents: 'export { default } from "minisearch";', resolveDir: here, loader: "js" },
  outfile: join(out, "minisearch.js"),
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
  minify: true,
  legalComments: "none",
  banner: { js: `/* MiniSearch ${version} (MIT, see LICENSE-minisearch.txt), bundled by site/static/vendor-src/build.mjs */` },
  logLevel: "warning",
});
copyFileSync(join(pkg, "LICENSE.txt"), join(out, "LICENSE-minisearch.txt"));
console.log(`bundled minisearch@${version} into ${out}`);
