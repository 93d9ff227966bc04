package site

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckPages(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"concepts/keys.md":     "---\ntitle: Keys\n---\n\n```js run plans=point\nprint(1)\n```\n",
		"concepts/nested.md":   "---\ntitle: Nested\n---\n\n- a list\n\n  ```js run\n  print(1)\n  ```\n",
		"concepts/prose.md":    "---\ntitle: Prose\n---\n\nOnly words, and a block that is not run:\n\n```js\nprint(1)\n```\n",
		"concepts/fenced.md":   "---\ntitle: Fenced\n---\n\n````md\n```js run\nprint(1)\n```\n````\n",
		"patterns/map.md":      "---\ntitle: Map\n---\n\nA picture.\n",
		"patterns/unlisted.md": "---\ntitle: Not required\n---\n",
	})
	required := []string{"concepts/keys.md", "concepts/nested.md", "concepts/prose.md", "concepts/fenced.md", "concepts/gone.md", "patterns/map.md"}
	err := CheckPages(dir, required, []string{"patterns/map.md"})
	if err == nil {
		t.Fatal("no error for a missing page and two without examples")
	}
	want := []string{
		"content/concepts/prose.md: no runnable example (a ```js run block)",
		"content/concepts/fenced.md: no runnable example (a ```js run block)",
		"content/concepts/gone.md: missing",
	}
	if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("CheckPages said\n%v\nwant\n%s", err, strings.Join(want, "\n"))
	}
	if err := CheckPages(dir, []string{"concepts/keys.md", "patterns/map.md"}, []string{"patterns/map.md"}); err != nil {
		t.Errorf("complete pages: %v", err)
	}
	if err := CheckPages(dir, []string{"patterns/map.md"}, nil); err == nil {
		t.Error("the map without a run block passed when it was not exempt")
	}
}

func TestRequiredPagesListed(t *testing.T) {
	seen := make(map[string]bool)
	for _, p := range RequiredPages {
		if seen[p] || !strings.HasSuffix(p, ".md") || filepath.IsAbs(p) {
			t.Errorf("RequiredPages: %q twice or not a path under content/", p)
		}
		seen[p] = true
	}
	for _, p := range PagesWithoutRuns {
		if !seen[p] {
			t.Errorf("PagesWithoutRuns names %q, which is not required", p)
		}
	}
	if len(RequiredPages) != 26 {
		t.Errorf("%d required pages, want the issue's 26", len(RequiredPages))
	}
}

func TestNavigationGroups(t *testing.T) {
	root := writeTree(t, map[string]string{
		"site/templates/page.html": `{{range .NavGroups}}[{{.Title}}{{if .Current}}*{{end}}:{{range .Links}} {{.Title}}{{if .Current}}*{{end}}{{end}}]{{end}}`,
		"site/static/style.css":    "",
		"content/index.md":         "---\ntitle: Home\norder: 1\n---\n",
		"content/run.md":           "---\ntitle: Run\norder: 5\n---\n",
		"content/concepts/b.md":    "---\ntitle: B\norder: 12\n---\n",
		"content/concepts/a.md":    "---\ntitle: A\norder: 11\n---\n",
		"content/patterns/map.md":  "---\ntitle: Map\norder: 30\n---\n",
		"content/patterns/p2.md":   "---\ntitle: P2\norder: 32\n---\n",
		"content/patterns/p1.md":   "---\ntitle: P1\norder: 31\n---\n",
		"content/reference/f.md":   "---\ntitle: F\norder: 4\n---\n",
		"content/how-to/x.md":      "---\ntitle: X\norder: 2\n---\n",
	})
	out := filepath.Join(t.TempDir(), "dist")
	if err := Build(Options{Root: root, Out: out, NoEngine: true}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	want := "[Start: Home Run][Concepts*: A* B][Patterns: Map P1 P2][Reference: F][How to: X]"
	if got := files["concepts/a.html"]; got != want {
		t.Errorf("navigation of concepts/a.html:\n%s\nwant\n%s", got, want)
	}
}

// A related page that does not exist fails the build.
func TestRelatedMissingPage(t *testing.T) {
	pages := []*Page{{Src: "patterns/a.md", Related: []string{"patterns/b.md", "patterns/typo.md"}}, {Src: "patterns/b.md"}}
	if err := checkRelated(pages); err == nil || !strings.Contains(err.Error(), `related page "patterns/typo.md" does not exist`) {
		t.Errorf("a missing related page: %v", err)
	}
	pages[0].Related = pages[0].Related[:1]
	if err := checkRelated(pages); err != nil {
		t.Error(err)
	}
}

func TestCheckCaseStudy(t *testing.T) {
	version := func(title, last, output string) string {
		return "---\ntitle: " + title + "\n---\n\n```js run plans=\nprint(1)\n```\n\n```output\n1\n```\n\n" + last + "\n\n```output\n" + output + "```\n"
	}
	const card = "```js run plans=\nawait scorecard(\"v\", {}, { perSecond: { a: 3 } });\n```"
	const money = "v\n  a: wrote 1 entity (20 bytes) in 1 request · 3/s: $0.28 a month\n  in all: $0.28 a month\n"
	files := map[string]string{
		"start-here.md":    "---\ntitle: Start\npath:\n  - cs/overview.md\n  - cs/v1.md\n  - cs/v2.md\n---\n",
		"cs/overview.md":   "---\ntitle: Overview\n---\n\n```entity-chart\nA: x\nB: y\nA 1-n B\n```\n",
		"cs/v1.md":         version("One", card, money),
		"cs/v2.md":         version("Two", card, money),
		"cs/v3.md":         version("Three", card, money),
		"cs/no-volumes.md": version("Bare", "```js run plans=\nawait scorecard(\"v\", {});\n```", "v\n"),
		"cs/no-money.md":   version("Quiet", card, "v\n  a: wrote 1 entity (20 bytes) in 1 request\n"),
		"cs/plain.md":      "---\ntitle: Plain\n---\n\n```js run plans=\nprint(1)\n```\n",
		"cs/no-chart.md":   "---\ntitle: Words\n---\n\nNo chart.\n",
	}
	dir := writeTree(t, files)
	if err := CheckCaseStudy(dir, "cs/overview.md", []string{"cs/v1.md", "cs/v2.md"}); err == nil || !strings.Contains(err.Error(), "2 versions of its design, want at least 3") {
		t.Errorf("two versions: %v", err)
	}
	err := CheckCaseStudy(dir, "cs/no-chart.md", []string{"cs/v1.md", "cs/v3.md", "cs/no-volumes.md", "cs/no-money.md", "cs/plain.md"})
	if err == nil {
		t.Fatal("a case study lacking everything passed")
	}
	for _, want := range []string{
		"content/cs/no-chart.md: no entity chart",
		"content/cs/no-volumes.md:13: the last example is not a scorecard given volumes",
		"content/cs/no-money.md:13: the last example's output declares no money lines",
		"content/cs/plain.md:5: the last example is not a scorecard given volumes",
		"content/cs/v3.md: not in the reading order",
		"content/cs/no-chart.md: not in the reading order",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the check did not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "content/cs/v1.md") {
		t.Errorf("a complete version was reported:\n%v", err)
	}
	delete(files, "start-here.md")
	if err := CheckCaseStudy(writeTree(t, files), "cs/overview.md", []string{"cs/v1.md", "cs/v2.md", "cs/v3.md"}); err == nil || !strings.Contains(err.Error(), "no page sets out a reading order") {
		t.Errorf("no reading order: %v", err)
	}
}

func TestGuidePagesListed(t *testing.T) {
	for _, p := range GuidePages {
		if slices.Contains(RequiredPages, p) {
			t.Errorf("%s is both a pattern guide page and a guide page", p)
		}
	}
	for _, v := range CaseStudyVersions {
		if !slices.Contains(GuidePages, v) {
			t.Errorf("version %s is not among the guide pages", v)
		}
	}
	if len(CaseStudyVersions) < 3 {
		t.Errorf("%d case study versions, the issue asks for at least 3", len(CaseStudyVersions))
	}
}
