package site

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// edgeDocs are documents that reach MiniSearch's corners: a field that is
// only separators, text that starts and ends with one (an empty token),
// the same word in two cases (two distinct tokens, one term), a document
// with a heading and no text, one with only a title, letters beyond ASCII.
var edgeDocs = []searchDoc{
	{ID: "a.html", Title: "Édition — naïve", Text: "…starts with punctuation, ends with it."},
	{ID: "a.html#x", Heading: "Table table TABLE", Text: "$filter=odata", Code: "odata`PartitionKey eq 'x'` 412 412"},
	{ID: "a.html#y", Heading: "---"},
	{ID: "b.html", Title: "Only a title"},
	{ID: "b.html#z", Heading: "Zürich 東京", Text: "DateTime EntityAlreadyExists 2,000/s x-ms-version"},
}

// searchQueries are searched in both indexes; the first six are the ones
// the issue found nothing for, and must find something in the docs.
var searchQueries = []string{"continuation", "odata", "SAS", "DateTime", "EntityAlreadyExists", "412",
	"partition key", "contnuation", "$filter", "etag", "tokyo 東京", "zurich"}

// The index the site build writes is the index MiniSearch builds from the
// same sections with the options the page loads it with: compared field
// by field (terms in any order) with the toJSON of a MiniSearch built by
// the committed bundle under Node, for the repository's own pages and for
// documents at MiniSearch's corners; and both give the same results for
// the same queries.
func TestSearchIndexIsMiniSearchs(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed: the search index cannot be compared with MiniSearch's")
		}
		t.Skip("node is not installed: the search index cannot be compared with MiniSearch's")
	}
	pages, err := readPages(filepath.Join(repoRoot, "content"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]searchDoc{"content": searchDocs(pages), "edges": edgeDocs}
	for name, docs := range cases {
		t.Run(name, func(t *testing.T) {
			ours := buildSearchIndex(docs).serialized()
			got := compareWithNode(t, docs, ours)
			want := plain(t, ours)
			if diff := firstDifference(normalizeIndex(got.Built), normalizeIndex(want)); diff != "" {
				t.Errorf("MiniSearch built from the documents differs from ours: %s", diff)
			}
			if diff := firstDifference(normalizeIndex(got.Loaded), normalizeIndex(want)); diff != "" {
				t.Errorf("ours loaded by MiniSearch.loadJSON and written again differs: %s", diff)
			}
			for q, r := range got.Searches {
				if diff := sameResults(r.Built, r.Loaded); diff != "" {
					t.Errorf("%q: MiniSearch's own index and ours find different results: %s", q, diff)
				}
			}
			if name != "content" {
				return
			}
			for _, q := range searchQueries[:6] {
				if len(got.Searches[q].Built) == 0 {
					t.Errorf("%q finds nothing in the docs", q)
				}
			}
		})
	}
}

type nodeSearch struct {
	Built, Loaded any
	Searches      map[string]struct{ Built, Loaded []searchResult }
}

// A searchResult is one result of MiniSearch's search, its matched terms
// sorted.
type searchResult struct {
	ID    string
	Score float64
	Terms []string
}

// sameResults says where two lists of results differ, or "" when they do
// not. A score is a sum over the terms a query matched, added in the order
// of the index's radix tree, which is not the same in an index built and
// one loaded: the last bits of a score may differ, and two results whose
// scores are that close may swap places.
func sameResults(a, b []searchResult) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d results against %d", len(a), len(b))
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-12*math.Max(math.Abs(x), math.Abs(y)) }
	byID := make(map[string]searchResult, len(b))
	for _, r := range b {
		byID[r.ID] = r
	}
	for i, r := range a {
		o, ok := byID[r.ID]
		if !ok {
			return fmt.Sprintf("%s found by one only", r.ID)
		}
		if !near(r.Score, o.Score) || !slices.Equal(r.Terms, o.Terms) {
			return fmt.Sprintf("%s: score %v, terms %q against %v, %q", r.ID, r.Score, r.Terms, o.Score, o.Terms)
		}
		if b[i].ID != r.ID && !near(b[i].Score, r.Score) {
			return fmt.Sprintf("at %d, %s against %s", i, r.ID, b[i].ID)
		}
	}
	return ""
}

// compareWithNode runs testdata/minisearch.mjs on docs and ours.
func compareWithNode(t *testing.T, docs []searchDoc, ours serializedIndex) nodeSearch {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command("node", filepath.Join("testdata", "minisearch.mjs"),
		write("docs.json", docs), write("search.json", ours), write("queries.json", searchQueries))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node testdata/minisearch.mjs: %v\n%s", err, stderr.String())
	}
	var got nodeSearch
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	return got
}

// plain is v as encoding/json decodes its JSON into an any.
func plain(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var p any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// normalizeIndex turns a serialized index's list of [term, entry] pairs
// into a map from term to entry, so that their order does not count:
// MiniSearch writes them in its radix tree's order, loadJSON reads any.
func normalizeIndex(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = x
	}
	if pairs, ok := m["index"].([]any); ok {
		terms := make(map[string]any, len(pairs))
		for _, p := range pairs {
			if p, ok := p.([]any); ok && len(p) == 2 {
				terms[p[0].(string)] = p[1]
			}
		}
		out["index"] = terms
	}
	return out
}

// firstDifference names the first place a and b differ (decoded JSON), or
// returns "" when they are equal.
func firstDifference(a, b any) string {
	return difference("", a, b)
}

func difference(at string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			return at + ": an object against " + show(b)
		}
		for k := range a {
			if _, ok := b[k]; !ok {
				return at + "." + k + ": only in the first"
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				return at + "." + k + ": only in the second"
			}
			if d := difference(at+"."+k, a[k], b[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return at + ": " + show(a) + " against " + show(b)
		}
		for i := range a {
			if d := difference(at+"["+strconv.Itoa(i)+"]", a[i], b[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return at + ": " + show(a) + " against " + show(b)
	}
	return ""
}

func show(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
