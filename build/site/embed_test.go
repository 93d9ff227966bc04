package site

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The embed's stylesheet is the site's palettes on its box, open to the
// host page, the rules of style.css it names, play.css without its
// palettes, and its own rules last.
func TestEmbedCSS(t *testing.T) {
	root := writeTree(t, map[string]string{
		"site/static/style.css": `/* the site */
:root {
  color-scheme: light;
  --bg: #fff; /* the page */
  --font: system-ui, "Segoe UI", sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) { --bg: #000; }
}
:root[data-theme="dark"] { color-scheme: dark; --bg: #000; }
body { margin: 0; }
` + strings.Join(embedRuleFixtures(), "\n") + `
.site-header { content: "}"; }
`,
		"site/play/play.css": `:root { --ed-bg: #eee; }
@media (prefers-color-scheme: dark) { :root:not([data-theme="light"]) { --ed-bg: #111; } }
:root[data-theme="dark"] { --ed-bg: #111; }
.run-toolbar { display: flex; }
@media (max-width: 34rem) { .scorecard { font-size: 0.8rem; } }
`,
		"site/embed/embed.css":         ":host { all: initial; }\n",
		"site/embed/tablelab-embed.js": "export {};\n",
	})
	out := t.TempDir()
	if err := writeEmbed(root, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "embed", "tablelab-embed.css"))
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	for _, want := range []string{
		".tl {\n  color-scheme: light;\n  --bg: var(--tablelab-bg, #fff);\n  --font: var(--tablelab-font, system-ui, \"Segoe UI\", sans-serif);\n  --ed-bg: var(--tablelab-ed-bg, #eee);\n}\n",
		".tl.tl-dark {\n  color-scheme: dark;\n  --bg: var(--tablelab-bg, #000);\n  --ed-bg: var(--tablelab-ed-bg, #111);\n}\n",
		".plan-index { color: var(--plan-index); }\n",
		".run-toolbar { display: flex; }\n@media (max-width: 34rem) { .scorecard { font-size: 0.8rem; } }\n:host { all: initial; }\n",
	} {
		if !strings.Contains(css, want) {
			t.Errorf("tablelab-embed.css lacks\n%s\nin\n%s", want, css)
		}
	}
	for _, not := range []string{":root", "body", ".site-header", "prefers-color-scheme"} {
		if strings.Contains(css, not) {
			t.Errorf("tablelab-embed.css has %s:\n%s", not, css)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "embed", embedCSSSource)); err == nil {
		t.Error("embed.css copied beside the stylesheet made from it")
	}
	if _, err := os.Stat(filepath.Join(out, "embed", "tablelab-embed.js")); err != nil {
		t.Error(err)
	}

	// A rule the embed uses that style.css no longer has fails the build.
	os.WriteFile(filepath.Join(root, "site/static/style.css"), []byte(":root { --bg: #fff; }\n:root[data-theme=\"dark\"] { --bg: #000; }\n"), 0o644)
	if err := writeEmbed(root, t.TempDir()); err == nil || !strings.Contains(err.Error(), "style.css has no rule") {
		t.Errorf("a missing rule: %v", err)
	}
	// Without site/embed there is no embed, and no error.
	os.RemoveAll(filepath.Join(root, "site/embed"))
	if err := writeEmbed(root, t.TempDir()); err != nil {
		t.Error(err)
	}
}

// embedRuleFixtures is one rule for each selector the embed takes from
// style.css.
func embedRuleFixtures() []string {
	var rules []string
	for _, sel := range embedRules {
		name := strings.Trim(regexp.MustCompile(`[^a-z-]+`).ReplaceAllString(sel, "-"), "-")
		rules = append(rules, sel+" { color: var(--"+name+"); }")
	}
	return rules
}

func TestSplitCSS(t *testing.T) {
	rules, err := splitCSS(`@charset "utf-8";
/* a } in a comment */ a { content: "}"; }
@media (min-width: 1px) { b { c: d; } }
e,
  f { g: h }`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rules {
		got = append(got, r.prelude)
	}
	if want := []string{"a", "@media (min-width: 1px)", "e, f"}; !slices.Equal(got, want) {
		t.Errorf("preludes %q, want %q", got, want)
	}
	if rules[1].text != "@media (min-width: 1px) { b { c: d; } }" || rules[0].body != ` content: "}"; ` {
		t.Errorf("rules %#v", rules)
	}
	for _, bad := range []string{"a { b: c;", "a { b: c; } }", "/* open", `a { content: "x }`, "a { } b"} {
		if _, err := splitCSS(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The repository's own embed stylesheet opens every palette property to
// the host page and takes every rule it names from style.css.
func TestRepositoryEmbedCSS(t *testing.T) {
	if _, err := os.Stat(filepath.Join(repoRoot, "site", "embed")); err != nil {
		t.Skip("no site/embed in this checkout")
	}
	b, err := embedCSS(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	css := string(b)
	for _, name := range []string{"bg", "fg", "link", "font", "mono", "plan-range", "ed-bg", "syn-keyword"} {
		if !strings.Contains(css, "--"+name+": var(--tablelab-"+name+", ") {
			t.Errorf("--%s is not open to the host page", name)
		}
	}
	if !strings.Contains(css, "--radius: var(--tablelab-radius, 6px)") {
		t.Error("no --radius on the box")
	}
}

// _headers gives the embed's folders what sitehttp sends with them.
func TestHeadersFile(t *testing.T) {
	out := t.TempDir()
	if err := writeHeaders(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "_headers"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"/embed/*", "/play/*", "/engine/*"} {
		want := dir + "\n  Access-Control-Allow-Origin: *\n  Cross-Origin-Resource-Policy: cross-origin\n"
		if !strings.Contains(string(b), want) {
			t.Errorf("_headers lacks\n%s\nin\n%s", want, b)
		}
	}
	if !strings.Contains(string(b), "/engine/app.wasm\n  Content-Type: application/wasm\n") {
		t.Errorf("_headers:\n%s", b)
	}
}
