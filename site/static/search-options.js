// The options of the docs' search index, shared by the page (search.js),
// which loads the index with them, and build/site's test, which builds an
// index with MiniSearch from the same sections and the same options and
// holds the Go site build's search.json to it. Changing one here means
// changing build/site/search.go and minisearch.go to match; the test says so.

// A word is a run of letters and digits: "$filter" is "filter",
// "odata`PartitionKey" is two words, "412" and "EntityAlreadyExists" one.
const separators = /[^\p{L}\p{N}]+/u;

/** Splits text into the words the index holds (and a query's words). */
export const tokenize = (text) => text.split(separators);

/** A word as a term of the index: lower-cased, so "SAS" finds "sas". */
export const processTerm = (term) => term.toLowerCase();

/** What MiniSearch.loadJSON (or new MiniSearch) is given. */
export const indexOptions = {
  idField: "id",
  fields: ["title", "heading", "text", "code"],
  storeFields: ["title", "heading", "text", "code"],
  tokenize,
  processTerm,
};

/**
 * How a query searches: every word must match (a query with none found
 * that way is tried again with any word), a word of three letters or more
 * also finds longer words it begins ("continuation" finds
 * continuationToken), a word of six or more forgives a typo or two, and a
 * page's title counts more than a heading, a heading more than the prose,
 * the prose more than the code (a section that explains a word before one
 * whose example only uses it).
 */
export const searchOptions = {
  combineWith: "AND",
  prefix: (term) => term.length >= 3,
  fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
  boost: { title: 3, heading: 2, text: 1, code: 0.4 },
};
