package site

import (
	"fmt"
	"html/template"
	"net/url"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"
)

// Both palettes are written as CSS by chromaCSS; the HTML carries only
// class names, so the theme can change without rebuilding a page.
const (
	lightStyle = "github"
	darkStyle  = "github-dark"
)

func chromaFormatter() *chromahtml.Formatter {
	return chromahtml.New(chromaOptions...)
}

// chromaOptions write classes, not colours, and a code block a keyboard
// can reach: a long line scrolls the block sideways, and a reader without
// a mouse scrolls it once it has the focus.
var chromaOptions = []chromahtml.Option{chromahtml.WithClasses(true), chromahtml.WithPreWrapper(focusablePre{})}

// focusablePre is chroma's <pre><code> wrapper with tabindex="0".
type focusablePre struct{}

func (focusablePre) Start(code bool, styleAttr string) string {
	if code {
		return `<pre tabindex="0"` + styleAttr + `><code>`
	}
	return `<pre tabindex="0"` + styleAttr + `>`
}

func (focusablePre) End(code bool) string {
	if code {
		return `</code></pre>`
	}
	return `</pre>`
}

// highlight writes code as chroma's classed HTML, the same markup
// goldmark-highlighting gives ordinary fenced blocks.
func highlight(w util.BufWriter, language, code string) error {
	lexer := lexers.Get(language)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	tokens, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return err
	}
	return chromaFormatter().Format(w, styles.Get(lightStyle), tokens)
}

// newMarkdown returns the converter of content pages: GFM, front matter,
// heading ids, highlighted code, run blocks, exercises, entity charts and
// the pattern map's place.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
			&frontmatter.Extender{},
			highlighting.NewHighlighting(
				highlighting.WithStyle(lightStyle),
				highlighting.WithFormatOptions(chromaOptions...),
			),
			RunBlocks{Highlight: highlight},
			Exercises{Highlight: highlight},
			PatternMaps{},
			EntityCharts{},
		),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(pageTransformer{}, 200)),
		),
	)
}

// A Heading is a section of a page, for its table of contents and the
// search index.
type Heading struct {
	Level int    `json:"-"`
	Text  string `json:"text"`
	ID    string `json:"id"`
}

var (
	headingsKey  = parser.NewContextKey()
	linkErrorKey = parser.NewContextKey()
)

// pageTransformer collects the headings, gives each an anchor link, and
// points links to other Markdown pages at their HTML.
type pageTransformer struct{}

func (pageTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	var headings []Heading
	var linkErrs []string
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			id, ok := n.AttributeString("id")
			idb, isBytes := id.([]byte)
			if !ok || !isBytes {
				return ast.WalkContinue, nil
			}
			headings = append(headings, Heading{Level: n.Level, Text: plainText(n, source), ID: string(idb)})
			anchor := ast.NewLink()
			anchor.Destination = append([]byte("#"), idb...)
			anchor.SetAttributeString("class", []byte("anchor"))
			anchor.Title = []byte("Link to this section")
			anchor.AppendChild(anchor, ast.NewString([]byte("#")))
			n.AppendChild(n, anchor)
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			dest, err := pageLink(string(n.Destination))
			if err != nil {
				linkErrs = append(linkErrs, err.Error())
			}
			n.Destination = []byte(dest)
		}
		return ast.WalkContinue, nil
	})
	pc.Set(headingsKey, headings)
	pc.Set(linkErrorKey, linkErrs)
}

// pageLink turns a relative link to a Markdown page into the link to its
// HTML. A link from the site's root ("/x") would break on a host that
// serves the site from a folder, so it is an error.
func pageLink(dest string) (string, error) {
	u, err := url.Parse(dest)
	if err != nil {
		return dest, fmt.Errorf("link %q: %v", dest, err)
	}
	if u.Scheme != "" || u.Host != "" {
		return dest, nil
	}
	if strings.HasPrefix(u.Path, "/") {
		return dest, fmt.Errorf("link %q starts at the site's root: write it relative to the page", dest)
	}
	if strings.HasSuffix(u.Path, ".md") {
		u.Path = strings.TrimSuffix(u.Path, ".md") + ".html"
	}
	return u.String(), nil
}

// plainText is the text of n without markup, its code blocks left out.
func plainText(n ast.Node, source []byte) string {
	var prose, code strings.Builder
	writeSearchText(&prose, &code, n, source)
	return strings.TrimSpace(prose.String())
}

// inlineMarkdown renders a front matter's one-line Markdown (a summary):
// CommonMark alone, no raw HTML, so what it writes is safe to place.
var inlineMarkdown = goldmark.New()

// summaryHTML renders a summary's Markdown without the paragraph around it.
func summaryHTML(summary string) template.HTML {
	var b strings.Builder
	if err := inlineMarkdown.Convert([]byte(summary), &b); err != nil {
		return template.HTML(template.HTMLEscapeString(summary))
	}
	out := strings.TrimSpace(b.String())
	out = strings.TrimSuffix(strings.TrimPrefix(out, "<p>"), "</p>")
	return template.HTML(out)
}

// summaryText is a summary's text without its Markdown, for a meta
// description and the pattern map's titles.
func summaryText(summary string) string {
	src := []byte(summary)
	return plainText(inlineMarkdown.Parser().Parse(text.NewReader(src)), src)
}
