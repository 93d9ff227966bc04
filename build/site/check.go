package site

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// EngineFiles are the files of dist/engine/ a page's worker loads.
var EngineFiles = []string{"engine/app.wasm", "engine/wasm_exec.js", "engine/worker.js"}

// A parsedPage is what Check reads of one HTML page.
type parsedPage struct {
	ids     map[string]bool
	links   []string // href and src values, in order
	nav     []string // the links of the site navigation
	modules []string // the src of each module script
	runs    int      // run examples
	// exercises counts figure.exercise elements; exerciseParts counts,
	// over all of them, the parts the page's script needs: the design,
	// the check, the solution's <details> and its code.
	exercises     int
	exerciseParts int
	mount         bool // has <div id="playground">
}

// Check verifies a built site in dir: every page the navigation lists
// exists, every link and anchor between its files resolves, no link starts
// at the host's root (the site may live in a folder), every page with run
// examples or exercises loads play/examples.js (each exercise with its
// design, check and solution), the playground page loads
// play/playground.js, and, when engine is set, the engine's files are
// there. It reports every problem it finds.
func Check(dir string, engine bool) error {
	pages := make(map[string]*parsedPage)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".html" {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pages[filepath.ToSlash(rel)] = parsePage(data)
		return nil
	})
	if err != nil {
		return err
	}
	if len(pages) == 0 {
		return fmt.Errorf("%s: no pages", dir)
	}
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)

	var errs []error
	fail := func(page, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", page, fmt.Sprintf(format, args...)))
	}
	exists := func(name string) bool {
		info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(name)))
		return err == nil && !info.IsDir()
	}
	for _, name := range names {
		pg := pages[name]
		if len(pg.nav) == 0 {
			fail(name, "no site navigation")
		}
		for _, link := range pg.nav {
			if target, _, ok := resolve(name, link); !ok || pages[target] == nil {
				fail(name, "the navigation lists %q, which is not a page of the site", link)
			}
		}
		for _, link := range pg.links {
			u, err := url.Parse(link)
			if err != nil {
				fail(name, "link %q: %v", link, err)
				continue
			}
			if u.Scheme != "" || u.Host != "" {
				continue
			}
			if strings.HasPrefix(u.Path, "/") {
				fail(name, "link %q starts at the host's root; the site must work from a folder", link)
				continue
			}
			target, frag, _ := resolve(name, link)
			if !exists(target) {
				fail(name, "link %q: %s does not exist", link, target)
				continue
			}
			if frag == "" {
				continue
			}
			if t := pages[target]; t == nil || !t.ids[frag] {
				fail(name, "link %q: no id %q in %s", link, frag, target)
			}
		}
		if pg.runs > 0 && !loads(name, pg, "play/examples.js") {
			fail(name, "has %d run examples but does not load play/examples.js as a module", pg.runs)
		}
		if pg.exercises > 0 && !loads(name, pg, "play/examples.js") {
			fail(name, "has %d exercises but does not load play/examples.js as a module", pg.exercises)
		}
		if pg.exerciseParts != 4*pg.exercises {
			fail(name, "its %d exercises lack parts: each needs textarea.exercise-source, pre.exercise-check, details.exercise-solution and textarea.exercise-solution-source", pg.exercises)
		}
		if pg.mount && !loads(name, pg, "play/playground.js") {
			fail(name, "has the playground's mount point but does not load play/playground.js")
		}
	}
	if engine {
		for _, f := range EngineFiles {
			if !exists(f) {
				errs = append(errs, fmt.Errorf("%s is missing", f))
			}
		}
	}
	return errors.Join(errs...)
}

// loads reports whether pg, at name, loads file as a module script.
func loads(name string, pg *parsedPage, file string) bool {
	for _, src := range pg.modules {
		if target, _, ok := resolve(name, src); ok && target == file {
			return true
		}
	}
	return false
}

// resolve turns link, as written in the page at name, into the path of
// its target under the site's root and its fragment. A link to the page
// itself ("#x") resolves to name; a folder to its index.html.
func resolve(name, link string) (target, fragment string, ok bool) {
	u, err := url.Parse(link)
	if err != nil {
		return "", "", false
	}
	if u.Path == "" {
		return name, u.Fragment, true
	}
	target = path.Join(path.Dir(name), u.Path)
	if strings.HasSuffix(u.Path, "/") {
		target += "/index.html"
	}
	target = strings.TrimPrefix(target, "./")
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", "", false
	}
	return target, u.Fragment, true
}

// parsePage reads ids, links and scripts from one page.
func parsePage(data []byte) *parsedPage {
	pg := &parsedPage{ids: make(map[string]bool)}
	z := html.NewTokenizer(bytes.NewReader(data))
	inNav := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return pg
		}
		tok := z.Token()
		if tt == html.EndTagToken {
			if tok.Data == "nav" && inNav > 0 {
				inNav--
			}
			continue
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		attr := func(name string) (string, bool) {
			for _, a := range tok.Attr {
				if a.Key == name {
					return a.Val, true
				}
			}
			return "", false
		}
		if id, ok := attr("id"); ok {
			pg.ids[id] = true
			if tok.Data == "div" && id == "playground" {
				pg.mount = true
			}
		}
		class, _ := attr("class")
		switch tok.Data {
		case "nav":
			if inNav > 0 || hasClass(class, "site-nav") {
				inNav++
			}
		case "figure":
			if hasClass(class, "run-example") {
				pg.runs++
			}
			if hasClass(class, "exercise") {
				pg.exercises++
			}
		case "textarea", "pre", "details":
			for _, part := range []string{"exercise-source", "exercise-check", "exercise-solution", "exercise-solution-source"} {
				if hasClass(class, part) {
					pg.exerciseParts++
				}
			}
		case "script":
			if src, ok := attr("src"); ok {
				pg.links = append(pg.links, src)
				if t, _ := attr("type"); t == "module" {
					pg.modules = append(pg.modules, src)
				}
			}
		case "a", "link", "img":
			v, ok := attr("href")
			if !ok {
				v, ok = attr("src")
			}
			if !ok {
				continue
			}
			pg.links = append(pg.links, v)
			if tok.Data == "a" && inNav > 0 {
				pg.nav = append(pg.nav, v)
			}
		}
	}
}

func hasClass(class, want string) bool {
	for _, c := range strings.Fields(class) {
		if c == want {
			return true
		}
	}
	return false
}
