package site

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

func renderChart(t *testing.T, md string) (string, []*SourceError) {
	t.Helper()
	m := newMarkdown()
	pc := parser.NewContext()
	src := []byte(md)
	doc := m.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	var out bytes.Buffer
	if err := m.Renderer().Render(&out, src, doc); err != nil {
		t.Fatal(err)
	}
	return out.String(), RunErrors(pc)
}

func TestEntityChart(t *testing.T) {
	html, errs := renderChart(t, "Before.\n\n```entity-chart cols=2\nChannel: workspace, name\nMessage: posted, author, text <b>\nUser: id, name\nMembership: channel, user\nChannel 1-n Message: holds\nChannel 1-n Membership\nUser 1-n Membership\n```\n\nAfter.\n")
	if len(errs) > 0 {
		t.Fatalf("errors: %v", errs[0])
	}
	if strings.Contains(html, "<pre") || !strings.Contains(html, `<figure class="entity-chart"><svg class="entity-chart-svg"`) {
		t.Fatalf("the block was not drawn as a chart:\n%s", html)
	}
	names := regexp.MustCompile(`<g class="ec-entity" data-name="(\w+)">`).FindAllStringSubmatch(html, -1)
	var got []string
	for _, n := range names {
		got = append(got, n[1])
	}
	if strings.Join(got, " ") != "Channel Message User Membership" {
		t.Errorf("entities %q", got)
	}
	rels := regexp.MustCompile(`<g class="ec-rel" data-from="(\w+)" data-to="(\w+)">`).FindAllStringSubmatch(html, -1)
	if len(rels) != 3 {
		t.Errorf("%d relationships drawn, want 3", len(rels))
	}
	for _, want := range []string{
		`>text &lt;b&gt;</text>`,
		`aria-label="Entity chart: 4 kinds of entity, 3 relationships. Channel to Message is one to many (holds); Channel to Membership is one to many; User to Membership is one to many."`,
		`class="ec-label"`, `>holds</text>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the chart lacks %s", want)
		}
	}
	// Two columns: Message sits right of Channel, User below it.
	box := func(name string) (string, string) {
		m := regexp.MustCompile(`data-name="` + name + `"><rect x="([\d.]+)" y="([\d.]+)"`).FindStringSubmatch(html)
		if m == nil {
			t.Fatalf("no box for %s", name)
		}
		return m[1], m[2]
	}
	cx, cy := box("Channel")
	mx, my := box("Message")
	ux, uy := box("User")
	if cy != my || cx == mx || ux != cx || uy == cy {
		t.Errorf("layout: Channel %s,%s Message %s,%s User %s,%s", cx, cy, mx, my, ux, uy)
	}
	again, _ := renderChart(t, "```entity-chart cols=2\nChannel: workspace, name\nMessage: posted, author, text <b>\nUser: id, name\nMembership: channel, user\nChannel 1-n Message: holds\nChannel 1-n Membership\nUser 1-n Membership\n```\n")
	if !strings.Contains(html, again[strings.Index(again, "<svg"):]) {
		t.Error("the same chart drew different bytes")
	}
}

func TestEntityChartMistakes(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"```entity-chart\n```\n", "no entities"},
		{"```entity-chart rows=2\nA: x\n```\n", `unknown option "rows=2"`},
		{"```entity-chart\nA: x\nA: y\n```\n", `"A" is not a new entity name`},
		{"```entity-chart\nA: x\nB: y\nA 1-n C\n```\n", "C is not an entity listed above"},
		{"```entity-chart\nA: x\nB: y\nA 2-n B\n```\n", `cardinality "2-n"`},
		{"```entity-chart\nA: x\nB: y\nA 1-n B\nC: z\n```\n", "entity C after the relationships"},
		{"```entity-chart\nA: x\nB: y\nA 1-n A\n```\n", "with itself"},
		{"```entity-chart\nA: x\nsome plain prose here\n```\n", "is neither"},
		// Three in a row: the line from the first to the third crosses the second.
		{"```entity-chart cols=3\nA: x\nB: y\nC: z\nA 1-n C\n```\n", "the line from A to C crosses B"},
	} {
		_, errs := renderChart(t, "Text.\n\n"+c.body)
		if len(errs) != 1 || !strings.Contains(errs[0].Msg, c.want) || errs[0].Line != 3 {
			t.Errorf("%q: errors %v, want one at line 3 saying %q", c.body, errs, c.want)
		}
	}
}
