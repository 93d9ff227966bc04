package site

import (
	"fmt"
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
	return chromahtml.New(chromahtml.WithClasses(true))
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
// heading ids, highlighted code, run blocks and the pattern map's place.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
			&frontmatter.Extender{},
			highlighting.NewHighlighting(
				highlighting.WithStyle(lightStyle),
				highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
			),
			RunBlocks{Highlight: highlight},
			PatternMaps{},
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
