package site

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tablelab/tablelab/site/sitehttp"
)

// The embed (site/embed) runs the site's examples on other sites' pages,
// inside a shadow root each, where neither the site's stylesheets nor
// the host page's reach. Its one stylesheet, dist/embed/tablelab-embed.css,
// is written here from the site's own, so the embed and the site share
// one palette and one set of rules:
//
//   - the palettes of style.css and play.css (their :root and
//     :root[data-theme="dark"] rules) on the embed's box, .tl and
//     .tl.tl-dark, each custom property open to the host page as
//     --tablelab-<name> (--bg: var(--tablelab-bg, #ffffff));
//   - the rules of style.css that the examples' parts use (embedRules);
//   - play.css, without its palettes;
//   - site/embed/embed.css, the embed's own rules.

// embedCSSSource is the embed's own stylesheet, read by the build rather
// than copied.
const embedCSSSource = "embed.css"

// embedRules are the selectors of style.css's rules that an example's
// parts use: its links and focus rings, the output, plan badges, the
// scorecards' tables, the keyspace map's hidden summary.
var embedRules = []string{
	"*, *::before, *::after",
	"a",
	":focus-visible",
	".visually-hidden",
	"code",
	"table",
	"th, td",
	"th",
	".run-output:empty",
	".run-output",
	".plan",
	".plan-point",
	".plan-range",
	".plan-partition-scan",
	".plan-table-scan",
	".plan-index",
}

// The selectors of the palettes, light and dark.
const (
	lightPalette = ":root"
	darkPalette  = `:root[data-theme="dark"]`
)

// writeEmbed writes dist/embed/ from site/embed: its modules as they are,
// and tablelab-embed.css made from the site's stylesheets and the embed's
// own. A site without site/embed has no embed.
func writeEmbed(root, out string) error {
	src := filepath.Join(root, "site", "embed")
	if _, err := os.Stat(src); err != nil {
		return nil
	}
	if err := copyTree(src, filepath.Join(out, "embed"), embedCSSSource); err != nil {
		return err
	}
	css, err := embedCSS(root)
	if err != nil {
		return fmt.Errorf("embed: %w", err)
	}
	return writeFile(filepath.Join(out, "embed", "tablelab-embed.css"), css)
}

// embedCSS makes the embed's stylesheet from the site's.
func embedCSS(root string) ([]byte, error) {
	read := func(parts ...string) ([]cssRule, error) {
		b, err := os.ReadFile(filepath.Join(append([]string{root}, parts...)...))
		if err != nil {
			return nil, err
		}
		return splitCSS(string(b))
	}
	style, err := read("site", "static", "style.css")
	if err != nil {
		return nil, err
	}
	play, err := read("site", "play", "play.css")
	if err != nil {
		return nil, err
	}
	own, err := os.ReadFile(filepath.Join(root, "site", "embed", embedCSSSource))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString("/* tablelab's embed: written by the site build (build/site/embed.go) from site/static/style.css,\n   site/play/play.css and site/embed/embed.css. Every custom property is open to the host page as\n   --tablelab-<name>. */\n")
	for _, p := range []struct{ selector, box string }{{lightPalette, ".tl"}, {darkPalette, ".tl.tl-dark"}} {
		var decls []string
		for _, sheet := range [][]cssRule{style, play} {
			r, ok := findRule(sheet, p.selector)
			if !ok {
				return nil, fmt.Errorf("no %s rule in style.css or play.css", p.selector)
			}
			decls = append(decls, declarations(r.body)...)
		}
		b.WriteString(p.box + " {\n")
		for _, d := range decls {
			b.WriteString("  " + openToHost(d) + ";\n")
		}
		b.WriteString("}\n")
	}
	for _, sel := range embedRules {
		r, ok := findRule(style, sel)
		if !ok {
			return nil, fmt.Errorf("style.css has no rule %q, which the embed uses", sel)
		}
		b.WriteString(r.text + "\n")
	}
	for _, r := range play {
		// The palettes are on the box already; inside a shadow root
		// :root matches nothing.
		if strings.HasPrefix(r.prelude, ":root") || r.prelude == "@media (prefers-color-scheme: dark)" {
			continue
		}
		b.WriteString(r.text + "\n")
	}
	b.Write(own)
	return b.Bytes(), nil
}

// openToHost makes a custom property's declaration take the host page's
// --tablelab-<name> when it sets one: "--bg: #fff" becomes
// "--bg: var(--tablelab-bg, #fff)". Other declarations stay as they are.
func openToHost(decl string) string {
	name, value, ok := strings.Cut(decl, ":")
	name = strings.TrimSpace(name)
	if !ok || !strings.HasPrefix(name, "--") {
		return decl
	}
	return fmt.Sprintf("%s: var(--tablelab-%s, %s)", name, name[2:], strings.TrimSpace(value))
}

// A cssRule is one top-level statement of a stylesheet: a rule or an
// at-rule with its block.
type cssRule struct {
	prelude string // the selector or at-rule, comments dropped, spaces collapsed
	body    string // what the braces hold
	text    string // the statement as written
}

// findRule returns the first rule of rules whose selector is sel.
func findRule(rules []cssRule, sel string) (cssRule, bool) {
	for _, r := range rules {
		if r.prelude == sel {
			return r, true
		}
	}
	return cssRule{}, false
}

// splitCSS splits a stylesheet into its top-level statements. It knows
// comments, strings and nested blocks, enough for the site's own
// stylesheets, which it reads at build time.
func splitCSS(css string) ([]cssRule, error) {
	var rules []cssRule
	start, open, depth := 0, -1, 0
	for i := 0; i < len(css); i++ {
		switch c := css[i]; c {
		case '/':
			if strings.HasPrefix(css[i:], "/*") {
				end := strings.Index(css[i+2:], "*/")
				if end < 0 {
					return nil, fmt.Errorf("a comment at byte %d is not closed", i)
				}
				if depth == 0 && open < 0 && strings.TrimSpace(css[start:i]) == "" {
					start = i + 2 + end + 2 // a comment between rules belongs to none
				}
				i += 2 + end + 1
			}
		case '"', '\'':
			end := strings.IndexByte(css[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("a string at byte %d is not closed", i)
			}
			i += end + 1
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("a } at byte %d closes nothing", i)
			}
			if depth == 0 {
				rules = append(rules, cssRule{
					prelude: strings.Join(strings.Fields(stripComments(css[start:open])), " "),
					body:    css[open+1 : i],
					text:    strings.TrimSpace(css[start : i+1]),
				})
				start, open = i+1, -1
			}
		case ';':
			if depth == 0 {
				start = i + 1 // an @import or @charset: not kept
			}
		}
	}
	if depth != 0 || strings.TrimSpace(stripComments(css[start:])) != "" {
		return nil, fmt.Errorf("the stylesheet ends inside a rule")
	}
	return rules, nil
}

// declarations returns a block's declarations, comments dropped, each
// trimmed and without its semicolon.
func declarations(body string) []string {
	var out []string
	for _, d := range strings.Split(stripComments(body), ";") {
		if d = strings.Join(strings.Fields(d), " "); d != "" {
			out = append(out, d)
		}
	}
	return out
}

// stripComments removes /* … */ comments.
func stripComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			return s
		}
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return s[:i]
		}
		s = s[:i] + " " + s[i+2+j+2:]
	}
}

// writeHeaders writes _headers, the file in which Cloudflare Pages (and
// Netlify) read the headers to send with a path: the embed's files get
// what sitehttp sends with them, so that another origin's page can load
// them. Other hosts ignore it or serve it as a file: it holds nothing
// private.
func writeHeaders(out string) error {
	var b strings.Builder
	b.WriteString("# Written by the site build: what pages of other origins need to load the embed (see embed.html).\n")
	for _, dir := range sitehttp.CrossOriginDirs() {
		b.WriteString("/" + dir + "*\n")
		for _, h := range sitehttp.CrossOriginHeaders() {
			b.WriteString("  " + h[0] + ": " + h[1] + "\n")
		}
	}
	b.WriteString("/engine/app.wasm\n  Content-Type: application/wasm\n")
	return writeFile(filepath.Join(out, "_headers"), []byte(b.String()))
}
