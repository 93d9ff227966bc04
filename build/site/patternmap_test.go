package site

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func mapPages() []*Page {
	page := func(src, title string, order int, related ...string) *Page {
		url := strings.TrimSuffix(src, ".md") + ".html"
		return &Page{Src: src, URL: url, Root: strings.Repeat("../", strings.Count(url, "/")), Title: title, Order: order, Related: related}
	}
	return []*Page{
		page("index.md", "Home", 1, "patterns/b.md"),
		page("patterns/map.md", "Pattern map", 30, "patterns/a.md"),
		page("patterns/b.md", "B & co", 32, "patterns/a.md", "concepts/x.md", "patterns/c-anti-pattern.md"),
		page("patterns/a.md", "A", 31, "patterns/b.md", "patterns/a.md"),
		page("patterns/c-anti-pattern.md", "C <anti>", 33, "patterns/a.md"),
		page("concepts/x.md", "X", 11, "patterns/a.md"),
	}
}

func TestPatternMap(t *testing.T) {
	pages := mapPages()
	svg := string(PatternMap(pages, pages[1]))
	// Nodes: the pattern pages but the map itself, in order, each a link
	// relative to the map's page.
	nodes := regexp.MustCompile(`<a class="([^"]+)" href="([^"]+)" data-src="([^"]+)">`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, n := range nodes {
		got = append(got, n[1]+" "+n[2])
	}
	want := []string{"pm-node ../patterns/a.html", "pm-node ../patterns/b.html", "pm-node pm-anti ../patterns/c-anti-pattern.html"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("nodes %q, want %q", got, want)
	}
	// Edges: a relation once however many pages name it, none to itself,
	// none to a page that is not a pattern.
	arcs := regexp.MustCompile(`<path class="pm-arc" data-from="([^"]+)" data-to="([^"]+)"`).FindAllStringSubmatch(svg, -1)
	got = nil
	for _, a := range arcs {
		got = append(got, a[1]+"-"+a[2])
	}
	want = []string{"patterns/a.md-patterns/b.md", "patterns/a.md-patterns/c-anti-pattern.md", "patterns/b.md-patterns/c-anti-pattern.md"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("arcs %q, want %q", got, want)
	}
	// Titles are escaped; the arc spanning two rows bulges further left
	// than one spanning one.
	for _, s := range []string{">B &amp; co</text>", ">C &lt;anti&gt;</text>", `<title>A — C &lt;anti&gt;</title>`, `aria-label="The patterns and how they relate: 3 patterns, 3 relations"`} {
		if !strings.Contains(svg, s) {
			t.Errorf("the map lacks %s:\n%s", s, svg)
		}
	}
	if !strings.Contains(svg, `d="M46 22 C8 22 8 94 46 94"`) || !strings.Contains(svg, `d="M46 22 C22 22 22 58 46 58"`) {
		t.Errorf("arcs not where expected:\n%s", svg)
	}
	// The same pages in another order give the same bytes.
	shuffled := mapPages()
	shuffled[2], shuffled[3], shuffled[4] = shuffled[4], shuffled[2], shuffled[3]
	if again := PatternMap(shuffled, shuffled[1]); !bytes.Equal(again, []byte(svg)) {
		t.Errorf("another order of the same pages drew\n%s\nnot\n%s", again, svg)
	}
	if empty := string(PatternMap(pages[:2], pages[1])); !strings.Contains(empty, "No pattern pages yet.") {
		t.Errorf("no patterns: %s", empty)
	}
}

func TestPatternMapInABuiltSite(t *testing.T) {
	root := writeTree(t, map[string]string{
		"site/templates/page.html": `<nav class="site-nav">{{range .Nav}}<a href="{{.Href}}">{{.Title}}</a>{{end}}</nav><main>{{.Page.Body}}</main>`,
		"site/static/style.css":    "",
		"content/index.md":         "---\ntitle: Home\norder: 1\n---\n",
		"content/patterns/map.md":  "---\ntitle: Map\norder: 30\n---\n\nBefore.\n\n```pattern-map\n```\n\nAfter.\n",
		"content/patterns/one.md":  "---\ntitle: One\norder: 31\nrelated: [patterns/two.md]\n---\n",
		"content/patterns/two.md":  "---\ntitle: Two\norder: 32\n---\n",
		"content/concepts/keys.md": "---\ntitle: Keys\norder: 11\n---\n\n```pattern-map\n```\n",
	})
	out := filepath.Join(t.TempDir(), "dist")
	if err := Build(Options{Root: root, Out: out, NoEngine: true}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	m := files["patterns/map.html"]
	if !regexp.MustCompile(`(?s)<p>Before.</p>\n<figure class="pattern-map"><svg .*<a class="pm-node" href="../patterns/one.html".*<a class="pm-node" href="../patterns/two.html".*</svg></figure>\n<p>After.</p>`).MatchString(m) {
		t.Errorf("patterns/map.html:\n%s", m)
	}
	if strings.Count(m, `class="pm-arc"`) != 1 || strings.Contains(m, mapMarker) {
		t.Errorf("want one arc and no marker left:\n%s", m)
	}
	// Another page may show the map too; its links lead from there.
	if !strings.Contains(files["concepts/keys.html"], `href="../patterns/one.html"`) || !strings.Contains(files["concepts/keys.html"], `data-src="patterns/map.md"`) {
		t.Errorf("concepts/keys.html:\n%s", files["concepts/keys.html"])
	}
	if err := Check(out, false); err != nil {
		t.Error(err)
	}
}
