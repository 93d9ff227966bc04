package site

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the module's root, seen from this package's folder.
const repoRoot = "../.."

// writeTree writes files (name → content) under a new folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// readTree maps every file under dir to its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := make(map[string]string)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The repository's own pages build, twice to the same bytes, and the
// result passes Check (the engine aside: building it is the test
// command's site tier).
func TestRepositorySiteBuildsTheSameTwice(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoRoot, "content")); err != nil {
		t.Skip("no content/ in this checkout")
	}
	tmp := t.TempDir()
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	for _, out := range []string{a, b} {
		if err := Build(Options{Root: repoRoot, Out: out, NoEngine: true}); err != nil {
			t.Fatal(err)
		}
	}
	first, second := readTree(t, a), readTree(t, b)
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("%d files, then %d", len(first), len(second))
	}
	for name, content := range first {
		if second[name] != content {
			t.Errorf("%s differs between two builds", name)
		}
	}
	if err := Check(a, false); err != nil {
		t.Error(err)
	}
	// The folders beside the output are gone: nothing half-built stays.
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 2 {
		t.Errorf("left beside the sites: %v", entries)
	}
}

// fixture is a small site: two folders deep, with run blocks, anchors and
// links between pages.
func fixture(t *testing.T) string {
	return writeTree(t, map[string]string{
		"site/templates/page.html": `<!doctype html><html><head><title>{{.Page.Title}}</title>` +
			`{{if .Page.HasRuns}}<script type="module" src="{{.Root}}play/examples.js"></script>{{end}}` +
			`{{if .Page.Playground}}<script type="module" src="{{.Root}}play/playground.js"></script>{{end}}</head><body>` +
			`<nav class="site-nav">{{range .Nav}}<a href="{{.Href}}">{{.Title}}</a>{{end}}</nav>` +
			`<main id="main">{{.Page.Body}}{{if .Page.Playground}}<div id="playground"></div>{{end}}</main>` +
			`{{range .Related}}<a href="{{.Href}}">{{.Title}}</a>{{end}}</body></html>`,
		"site/static/style.css":             "body{}",
		"site/play/examples.js":             "export {};",
		"site/play/playground.js":           "export {};",
		"site/play/node_modules/x/index.js": "not part of the site",
		"site/play/test/grid.test.mjs":      "not part of the site",
		"site/play/vendor-src/build.mjs":    "not part of the site",
		"site/play/vendor/codemirror.js":    "export {};",
		"content/index.md": "---\ntitle: Home\norder: 1\nrelated: [guide/keys.md]\n---\n\n" +
			"## Start here\n\nSee [keys](guide/keys.md#point-reads) and [play](play.md).\n",
		"content/play.md": "---\ntitle: Play\norder: 2\nlayout: playground\n---\n\nText.\n",
		"content/guide/keys.md": "---\ntitle: Keys\norder: 3\nsummary: About keys.\n---\n\n" +
			"## Point reads\n\n```js run plans=point\nprint(1)\n```\n\n```output\n1\n```\n\n" +
			"Back [home](../index.md#start-here).\n",
	})
}

func TestBuildFixture(t *testing.T) {
	root := fixture(t)
	out := filepath.Join(t.TempDir(), "dist")
	if err := Build(Options{Root: root, Out: out, NoEngine: true}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	keys := files["guide/keys.html"]
	for _, want := range []string{
		`<script type="module" src="../play/examples.js">`,
		`<a href="../index.html">Home</a><a href="../play.html">Play</a><a href="../guide/keys.html">Keys</a>`,
		`<h2 id="point-reads">Point reads<a href="#point-reads" title="Link to this section" class="anchor">#</a></h2>`,
		`<figure class="run-example" id="example-1" data-plans="point">`,
		`<a href="../index.html#start-here">home</a>`,
	} {
		if !strings.Contains(keys, want) {
			t.Errorf("guide/keys.html lacks %s:\n%s", want, keys)
		}
	}
	index := files["index.html"]
	if strings.Contains(index, "examples.js") || !strings.Contains(index, `<a href="guide/keys.html#point-reads">keys</a>`) ||
		!strings.Contains(index, `<a href="guide/keys.html">Keys</a></body>`) {
		t.Errorf("index.html:\n%s", index)
	}
	if !strings.Contains(files["play.html"], `<div id="playground"></div>`) || !strings.Contains(files["play.html"], `src="play/playground.js"`) {
		t.Errorf("play.html:\n%s", files["play.html"])
	}
	for _, name := range []string{"play/examples.js", "play/playground.js", "play/vendor/codemirror.js", "static/style.css", "static/chroma.css"} {
		if _, ok := files[name]; !ok {
			t.Errorf("%s not copied", name)
		}
	}
	for name := range files {
		if strings.Contains(name, "node_modules") || strings.HasPrefix(name, "play/test/") || strings.HasPrefix(name, "play/vendor-src/") {
			t.Errorf("%s copied", name)
		}
	}
	for _, want := range []string{`:root[data-theme="dark"] .chroma .k {`, `@media (prefers-color-scheme: dark)`, `:root[data-theme="light"] .chroma {`} {
		if !strings.Contains(files["static/chroma.css"], want) {
			t.Errorf("chroma.css lacks %s", want)
		}
	}
	// search.json is MiniSearch's serialized index of every section: the
	// keys page's opening (its title) and its one heading's section, whose
	// text is the run block's code and the prose after it.
	var searchIndex serializedIndex
	if err := json.Unmarshal([]byte(files["search.json"]), &searchIndex); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := range searchIndex.DocumentCount {
		ids = append(ids, searchIndex.DocumentIDs[strconv.Itoa(i)])
	}
	wantIDs := []string{"index.html", "index.html#start-here", "play.html", "guide/keys.html", "guide/keys.html#point-reads"}
	if !slices.Equal(ids, wantIDs) || searchIndex.SerializationVersion != 2 {
		t.Errorf("search.json documents %q (version %d), want %q", ids, searchIndex.SerializationVersion, wantIDs)
	}
	if got, want := searchIndex.StoredFields["4"], map[string]string{"heading": "Point reads", "text": "Back home.", "code": "print(1)"}; !maps.Equal(got, want) {
		t.Errorf("search.json's point-reads section stores %q, want %q", got, want)
	}
	if got := searchIndex.StoredFields["3"]; !maps.Equal(got, map[string]string{"title": "Keys"}) {
		t.Errorf("search.json's keys page opening stores %q", got)
	}
	if err := Check(out, false); err != nil {
		t.Error(err)
	}
	if err := Check(out, true); err == nil || !strings.Contains(err.Error(), "engine/app.wasm is missing") {
		t.Errorf("a site without its engine: %v", err)
	}
}

func TestCheckFindsBrokenSites(t *testing.T) {
	root := fixture(t)
	out := filepath.Join(t.TempDir(), "dist")
	if err := Build(Options{Root: root, Out: out, NoEngine: true}); err != nil {
		t.Fatal(err)
	}
	edit := func(name, old, new string) {
		p := filepath.Join(out, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s lacks %q", name, old)
		}
		if err := os.WriteFile(p, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("index.html", `guide/keys.html#point-reads`, `guide/keys.html#no-such-heading`)
	edit("index.html", `href="play.html">play`, `href="gone.html">play`)
	edit("play.html", `<a href="guide/keys.html">Keys</a>`, `<a href="guide/lost.html">Keys</a>`)
	edit("guide/keys.html", `<script type="module" src="../play/examples.js"></script>`, ``)
	edit("guide/keys.html", `href="../index.html#start-here"`, `href="/index.html"`)
	if err := os.Remove(filepath.Join(out, "play", "playground.js")); err != nil {
		t.Fatal(err)
	}
	err := Check(out, false)
	if err == nil {
		t.Fatal("a broken site checks out")
	}
	for _, want := range []string{
		`index.html: link "guide/keys.html#no-such-heading": no id "no-such-heading" in guide/keys.html`,
		`index.html: link "gone.html": gone.html does not exist`,
		`play.html: the navigation lists "guide/lost.html", which is not a page of the site`,
		`play.html: link "play/playground.js": play/playground.js does not exist`,
		`guide/keys.html: has 1 run examples but does not load play/examples.js as a module`,
		`guide/keys.html: link "/index.html" starts at the host's root`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check did not report %s; it said:\n%v", want, err)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
	}{
		{"stray output", "---\ntitle: X\n---\n\ntext\n\n```output\n1\n```\n", "content/x.md:7: an output block must follow a js run block"},
		{"unknown plan", "---\ntitle: X\n---\n\n```js run plans=index-seek\n1\n```\n", `content/x.md:5: run block: unknown plan "index-seek"`},
		{"no title", "# X\n", "content/x.md: front matter has no title"},
		{"root link", "---\ntitle: X\n---\n\n[a](/a.md)\n", `content/x.md: link "/a.md" starts at the site's root`},
		{"related page missing", "---\ntitle: X\nrelated: [y.md]\n---\n", `content/x.md: related page "y.md" does not exist`},
	} {
		root := writeTree(t, map[string]string{
			"site/templates/page.html": "{{.Page.Body}}",
			"site/static/style.css":    "",
			"content/x.md":             tc.file,
		})
		out := filepath.Join(t.TempDir(), "dist")
		err := Build(Options{Root: root, Out: out, NoEngine: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %s", tc.name, err, tc.want)
		}
		if _, statErr := os.Stat(out); statErr == nil {
			t.Errorf("%s: a failed build wrote %s", tc.name, out)
		}
	}
}

func TestEngineMissingIsAnError(t *testing.T) {
	root := fixture(t)
	err := Build(Options{Root: root, Out: filepath.Join(t.TempDir(), "dist")})
	if err == nil || !strings.Contains(err.Error(), "engine: the browser build needs ./wasm/browser") {
		t.Errorf("no wasm/browser: %v", err)
	}
}

func TestHeadingsNeverTakeTheTemplatesIDs(t *testing.T) {
	page, errs := renderPage(newMarkdown(), "x.md", []byte("---\ntitle: X\n---\n\n## Main\n\n## Playground\n\n## Main\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var ids []string
	for _, h := range page.Headings {
		ids = append(ids, h.ID)
	}
	if strings.Join(ids, " ") != "main-1 playground-1 main-2" {
		t.Errorf("heading ids %v", ids)
	}
}

func TestTemplateIDsListed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "site", "templates", "page.html"))
	if err != nil {
		t.Skip(err)
	}
	listed := strings.Join(templateIDs, " ") + " "
	for _, m := range regexp.MustCompile(`id="([a-z-]+)"`).FindAllStringSubmatch(string(b), -1) {
		if !strings.Contains(" "+listed, " "+m[1]+" ") {
			t.Errorf("page.html uses id %q, which templateIDs lacks", m[1])
		}
	}
}

// TestToolPages checks the pages that hold one of the local server's
// tools: the repository's explorer and inspector pages load their module
// and styles from tools/ and have the mount point, the modules are
// there, and a page naming a tool that does not exist is an error.
func TestToolPages(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoRoot, "content")); err != nil {
		t.Skip("no content/ in this checkout")
	}
	out := filepath.Join(t.TempDir(), "dist")
	if err := Build(Options{Root: repoRoot, Out: out, NoEngine: true}); err != nil {
		t.Fatal(err)
	}
	files := readTree(t, out)
	for _, tool := range tools {
		page := files[tool+".html"]
		for _, want := range []string{
			`<script type="module" src="tools/` + tool + `.js"></script>`,
			`<link rel="stylesheet" href="tools/tools.css">`,
			`<div id="tool" class="tool" data-root=""></div>`,
			`<body class="wide" data-page="` + tool + `.html">`,
		} {
			if !strings.Contains(page, want) {
				t.Errorf("%s.html lacks %s", tool, want)
			}
		}
		if files["tools/"+tool+".js"] == "" {
			t.Errorf("tools/%s.js is missing", tool)
		}
	}
	if strings.Contains(files["index.html"], `id="tool"`) {
		t.Error("a page without a tool has its mount point")
	}
	dir := writeTree(t, map[string]string{"x.md": "---\ntitle: X\ntool: nope\n---\n\nText.\n"})
	if _, err := readPages(dir); err == nil || !strings.Contains(err.Error(), `tool "nope"`) {
		t.Errorf("a page with an unknown tool: %v", err)
	}
}
