package site

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// KindEntityChart is the node kind of an ```entity-chart block.
var KindEntityChart = ast.NewNodeKind("EntityChart")

// An EntityChart is a fenced block whose info string is "entity-chart",
// drawn at build time as an SVG: a box for each kind of entity with its
// properties, and a line for each relationship with its cardinality at
// both ends. The body lists the entities, one a line,
//
//	Channel: workspace, name, private
//
// then the relationships, one a line, with an optional label:
//
//	Channel 1-n Message: holds
//
// where the cardinality is 1-1, 1-n or n-n. The info string may set the
// number of columns the boxes are laid out in, left to right and top to
// bottom in the order listed: ```entity-chart cols=2 (2 when left out).
type EntityChart struct {
	ast.BaseBlock

	Cols      int
	Entities  []ChartEntity
	Relations []ChartRelation
	// Title names the chart for a screen reader.
	Title string
}

// A ChartEntity is one kind of entity and its properties.
type ChartEntity struct {
	Name       string
	Properties []string
}

// A ChartRelation joins two entities: From's side has FromCard ("1" or
// "n"), To's side ToCard.
type ChartRelation struct {
	From, To         string
	FromCard, ToCard string
	Label            string
}

// Kind implements ast.Node.
func (n *EntityChart) Kind() ast.NodeKind { return KindEntityChart }

// Dump implements ast.Node.
func (n *EntityChart) Dump(source []byte, level int) { ast.DumpHelper(n, source, level, nil, nil) }

// EntityCharts is the goldmark extension for ```entity-chart blocks.
type EntityCharts struct{}

// Extend implements goldmark.Extender.
func (EntityCharts) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(chartTransformer{}, 100)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(chartRenderer{}, 100)))
}

type chartTransformer struct{}

func (chartTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	for _, f := range fencedBlocks(doc) {
		if infoWords(f, source)[0] != "entity-chart" {
			continue
		}
		chart, err := parseEntityChart(infoWords(f, source)[1:], blockText(f, source))
		if err != nil {
			addRunError(pc, fenceLine(f, source), "entity chart: %v", err)
			continue
		}
		if err := chart.layout().check(); err != nil {
			addRunError(pc, fenceLine(f, source), "entity chart: %v", err)
			continue
		}
		f.Parent().ReplaceChild(f.Parent(), f, chart)
	}
}

// parseEntityChart reads a chart's options and body.
func parseEntityChart(options []string, body string) (*EntityChart, error) {
	c := &EntityChart{Cols: 2}
	for _, o := range options {
		name, value, _ := strings.Cut(o, "=")
		n, err := strconv.Atoi(value)
		if name != "cols" || err != nil || n < 1 || n > 4 {
			return nil, fmt.Errorf("unknown option %q (cols=1 to cols=4 is known)", o)
		}
		c.Cols = n
	}
	index := make(map[string]bool)
	for i, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		head, rest, hasColon := strings.Cut(line, ":")
		words := strings.Fields(head)
		switch {
		case len(words) == 1 && hasColon:
			if len(c.Relations) > 0 {
				return nil, fmt.Errorf("line %d: entity %s after the relationships: list the entities first", i+1, words[0])
			}
			if !isChartName(words[0]) || index[words[0]] {
				return nil, fmt.Errorf("line %d: %q is not a new entity name (letters and digits)", i+1, words[0])
			}
			index[words[0]] = true
			e := ChartEntity{Name: words[0]}
			for _, p := range strings.Split(rest, ",") {
				if p = strings.TrimSpace(p); p != "" {
					e.Properties = append(e.Properties, p)
				}
			}
			c.Entities = append(c.Entities, e)
		case len(words) == 3:
			from, to := words[0], words[2]
			card, ok := map[string][2]string{"1-1": {"1", "1"}, "1-n": {"1", "n"}, "n-n": {"n", "n"}}[words[1]]
			if !ok {
				return nil, fmt.Errorf("line %d: cardinality %q is none of 1-1, 1-n, n-n", i+1, words[1])
			}
			for _, name := range []string{from, to} {
				if !index[name] {
					return nil, fmt.Errorf("line %d: %s is not an entity listed above", i+1, name)
				}
			}
			if from == to {
				return nil, fmt.Errorf("line %d: a relationship of %s with itself cannot be drawn", i+1, from)
			}
			c.Relations = append(c.Relations, ChartRelation{From: from, To: to, FromCard: card[0], ToCard: card[1], Label: strings.TrimSpace(rest)})
		default:
			return nil, fmt.Errorf("line %d: %q is neither \"Entity: properties\" nor \"Entity 1-n Entity: label\"", i+1, line)
		}
	}
	if len(c.Entities) == 0 {
		return nil, fmt.Errorf("no entities")
	}
	var parts []string
	for _, r := range c.Relations {
		parts = append(parts, r.sentence())
	}
	c.Title = fmt.Sprintf("Entity chart: %d kinds of entity, %d relationships", len(c.Entities), len(c.Relations))
	if len(parts) > 0 {
		c.Title += ". " + strings.Join(parts, "; ") + "."
	}
	return c, nil
}

func isChartName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// sentence says a relationship in words: "each Channel has many Message".
func (r ChartRelation) sentence() string {
	many := map[string]string{"1": "one", "n": "many"}
	s := fmt.Sprintf("%s to %s is %s to %s", r.From, r.To, many[r.FromCard], many[r.ToCard])
	if r.Label != "" {
		s += " (" + r.Label + ")"
	}
	return s
}

// The chart's geometry, in SVG user units.
const (
	chartChar    = 7.8 // a generous width of one character at the chart's size
	chartBold    = 9.6 // the same for the bold name
	chartLine    = 20  // a property's line
	chartHead    = 28  // the box's title line
	chartPadX    = 12
	chartGapX    = 96 // between columns, room for a line's labels
	chartGapY    = 64
	chartMargin  = 8
	chartCardOff = 16 // how far from a box its cardinality sits along the line
)

type chartBox struct {
	x, y, w, h float64
}

func (b chartBox) center() (float64, float64) { return b.x + b.w/2, b.y + b.h/2 }

// A chartLayout places each entity in a grid cell.
type chartLayout struct {
	chart         *EntityChart
	boxes         map[string]chartBox
	width, height float64
}

func (c *EntityChart) layout() *chartLayout {
	l := &chartLayout{chart: c, boxes: make(map[string]chartBox)}
	cellW := 0.0
	rows := (len(c.Entities) + c.Cols - 1) / c.Cols
	rowH := make([]float64, rows)
	for i, e := range c.Entities {
		// The name is set in bold, wider than the properties' letters.
		wide := float64(len([]rune(e.Name))) * chartBold
		for _, p := range e.Properties {
			wide = max(wide, float64(len([]rune(p)))*chartChar)
		}
		cellW = max(cellW, wide+2*chartPadX)
		h := chartHead + float64(len(e.Properties))*chartLine + 8
		rowH[i/c.Cols] = max(rowH[i/c.Cols], h)
	}
	cellW = math.Ceil(cellW)
	y := float64(chartMargin)
	tops := make([]float64, rows)
	for r := range rows {
		tops[r] = y
		y += rowH[r] + chartGapY
	}
	for i, e := range c.Entities {
		col, row := i%c.Cols, i/c.Cols
		h := chartHead + float64(len(e.Properties))*chartLine + 8
		l.boxes[e.Name] = chartBox{x: chartMargin + float64(col)*(cellW+chartGapX), y: tops[row], w: cellW, h: h}
	}
	cols := min(c.Cols, len(c.Entities))
	l.width = 2*chartMargin + float64(cols)*cellW + float64(cols-1)*chartGapX
	l.height = y - chartGapY + chartMargin
	return l
}

// ends is where a relationship's line leaves and reaches its boxes: the
// line between their centres, cut at each box's border.
func (l *chartLayout) ends(r ChartRelation) (x1, y1, x2, y2 float64) {
	a, b := l.boxes[r.From], l.boxes[r.To]
	ax, ay := a.center()
	bx, by := b.center()
	x1, y1 = clip(a, ax, ay, bx, by)
	x2, y2 = clip(b, bx, by, ax, ay)
	return
}

// clip is where the segment from (cx, cy), the centre of b, towards
// (tx, ty) leaves b.
func clip(b chartBox, cx, cy, tx, ty float64) (float64, float64) {
	dx, dy := tx-cx, ty-cy
	t := math.Inf(1)
	if dx != 0 {
		t = min(t, (b.w/2)/math.Abs(dx))
	}
	if dy != 0 {
		t = min(t, (b.h/2)/math.Abs(dy))
	}
	return cx + dx*t, cy + dy*t
}

// check refuses a layout where a relationship's line crosses a box other
// than its two, which would read as a line to that box.
func (l *chartLayout) check() error {
	for _, r := range l.chart.Relations {
		x1, y1, x2, y2 := l.ends(r)
		for _, e := range l.chart.Entities {
			if e.Name == r.From || e.Name == r.To {
				continue
			}
			if crosses(l.boxes[e.Name], x1, y1, x2, y2) {
				return fmt.Errorf("the line from %s to %s crosses %s: list the entities in another order or change cols=", r.From, r.To, e.Name)
			}
		}
	}
	return nil
}

// crosses reports whether the segment passes through b (with a margin),
// by sampling it: the chart is small, and exactness does not matter.
func crosses(b chartBox, x1, y1, x2, y2 float64) bool {
	const steps = 200
	for i := 0; i <= steps; i++ {
		t := float64(i) / steps
		x, y := x1+(x2-x1)*t, y1+(y2-y1)*t
		if x > b.x-4 && x < b.x+b.w+4 && y > b.y-4 && y < b.y+b.h+4 {
			return true
		}
	}
	return false
}

type chartRenderer struct{}

func (chartRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindEntityChart, func(w util.BufWriter, _ []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(`<figure class="entity-chart">`)
			w.Write(n.(*EntityChart).SVG())
			w.WriteString("</figure>\n")
		}
		return ast.WalkSkipChildren, nil
	})
}

// SVG draws the chart. The same chart gives the same bytes.
func (c *EntityChart) SVG() []byte {
	l := c.layout()
	num := func(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg class="entity-chart-svg" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s">`,
		num(l.width), num(l.height), num(l.width), num(l.height), html.EscapeString(c.Title))
	b.WriteString("\n")
	for _, r := range c.Relations {
		x1, y1, x2, y2 := l.ends(r)
		fmt.Fprintf(&b, `<g class="ec-rel" data-from="%s" data-to="%s"><title>%s</title>`, r.From, r.To, html.EscapeString(r.sentence()))
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s"></line>`, num(x1), num(y1), num(x2), num(y2))
		length := math.Hypot(x2-x1, y2-y1)
		ux, uy := (x2-x1)/length, (y2-y1)/length
		// The cardinalities sit beside the line near each box, on the
		// side away from it, the label at its middle.
		px, py := -uy, ux
		if py > 0 || (py == 0 && px > 0) {
			px, py = -px, -py
		}
		card := func(x, y float64, s string) {
			fmt.Fprintf(&b, `<text class="ec-card" x="%s" y="%s" text-anchor="middle">%s</text>`, num(x+px*9), num(y+py*9+4), s)
		}
		card(x1+ux*chartCardOff, y1+uy*chartCardOff, r.FromCard)
		card(x2-ux*chartCardOff, y2-uy*chartCardOff, r.ToCard)
		if r.Label != "" {
			// The label sits on the other side of the line from the
			// cardinalities, starting beside a steep line rather than
			// centred over it.
			anchor := "middle"
			switch {
			case -px > 0.5:
				anchor = "start"
			case -px < -0.5:
				anchor = "end"
			}
			fmt.Fprintf(&b, `<text class="ec-label" x="%s" y="%s" text-anchor="%s">%s</text>`, num((x1+x2)/2-px*8), num((y1+y2)/2-py*8+4), anchor, html.EscapeString(r.Label))
		}
		b.WriteString("</g>\n")
	}
	for _, e := range c.Entities {
		box := l.boxes[e.Name]
		fmt.Fprintf(&b, `<g class="ec-entity" data-name="%s">`, e.Name)
		fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" rx="6"></rect>`, num(box.x), num(box.y), num(box.w), num(box.h))
		fmt.Fprintf(&b, `<line class="ec-rule" x1="%s" y1="%s" x2="%s" y2="%s"></line>`, num(box.x), num(box.y+chartHead), num(box.x+box.w), num(box.y+chartHead))
		fmt.Fprintf(&b, `<text class="ec-name" x="%s" y="%s">%s</text>`, num(box.x+chartPadX), num(box.y+19), html.EscapeString(e.Name))
		for i, p := range e.Properties {
			fmt.Fprintf(&b, `<text class="ec-prop" x="%s" y="%s">%s</text>`, num(box.x+chartPadX), num(box.y+chartHead+float64(i+1)*chartLine-5), html.EscapeString(p))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>")
	return b.Bytes()
}
