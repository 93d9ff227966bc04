// Package site renders tablelab's documentation site: content/**/*.md
// through goldmark (with runnable examples, highlighted code and heading
// anchors) into the templates of site/, and writes a static dist/ that any
// host can serve, the engine's WebAssembly build included.
package site

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/frontmatter"
)

// Options says what Build reads and writes.
type Options struct {
	// Root is the module's root: content/, site/ and wasm/browser/ are
	// read from it.
	Root string
	// Out is the folder to write; it is replaced whole.
	Out string
	// NoEngine leaves out dist/engine/, for tests of the pages alone.
	// A site built without it cannot run its examples.
	NoEngine bool
}

// A Page is one content file on its way to HTML.
type Page struct {
	// Src is the file's path under content/, with slashes.
	Src string
	// URL is the page's path in the site, relative to its root.
	URL string
	// Root leads from the page back to the site's root ("" or "../").
	Root string

	Title   string
	Summary string
	// SummaryHTML is Summary with its Markdown (code spans, emphasis)
	// rendered, for the related-pages lists; Summary's plain text goes in
	// the page's meta description.
	SummaryHTML template.HTML
	Related     []string
	Order       int
	Playground  bool
	// Tool names the local server's tool the page holds (explorer or
	// inspector): its module, site/tools/<Tool>.js, runs in the page.
	Tool string
	// Path is the reading order this page sets out (front matter path:),
	// as paths under content/; at most one page has one.
	Path []string
	// Exercises counts the page's exercises.
	Exercises int

	Body     template.HTML
	Headings []Heading
	// HasRuns says the page holds run examples or exercises, which
	// play/examples.js brings to life.
	HasRuns bool
	// Sections are the page's parts for the search index.
	Sections []Section
}

// frontMatter is what a content file may declare above its text.
type frontMatter struct {
	Title   string   `yaml:"title"`
	Summary string   `yaml:"summary"`
	Related []string `yaml:"related"`
	// Order places the page in the navigation, lowest first.
	Order int `yaml:"order"`
	// Layout "playground" gives the page the playground's mount point.
	Layout string `yaml:"layout"`
	// Tool gives the page the mount point of one of the local server's
	// tools (site/tools/<tool>.js): the explorer or the inspector.
	Tool string `yaml:"tool"`
	// Path is a reading order through other pages, as paths under
	// content/: the page lists them, and each of them links to the one
	// before and after it.
	Path []string `yaml:"path"`
}

// Build renders the site from o.Root into o.Out. It writes into a new
// folder beside o.Out and swaps it in at the end, so a server never serves
// half a site and two builds never mix their files.
func Build(o Options) error {
	pages, err := readPages(filepath.Join(o.Root, "content"))
	if err != nil {
		return err
	}
	drawPatternMaps(pages)
	tmpl, err := template.ParseFiles(filepath.Join(o.Root, "site", "templates", "page.html"))
	if err != nil {
		return err
	}
	parent := filepath.Dir(filepath.Clean(o.Out))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(o.Out)+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}

	if err := writePages(tmp, tmpl, pages); err != nil {
		return err
	}
	if err := writeNotFound(tmp, tmpl, pages); err != nil {
		return err
	}
	if err := writeSearchIndex(tmp, pages); err != nil {
		return err
	}
	// vendor-src holds what the search bundle is rebuilt from.
	if err := copyTree(filepath.Join(o.Root, "site", "static"), filepath.Join(tmp, "static"), "vendor-src"); err != nil {
		return err
	}
	if err := writeChromaCSS(filepath.Join(tmp, "static", "chroma.css")); err != nil {
		return err
	}
	// The playground's own tests and the sources its vendored bundles are
	// rebuilt from live beside it, but a reader's browser needs neither.
	if err := copyTree(filepath.Join(o.Root, "site", "play"), filepath.Join(tmp, "play"), "test", "vendor-src"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := copyTree(filepath.Join(o.Root, "site", "tools"), filepath.Join(tmp, "tools")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := writeEmbed(o.Root, tmp); err != nil {
		return err
	}
	if err := writeHeaders(tmp); err != nil {
		return err
	}
	if !o.NoEngine {
		if err := buildEngine(o.Root, filepath.Join(tmp, "engine")); err != nil {
			return err
		}
	}
	if err := precompress(tmp); err != nil {
		return err
	}
	return swapIn(tmp, o.Out)
}

// swapIn replaces dir with built.
func swapIn(built, dir string) error {
	old := built + ".old"
	if err := os.Rename(dir, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(built, dir); err != nil {
		return err
	}
	return os.RemoveAll(old)
}

// readPages parses every Markdown file under dir, in path order.
func readPages(dir string) ([]*Page, error) {
	md := newMarkdown()
	var pages []*Page
	var errs []error
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		page, pageErrs := renderPage(md, rel, src)
		errs = append(errs, pageErrs...)
		if page != nil {
			pages = append(pages, page)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pages) == 0 && len(errs) == 0 {
		return nil, fmt.Errorf("no pages in %s", dir)
	}
	if err := checkRelated(pages); err != nil {
		errs = append(errs, err)
	}
	if err := checkPath(pages); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(pages, func(i, j int) bool { return pages[i].Order < pages[j].Order })
	return pages, nil
}

// tools are the local server's tools a page may hold (front matter
// tool:), each a module in site/tools.
var tools = []string{"explorer", "inspector"}

// templateIDs are the element ids site/templates/page.html uses; a
// heading or example of the page never takes one.
var templateIDs = []string{"main", "search-input", "search-panel", "search-status", "search-results", "theme-toggle", "playground", "tool", "related-heading", "pg-about", "pg-about-title"}

// renderPage converts one content file; rel is its path under content/.
func renderPage(md goldmark.Markdown, rel string, src []byte) (*Page, []error) {
	pc := parser.NewContext()
	for _, id := range templateIDs {
		pc.IDs().Put([]byte(id))
	}
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	var errs []error
	for _, e := range RunErrors(pc) {
		e.File = "content/" + rel
		errs = append(errs, e)
	}
	for _, e := range pc.Get(linkErrorKey).([]string) {
		errs = append(errs, fmt.Errorf("content/%s: %s", rel, e))
	}
	var fm frontMatter
	if data := frontmatter.Get(pc); data != nil {
		if err := data.Decode(&fm); err != nil {
			errs = append(errs, fmt.Errorf("content/%s: front matter: %v", rel, err))
		}
	}
	if fm.Title == "" {
		errs = append(errs, fmt.Errorf("content/%s: front matter has no title", rel))
	}
	if fm.Tool != "" && !slices.Contains(tools, fm.Tool) {
		errs = append(errs, fmt.Errorf("content/%s: tool %q is none of %v", rel, fm.Tool, tools))
	}
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		errs = append(errs, fmt.Errorf("content/%s: %v", rel, err))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	url := strings.TrimSuffix(rel, ".md") + ".html"
	headings := pc.Get(headingsKey).([]Heading)
	p := &Page{
		Src:         rel,
		URL:         url,
		Root:        strings.Repeat("../", strings.Count(url, "/")),
		Title:       fm.Title,
		Summary:     summaryText(fm.Summary),
		SummaryHTML: summaryHTML(fm.Summary),
		Related:     fm.Related,
		Order:       fm.Order,
		Playground:  fm.Layout == "playground",
		Tool:        fm.Tool,
		Path:        fm.Path,
		Exercises:   bytes.Count(body.Bytes(), []byte(`<figure class="exercise"`)),
		// The renderer escapes text and refuses raw HTML (goldmark's
		// default), so its output is safe to place as it is.
		Body:     template.HTML(body.String()),
		Headings: headings,
		HasRuns:  bytes.Contains(body.Bytes(), []byte(`class="run-example"`)) || bytes.Contains(body.Bytes(), []byte(`class="exercise"`)),
		Sections: pageSections(doc, src, headings),
	}
	return p, nil
}

// checkRelated makes sure each related page a front matter names exists.
// A required page still being written (pendingPage) is dropped from the
// list instead, until it exists.
func checkRelated(pages []*Page) error {
	have := make(map[string]bool)
	for _, p := range pages {
		have[p.Src] = true
	}
	var errs []error
	for _, p := range pages {
		for _, r := range p.Related {
			if !have[r] {
				errs = append(errs, fmt.Errorf("content/%s: related page %q does not exist (name it by its path under content/)", p.Src, r))
			}
		}
	}
	return errors.Join(errs...)
}

// checkPath makes sure at most one page sets out a reading order, and
// that it names existing pages, each once, not itself.
func checkPath(pages []*Page) error {
	have := make(map[string]bool)
	for _, p := range pages {
		have[p.Src] = true
	}
	var errs []error
	var setter string
	for _, p := range pages {
		if len(p.Path) == 0 {
			continue
		}
		if setter != "" {
			errs = append(errs, fmt.Errorf("content/%s: a reading order (path:) is set by content/%s already", p.Src, setter))
		}
		setter = p.Src
		seen := make(map[string]bool)
		for _, q := range p.Path {
			switch {
			case !have[q]:
				errs = append(errs, fmt.Errorf("content/%s: path names %q, which does not exist (name it by its path under content/)", p.Src, q))
			case seen[q]:
				errs = append(errs, fmt.Errorf("content/%s: path names %q twice", p.Src, q))
			case q == p.Src:
				errs = append(errs, fmt.Errorf("content/%s: path names the page itself", p.Src))
			}
			seen[q] = true
		}
	}
	return errors.Join(errs...)
}

// A navLink is one entry of a page's navigation.
type navLink struct {
	Title   string
	Href    string
	Current bool
	Summary template.HTML
	// Page is the target's URL from the site's root, Exercises its
	// exercises: what progress.js matches the reader's progress with.
	Page      string
	Exercises int
}

// A pathStep is where a page stands in the reading order: the page that
// sets it out, the pages before and after it, and its number.
type pathStep struct {
	Start      navLink
	Prev, Next *navLink
	Step, Of   int
}

// A navGroup is one folder's pages in the navigation.
type navGroup struct {
	Title   string
	Links   []navLink
	Current bool // the page shown is one of Links
}

type pageData struct {
	Page *Page
	Root string
	// Nav lists every page, group by group; NavGroups the same pages in
	// their groups.
	Nav       []navLink
	NavGroups []navGroup
	Related   []navLink
	TOC       []Heading
	// Path lists the reading order, on the page that sets it out; Step
	// is where a page of it stands, nil elsewhere.
	Path []navLink
	Step *pathStep
}

// navGroups names the folders of content/ in the navigation, in its
// order; pages in any other folder follow them, a group per folder in
// the folders' order.
var navGroups = []struct{ dir, title string }{
	{".", "Start"},
	{"concepts", "Concepts"},
	{"patterns", "Patterns"},
	{"case-study", "Case study"},
	{"production", "Live tables"},
	{"reference", "Reference"},
}

// A pageGroup is the pages of one group of the navigation, in order.
type pageGroup struct {
	Title string
	Pages []*Page
}

// groupPages splits pages (in order) into the navigation's groups, each
// keeping the pages' order; groups with no page are left out.
func groupPages(pages []*Page) []pageGroup {
	index := make(map[string]int)
	var groups []pageGroup
	for _, g := range navGroups {
		index[g.dir] = len(groups)
		groups = append(groups, pageGroup{Title: g.title})
	}
	var others []string
	for _, p := range pages {
		dir := path.Dir(p.Src)
		if _, ok := index[dir]; !ok {
			index[dir] = -1
			others = append(others, dir)
		}
	}
	sort.Strings(others)
	for _, dir := range others {
		index[dir] = len(groups)
		groups = append(groups, pageGroup{Title: folderTitle(dir)})
	}
	for _, p := range pages {
		i := index[path.Dir(p.Src)]
		groups[i].Pages = append(groups[i].Pages, p)
	}
	return slices.DeleteFunc(groups, func(g pageGroup) bool { return len(g.Pages) == 0 })
}

// folderTitle is a folder's name as a group title: "how-to" is "How to".
func folderTitle(dir string) string {
	t := strings.ReplaceAll(dir, "-", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// notFoundPage is the page the site answers a missing path with: a
// server (go run .'s, GitHub Pages, Cloudflare Pages) sends 404.html with
// status 404 at whatever path was asked for. Its links lead from the
// site's root, as any page's there do; a server answering a path in a
// folder puts a <base> in it that leads back to the root (site/sitehttp).
var notFoundPage = Page{
	URL:     "404.html",
	Root:    "",
	Title:   "Page not found",
	Summary: "No page of the tablelab docs has this address.",
}

// notFoundLinks are the pages the 404 page offers first, where the site
// has them.
var notFoundLinks = []struct{ url, text string }{
	{"index.html", "the first page"},
	{"patterns/map.html", "the map of the patterns"},
	{"playground.html", "the playground"},
}

// writeNotFound writes 404.html with the navigation of every page.
func writeNotFound(out string, tmpl *template.Template, pages []*Page) error {
	p := notFoundPage
	var links []string
	for _, l := range notFoundLinks {
		if slices.ContainsFunc(pages, func(q *Page) bool { return q.URL == l.url }) {
			links = append(links, `<a href="`+l.url+`">`+l.text+`</a>`)
		}
	}
	body := `<p>No page of these docs has this address. It may have moved, or the link may be mistyped.</p>
<p>Try the search box above`
	if len(links) > 0 {
		body += ", " + strings.Join(links, ", ")
	}
	p.Body = template.HTML(body + `; every page is listed in the navigation.</p>`)
	d := pageData{Page: &p, Root: p.Root}
	addNav(&d, &p, groupPages(pages))
	var b bytes.Buffer
	if err := tmpl.ExecuteTemplate(&b, "page.html", d); err != nil {
		return fmt.Errorf("404.html: %v", err)
	}
	return writeFile(filepath.Join(out, p.URL), b.Bytes())
}

// addNav fills d's navigation for the page p, with links from p's place.
func addNav(d *pageData, p *Page, groups []pageGroup) {
	for _, group := range groups {
		g := navGroup{Title: group.Title}
		for _, q := range group.Pages {
			g.Links = append(g.Links, navLink{Title: q.Title, Href: p.Root + q.URL, Current: q == p, Page: q.URL, Exercises: q.Exercises})
			g.Current = g.Current || q == p
		}
		d.Nav = append(d.Nav, g.Links...)
		d.NavGroups = append(d.NavGroups, g)
	}
}

func writePages(out string, tmpl *template.Template, pages []*Page) error {
	bySrc := make(map[string]*Page)
	for _, p := range pages {
		bySrc[p.Src] = p
	}
	groups := groupPages(pages)
	var start *Page
	for _, p := range pages {
		if len(p.Path) > 0 {
			start = p
		}
	}
	link := func(from, to *Page) navLink {
		return navLink{Title: to.Title, Href: from.Root + to.URL, Summary: to.SummaryHTML, Page: to.URL, Exercises: to.Exercises}
	}
	for _, p := range pages {
		d := pageData{Page: p, Root: p.Root}
		addNav(&d, p, groups)
		for _, r := range p.Related {
			d.Related = append(d.Related, link(p, bySrc[r]))
		}
		if start != nil {
			for i, src := range start.Path {
				q := bySrc[src]
				if p == start {
					d.Path = append(d.Path, link(p, q))
				}
				if q != p {
					continue
				}
				step := &pathStep{Start: link(p, start), Step: i + 1, Of: len(start.Path)}
				if i > 0 {
					prev := link(p, bySrc[start.Path[i-1]])
					step.Prev = &prev
				}
				if i+1 < len(start.Path) {
					next := link(p, bySrc[start.Path[i+1]])
					step.Next = &next
				}
				d.Step = step
			}
		}
		for _, h := range p.Headings {
			if h.Level == 2 {
				d.TOC = append(d.TOC, h)
			}
		}
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, "page.html", d); err != nil {
			return fmt.Errorf("content/%s: %v", p.Src, err)
		}
		if err := writeFile(filepath.Join(out, filepath.FromSlash(p.URL)), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, data, 0o644)
}

// copyTree copies the files under src to dst as they are, except for
// node_modules folders (what npm installed to rebuild a bundle is not part
// of the site) and the folders and files skip names, as paths under src.
func copyTree(src, dst string, skip ...string) error {
	if _, err := os.Stat(src); err != nil {
		return err
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			if slices.Contains(skip, filepath.ToSlash(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if slices.Contains(skip, filepath.ToSlash(rel)) {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", p)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dst, rel), data)
	})
}
