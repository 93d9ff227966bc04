package site

import (
	"bytes"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// KindRunBlock is the node kind of a runnable example.
var KindRunBlock = ast.NewNodeKind("RunBlock")

// Plans are the names a query plan has in the X-Tablelab-Plan header, the
// only names a run block may declare. "index" is the plan of a filter
// that Azure Cosmos DB for Table's index answers, so it appears only
// among a block's cosmos-plans.
var Plans = []string{"point", "range", "partition-scan", "table-scan", "index"}

// cosmosOnlyPlan is the plan only the Cosmos DB for Table profile reports.
const cosmosOnlyPlan = "index"

// A RunBlock is a fenced block marked `js run`: an example the page runs
// against the engine, with the output and plans it must produce.
type RunBlock struct {
	ast.BaseBlock

	// ID is the element id of the example, unique on its page.
	ID string
	// Language is the first word of the info string ("js").
	Language string
	// Source is the example's code.
	Source string
	// Plans lists the plan of each query the example makes, in order;
	// nil when the block declares none, empty when it declares plans=.
	Plans []string
	// Heat asks the page to show the partition heat panel under the
	// example (`js run heat`) even when no partition went past its target.
	Heat bool
	// Expected is the exact output the example prints, if HasExpected.
	Expected    string
	HasExpected bool
	// CosmosPlans and CosmosExpected are the plans and output of the same
	// code against Azure Cosmos DB for Table's profile, declared with
	// cosmos-plans=… and an `output cosmos` block after the output block.
	// A block with them gets a switch between the two services on the
	// page. CosmosPlans is nil when the block declares none.
	CosmosPlans    []string
	CosmosExpected string
	HasCosmos      bool
	// Line is the line of the opening fence in the Markdown file.
	Line int
}

// Kind implements ast.Node.
func (n *RunBlock) Kind() ast.NodeKind { return KindRunBlock }

// Dump implements ast.Node.
func (n *RunBlock) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{
		"ID":    n.ID,
		"Plans": strings.Join(n.Plans, ","),
		"Line":  strconv.Itoa(n.Line),
	}, nil)
}

// A SourceError is a mistake in a Markdown file, with where it is.
type SourceError struct {
	File string
	Line int
	Msg  string
}

func (e *SourceError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

var runErrorsKey = parser.NewContextKey()

// RunErrors returns the mistakes the run-block transformer found while
// parsing with pc, each with its line; the caller adds the file name.
func RunErrors(pc parser.Context) []*SourceError {
	errs, _ := pc.Get(runErrorsKey).([]*SourceError)
	return errs
}

func addRunError(pc parser.Context, line int, format string, args ...any) {
	errs := RunErrors(pc)
	pc.Set(runErrorsKey, append(errs, &SourceError{Line: line, Msg: fmt.Sprintf(format, args...)}))
}

// runTransformer swaps each `js run` fenced block, and the `output` block
// right after it, for one RunBlock. It is a transformer rather than a
// renderer of fenced blocks because goldmark-highlighting already renders
// those, and a kind has one renderer.
type runTransformer struct{}

func (runTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	fences := fencedBlocks(doc)
	consumed := make(map[*ast.FencedCodeBlock]bool)
	runs := 0
	for _, f := range fences {
		lang, rest, isRun := runInfo(f, source)
		if !isRun {
			continue
		}
		rb := &RunBlock{Language: lang, Source: blockText(f, source), Line: fenceLine(f, source)}
		if err := rb.parseOptions(rest); err != nil {
			addRunError(pc, rb.Line, "%v", err)
		}
		if next, ok := f.NextSibling().(*ast.FencedCodeBlock); ok && isOutput(next, source, "") {
			rb.Expected, rb.HasExpected = blockText(next, source), true
			consumed[next] = true
			if cos, ok := next.NextSibling().(*ast.FencedCodeBlock); ok && isOutput(cos, source, "cosmos") {
				rb.CosmosExpected, rb.HasCosmos = blockText(cos, source), true
				consumed[cos] = true
				cos.Parent().RemoveChild(cos.Parent(), cos)
			}
			next.Parent().RemoveChild(next.Parent(), next)
		}
		switch {
		case rb.HasCosmos && rb.CosmosPlans == nil:
			addRunError(pc, rb.Line, "run block: an output cosmos block needs cosmos-plans=… in the run block")
		case !rb.HasCosmos && rb.CosmosPlans != nil:
			addRunError(pc, rb.Line, "run block: cosmos-plans=… needs an output cosmos block after the output block")
		}
		// The heading ids share the table, so an example never takes a
		// heading's id or the other way round.
		runs++
		rb.ID = string(pc.IDs().Generate([]byte("example-"+strconv.Itoa(runs)), KindRunBlock))
		f.Parent().ReplaceChild(f.Parent(), f, rb)
	}
	for _, f := range fences {
		if consumed[f] || infoWords(f, source)[0] != "output" {
			continue
		}
		switch {
		case isOutput(f, source, "cosmos"):
			addRunError(pc, fenceLine(f, source), "an output cosmos block must follow a js run block's output block")
		case !isOutput(f, source, ""):
			addRunError(pc, fenceLine(f, source), "an output block's only option is cosmos")
		default:
			addRunError(pc, fenceLine(f, source), "an output block must follow a js run block")
		}
	}
}

// fencedBlocks lists the fenced code blocks of doc in document order.
func fencedBlocks(doc ast.Node) []*ast.FencedCodeBlock {
	var fences []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if f, ok := n.(*ast.FencedCodeBlock); ok && entering {
			fences = append(fences, f)
		}
		return ast.WalkContinue, nil
	})
	return fences
}

// isOutput reports whether f is an output block: `output` alone when
// option is "", else `output <option>`.
func isOutput(f *ast.FencedCodeBlock, source []byte, option string) bool {
	words := infoWords(f, source)
	if option == "" {
		return len(words) == 1 && words[0] == "output"
	}
	return len(words) == 2 && words[0] == "output" && words[1] == option
}

// parseOptions reads what follows `js run` in the info string: plans=…,
// cosmos-plans=… and heat, in any order.
func (rb *RunBlock) parseOptions(words []string) error {
	for _, w := range words {
		if w == "heat" {
			rb.Heat = true
			continue
		}
		name, value, ok := strings.Cut(w, "=")
		var list *[]string
		switch {
		case ok && name == "plans":
			list = &rb.Plans
		case ok && name == "cosmos-plans":
			list = &rb.CosmosPlans
		default:
			return fmt.Errorf("run block: unknown option %q (plans=…, cosmos-plans=… and heat are known)", w)
		}
		*list = []string{}
		if value == "" {
			continue
		}
		for _, p := range strings.Split(value, ",") {
			if !isPlan(p) {
				return fmt.Errorf("run block: unknown plan %q (want one of %s)", p, strings.Join(Plans, ", "))
			}
			if p == cosmosOnlyPlan && name == "plans" {
				return fmt.Errorf("run block: plan %q is Cosmos DB for Table's, for cosmos-plans=, not plans=", p)
			}
			*list = append(*list, p)
		}
	}
	return nil
}

func isPlan(p string) bool {
	for _, known := range Plans {
		if p == known {
			return true
		}
	}
	return false
}

// runInfo reports whether f is a run block, and its language and options.
func runInfo(f *ast.FencedCodeBlock, source []byte) (lang string, options []string, ok bool) {
	words := infoWords(f, source)
	if len(words) < 2 || words[1] != "run" {
		return "", nil, false
	}
	return words[0], words[2:], true
}

// infoWords splits a fenced block's info string; it always has at least
// one word, "" when the block has no info string.
func infoWords(f *ast.FencedCodeBlock, source []byte) []string {
	if f.Info == nil {
		return []string{""}
	}
	words := strings.Fields(string(f.Info.Segment.Value(source)))
	if len(words) == 0 {
		return []string{""}
	}
	return words
}

func blockText(f *ast.FencedCodeBlock, source []byte) string {
	var b strings.Builder
	lines := f.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		b.Write(seg.Value(source))
	}
	return b.String()
}

// fenceLine is the 1-based line of f's opening fence: the line of its
// info string, or the line before its first line of code.
func fenceLine(f *ast.FencedCodeBlock, source []byte) int {
	switch {
	case f.Info != nil:
		return bytes.Count(source[:f.Info.Segment.Start], []byte("\n")) + 1
	case f.Lines().Len() > 0:
		return bytes.Count(source[:f.Lines().At(0).Start], []byte("\n"))
	}
	return 0
}

// A Highlighter writes code as highlighted HTML.
type Highlighter func(w util.BufWriter, language, code string) error

// runRenderer writes a RunBlock as the HTML the example runner enhances:
// highlighted code that reads without JavaScript, and the raw source,
// expected output and plans for the runner.
type runRenderer struct {
	highlight Highlighter
}

func (r runRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindRunBlock, r.render)
}

func (r runRenderer) render(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	rb := node.(*RunBlock)
	fmt.Fprintf(w, `<figure class="run-example" id="%s"`, html.EscapeString(rb.ID))
	if rb.Plans != nil {
		fmt.Fprintf(w, ` data-plans="%s"`, html.EscapeString(strings.Join(rb.Plans, ",")))
	}
	if rb.Heat {
		w.WriteString(` data-heat=""`)
	}
	if rb.HasCosmos {
		fmt.Fprintf(w, ` data-cosmos-plans="%s"`, html.EscapeString(strings.Join(rb.CosmosPlans, ",")))
	}
	w.WriteString(">\n<div class=\"run-code\">")
	if err := r.highlight(w, rb.Language, rb.Source); err != nil {
		return ast.WalkStop, err
	}
	w.WriteString("</div>\n<textarea class=\"run-source\" hidden>")
	writePreserved(w, rb.Source)
	w.WriteString("</textarea>\n")
	if rb.HasExpected {
		w.WriteString(`<pre class="run-expected" hidden>`)
		writePreserved(w, rb.Expected)
		w.WriteString("</pre>\n")
	}
	if rb.HasCosmos {
		w.WriteString(`<pre class="run-expected-cosmos" hidden>`)
		writePreserved(w, rb.CosmosExpected)
		w.WriteString("</pre>\n")
	}
	w.WriteString("<div class=\"run-output\" aria-live=\"polite\"></div>\n</figure>\n")
	return ast.WalkSkipChildren, nil
}

// writePreserved escapes s for the content of a <textarea> or <pre>, whose
// first newline the HTML parser drops: one more keeps a leading blank line.
func writePreserved(w util.BufWriter, s string) {
	if strings.HasPrefix(s, "\n") {
		w.WriteByte('\n')
	}
	w.WriteString(html.EscapeString(s))
}

// RunBlocks is the goldmark extension for runnable examples.
type RunBlocks struct {
	// Highlight writes the example's code; it must be set.
	Highlight Highlighter
}

// Extend implements goldmark.Extender.
func (e RunBlocks) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(runTransformer{}, 100)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(runRenderer{highlight: e.Highlight}, 100)))
}
