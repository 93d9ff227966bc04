package site

import (
	"bytes"
	"fmt"
	"html"
	htmltemplate "html/template"
	"path"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// PatternDir is the folder of content/ whose pages the pattern map draws.
const PatternDir = "patterns"

// mapMarker stands in a rendered page for the pattern map until every
// page has been read and the map can be drawn.
const mapMarker = "<!--pattern-map-->"

// KindMapBlock is the node kind of a ```pattern-map block.
var KindMapBlock = ast.NewNodeKind("MapBlock")

// A MapBlock is where a page shows the pattern map: an empty fenced block
// whose info string is "pattern-map".
type MapBlock struct{ ast.BaseBlock }

// Kind implements ast.Node.
func (n *MapBlock) Kind() ast.NodeKind { return KindMapBlock }

// Dump implements ast.Node.
func (n *MapBlock) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// PatternMaps is the goldmark extension for ```pattern-map blocks.
type PatternMaps struct{}

// Extend implements goldmark.Extender.
func (PatternMaps) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(mapTransformer{}, 100)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(mapRenderer{}, 100)))
}

type mapTransformer struct{}

func (mapTransformer) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	for _, f := range fencedBlocks(doc) {
		if infoWords(f, reader.Source())[0] != "pattern-map" {
			continue
		}
		f.Parent().ReplaceChild(f.Parent(), f, &MapBlock{})
	}
}

type mapRenderer struct{}

func (mapRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindMapBlock, func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString("<figure class=\"pattern-map\">" + mapMarker + "</figure>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

// drawPatternMaps puts the pattern map into every page that asked for
// one, drawn from all the pages.
func drawPatternMaps(pages []*Page) {
	for _, p := range pages {
		if strings.Contains(string(p.Body), mapMarker) {
			// The map is escaped as it is written, like goldmark's output.
			p.Body = htmltemplate.HTML(strings.ReplaceAll(string(p.Body), mapMarker, string(PatternMap(pages, p))))
		}
	}
}

// The map's geometry, in SVG user units: a row a pattern, its label in a
// box, and each relation an arc on the left between the two rows, wider
// the further apart they are. An arc diagram draws any number of pages
// with no crossing labels, and reads at a phone's width.
const (
	rowHeight = 36
	boxHeight = 28
	arcStep   = 14 // how much wider an arc gets per row it spans
	arcMax    = 150
	charWidth = 8.4 // a generous width of one character of the label
	padding   = 8
)

// PatternMap draws the pages under PatternDir (except the page showing
// the map) as an SVG arc diagram: a node a page, in navigation order,
// each a link to its page; an arc for each pair of them one names the
// other in its related list. Links are written relative to from. The
// same pages give the same bytes.
func PatternMap(pages []*Page, from *Page) []byte {
	var nodes []*Page
	for _, p := range pages {
		if path.Dir(p.Src) == PatternDir && p != from {
			nodes = append(nodes, p)
		}
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		if nodes[i].Order != nodes[j].Order {
			return nodes[i].Order < nodes[j].Order
		}
		return nodes[i].Src < nodes[j].Src
	})
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.Src] = i
	}
	type edge struct{ a, b int }
	seen := make(map[edge]bool)
	var edges []edge
	for i, n := range nodes {
		for _, r := range n.Related {
			j, ok := index[r]
			if !ok || j == i {
				continue
			}
			e := edge{min(i, j), max(i, j)}
			if !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].a != edges[j].a {
			return edges[i].a < edges[j].a
		}
		return edges[i].b < edges[j].b
	})

	longest := 0
	for _, n := range nodes {
		longest = max(longest, len([]rune(n.Title)))
	}
	span := 0
	for _, e := range edges {
		span = max(span, e.b-e.a)
	}
	x0 := padding + min(arcMax, 10+arcStep*span)
	if len(edges) == 0 {
		x0 = padding + 10
	}
	width := x0 + 12 + int(float64(longest)*charWidth) + 2*padding
	height := max(1, len(nodes))*rowHeight + padding
	y := func(i int) int { return padding + i*rowHeight + boxHeight/2 }

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg class="pattern-map-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="group" aria-label="The patterns and how they relate: %d patterns, %d relations">`, width, height, width, height, len(nodes), len(edges))
	b.WriteString("\n")
	if len(nodes) == 0 {
		fmt.Fprintf(&b, `<text class="pm-empty" x="%d" y="%d">No pattern pages yet.</text>`+"\n", padding, y(0))
	}
	for _, e := range edges {
		bulge := min(arcMax, 10+arcStep*(e.b-e.a))
		ya, yb := y(e.a), y(e.b)
		fmt.Fprintf(&b, `<path class="pm-arc" data-from="%s" data-to="%s" d="M%d %d C%d %d %d %d %d %d"><title>%s — %s</title></path>`+"\n",
			attr(nodes[e.a].Src), attr(nodes[e.b].Src), x0, ya, x0-bulge, ya, x0-bulge, yb, x0, yb,
			html.EscapeString(nodes[e.a].Title), html.EscapeString(nodes[e.b].Title))
	}
	root := ""
	if from != nil {
		root = from.Root
	}
	for i, n := range nodes {
		class := "pm-node"
		if strings.HasSuffix(strings.TrimSuffix(path.Base(n.Src), ".md"), "anti-pattern") {
			class += " pm-anti"
		}
		top := padding + i*rowHeight
		fmt.Fprintf(&b, `<a class="%s" href="%s" data-src="%s">`, class, attr(root+n.URL), attr(n.Src))
		if n.Summary != "" {
			fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(n.Summary))
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" rx="6"></rect>`, x0, top, width-x0-padding, boxHeight)
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4"></circle>`, x0, y(i))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text></a>`+"\n", x0+12, y(i)+5, html.EscapeString(n.Title))
	}
	b.WriteString("</svg>")
	return b.Bytes()
}

func attr(s string) string { return html.EscapeString(s) }
