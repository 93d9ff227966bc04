// Builds a MiniSearch index, with the site's committed bundle and the
// options the page uses, from the documents the Go site build indexes, and
// loads the index the Go build wrote; prints both indexes' toJSON and each
// one's results for some queries, for build/site's test to compare.
//
//   node minisearch.mjs documents.json search.json queries.json
import { readFileSync } from "node:fs";
import MiniSearch from "../../../site/static/vendor/minisearch.js";
import { indexOptions, searchOptions } from "../../../site/static/search-options.js";

const [docsFile, indexFile, queriesFile] = process.argv.slice(2);
const read = (f) => readFileSync(f, "utf8");

const built = new MiniSearch(indexOptions);
built.addAll(JSON.parse(read(docsFile)));
const loaded = MiniSearch.loadJSON(read(indexFile), indexOptions);

// The terms a result matched come in the order of the index's radix tree,
// which differs between an index built and one loaded: sorted, they are
// the same.
const results = (ms, q) => ms.search(q, searchOptions).map((r) => ({ id: r.id, score: r.score, terms: r.terms.toSorted() }));
const searches = {};
for (const q of JSON.parse(read(queriesFile))) {
  searches[q] = { built: results(built, q), loaded: results(loaded, q) };
}
process.stdout.write(JSON.stringify({ built: built.toJSON(), loaded: loaded.toJSON(), searches }));
