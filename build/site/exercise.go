package site

import (
	"bytes"
	"encoding/json"
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

// KindExercise is the node kind of an exercise.
var KindExercise = ast.NewNodeKind("Exercise")

// An Exercise is a task the page sets, graded by running: three fenced
// blocks in a row, ```js exercise (the design the reader starts from),
// ```js solution (a model answer) and ```json check (the task in a
// sentence and the access patterns with their budgets, read by
// site/play/grader.js in the page and in Node's tests).
type Exercise struct {
	ast.BaseBlock

	// ID is the element id of the exercise, unique on its page.
	ID string
	// Start is the design the reader starts from; Solution the model
	// answer.
	Start, Solution string
	// CheckJSON is the check block's text as written.
	CheckJSON string
	// Check is the check block, read.
	Check ExerciseCheck
	// Line is the line of the exercise's opening fence.
	Line int
}

// An ExerciseCheck is what an exercise asks: a task and the access
// patterns the reader's design must serve (grader.js documents each
// field).
type ExerciseCheck struct {
	Task     string         `json:"task"`
	Patterns []CheckPattern `json:"patterns"`
}

// A CheckPattern is one access pattern of a check: the expression that
// runs it, the answer it must give and what it may cost.
type CheckPattern struct {
	Name     string          `json:"name"`
	Run      string          `json:"run"`
	Expect   json.RawMessage `json:"expect,omitempty"`
	Order    string          `json:"order,omitempty"`
	Plan     string          `json:"plan,omitempty"`
	Examined *int            `json:"examined,omitempty"`
	Requests *int            `json:"requests,omitempty"`
	Written  *int            `json:"written,omitempty"`
	Bytes    *int            `json:"bytes,omitempty"`
	Hottest  *int            `json:"hottest,omitempty"`
	Hint     string          `json:"hint,omitempty"`
}

// Kind implements ast.Node.
func (n *Exercise) Kind() ast.NodeKind { return KindExercise }

// Dump implements ast.Node.
func (n *Exercise) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"ID": n.ID, "Line": strconv.Itoa(n.Line)}, nil)
}

// parseCheck reads a check block, refusing what grader.js's parseCheck
// refuses, so a page that builds is one the grader can read.
func parseCheck(text string) (ExerciseCheck, error) {
	var c ExerciseCheck
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("check: %v", err)
	}
	if dec.More() {
		return c, fmt.Errorf("check: text after the JSON object")
	}
	if strings.TrimSpace(c.Task) == "" {
		return c, fmt.Errorf("check: task must be a sentence")
	}
	if len(c.Patterns) == 0 {
		return c, fmt.Errorf("check: patterns must list at least one access pattern")
	}
	names := make(map[string]bool)
	for i, p := range c.Patterns {
		where := fmt.Sprintf("check: pattern %d", i+1)
		switch {
		case strings.TrimSpace(p.Name) == "":
			return c, fmt.Errorf("%s: name must be text", where)
		case names[p.Name]:
			return c, fmt.Errorf("%s: the name %q is used twice", where, p.Name)
		case strings.TrimSpace(p.Run) == "":
			return c, fmt.Errorf("%s (%s): run must be an expression", where, p.Name)
		case p.Order != "" && p.Order != "any":
			return c, fmt.Errorf("%s (%s): order is \"any\" or left out", where, p.Name)
		case p.Plan != "" && !isPlan(p.Plan):
			return c, fmt.Errorf("%s (%s): unknown plan %q (want one of %s)", where, p.Name, p.Plan, strings.Join(Plans, ", "))
		}
		for _, b := range []struct {
			name string
			v    *int
		}{{"examined", p.Examined}, {"requests", p.Requests}, {"written", p.Written}, {"bytes", p.Bytes}, {"hottest", p.Hottest}} {
			if b.v != nil && *b.v < 0 {
				return c, fmt.Errorf("%s (%s): %s must be at least 0", where, p.Name, b.name)
			}
		}
		names[p.Name] = true
	}
	return c, nil
}

// exerciseTransformer swaps each ```js exercise block, with the solution
// and check blocks after it, for one Exercise.
type exerciseTransformer struct{}

func (exerciseTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	source := reader.Source()
	fences := fencedBlocks(doc)
	consumed := make(map[*ast.FencedCodeBlock]bool)
	count := 0
	for _, f := range fences {
		if !isInfo(f, source, "js", "exercise") {
			continue
		}
		ex := &Exercise{Start: blockText(f, source), Line: fenceLine(f, source)}
		sol, ok := f.NextSibling().(*ast.FencedCodeBlock)
		if !ok || !isInfo(sol, source, "js", "solution") {
			addRunError(pc, ex.Line, "exercise: a ```js exercise block must be followed by its ```js solution block, then its ```json check block")
			continue
		}
		chk, ok := sol.NextSibling().(*ast.FencedCodeBlock)
		if !ok || !isInfo(chk, source, "json", "check") {
			addRunError(pc, ex.Line, "exercise: the ```js solution block must be followed by the exercise's ```json check block")
			continue
		}
		ex.Solution = blockText(sol, source)
		ex.CheckJSON = blockText(chk, source)
		consumed[sol], consumed[chk] = true, true
		check, err := parseCheck(ex.CheckJSON)
		if err != nil {
			addRunError(pc, fenceLine(chk, source), "%v", err)
			continue
		}
		ex.Check = check
		count++
		ex.ID = string(pc.IDs().Generate([]byte("exercise-"+strconv.Itoa(count)), KindExercise))
		parent := f.Parent()
		parent.RemoveChild(parent, sol)
		parent.RemoveChild(parent, chk)
		parent.ReplaceChild(parent, f, ex)
	}
	for _, f := range fences {
		if consumed[f] {
			continue
		}
		switch {
		case isInfo(f, source, "js", "solution"):
			addRunError(pc, fenceLine(f, source), "a ```js solution block must follow a ```js exercise block")
		case isInfo(f, source, "json", "check"):
			addRunError(pc, fenceLine(f, source), "a ```json check block must follow an exercise's ```js solution block")
		}
	}
}

// isInfo reports whether f's info string is exactly the words want.
func isInfo(f *ast.FencedCodeBlock, source []byte, want ...string) bool {
	words := infoWords(f, source)
	if len(words) != len(want) {
		return false
	}
	for i := range words {
		if words[i] != want[i] {
			return false
		}
	}
	return true
}

// exerciseRenderer writes an Exercise as the HTML examples.js enhances:
// the task, the starting design highlighted (and raw, for the editor),
// what Check asks of each access pattern, and the solution in a
// <details>, which a reader without JavaScript can open too.
type exerciseRenderer struct {
	highlight Highlighter
}

func (r exerciseRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindExercise, r.render)
}

func (r exerciseRenderer) render(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkContinue, nil
	}
	ex := node.(*Exercise)
	id := html.EscapeString(ex.ID)
	fmt.Fprintf(w, "<figure class=\"exercise\" id=\"%s\" aria-labelledby=\"%s-task\">\n", id, id)
	fmt.Fprintf(w, "<figcaption class=\"exercise-task\" id=\"%s-task\"><span class=\"exercise-label\">Exercise</span> %s</figcaption>\n", id, summaryHTML(ex.Check.Task))
	w.WriteString("<div class=\"run-code\">")
	if err := r.highlight(w, "js", ex.Start); err != nil {
		return ast.WalkStop, err
	}
	w.WriteString("</div>\n<textarea class=\"exercise-source\" hidden>")
	writePreserved(w, ex.Start)
	w.WriteString("</textarea>\n<pre class=\"exercise-check\" hidden>")
	writePreserved(w, ex.CheckJSON)
	w.WriteString("</pre>\n<div class=\"exercise-asks\">\n<p>Check runs these access patterns against your design:</p>\n<ul>\n")
	for _, p := range ex.Check.Patterns {
		fmt.Fprintf(w, "<li><strong>%s</strong>: %s</li>\n", html.EscapeString(p.Name), html.EscapeString(asks(p)))
	}
	w.WriteString("</ul>\n</div>\n<div class=\"exercise-output\" aria-live=\"polite\"></div>\n<details class=\"exercise-solution\">\n<summary>Show a solution</summary>\n<div class=\"run-code\">")
	if err := r.highlight(w, "js", ex.Solution); err != nil {
		return ast.WalkStop, err
	}
	w.WriteString("</div>\n<textarea class=\"exercise-solution-source\" hidden>")
	writePreserved(w, ex.Solution)
	w.WriteString("</textarea>\n</details>\n</figure>\n")
	return ast.WalkSkipChildren, nil
}

// planWords names a plan in the reader's words, as grader.js does.
var planWords = map[string]string{
	"point":          "a point read",
	"range":          "a range query",
	"index":          "Cosmos DB's index",
	"partition-scan": "a partition scan",
	"table-scan":     "a table scan",
}

// asks says in a sentence what Check holds one access pattern to.
func asks(p CheckPattern) string {
	var parts []string
	if p.Expect != nil {
		parts = append(parts, "the right answer")
	}
	if p.Plan != "" {
		s := "served by " + planWords[p.Plan]
		if p.Plan != "point" {
			s += " or better"
		}
		parts = append(parts, s)
	}
	budget := func(v *int, one, many string) {
		switch {
		case v == nil:
		case *v == 0:
			parts = append(parts, "no "+many)
		case *v == 1:
			parts = append(parts, "at most 1 "+one)
		default:
			parts = append(parts, fmt.Sprintf("at most %s %s", grouped(*v), many))
		}
	}
	budget(p.Examined, "entity examined", "entities examined")
	budget(p.Requests, "request", "requests")
	budget(p.Written, "entity written", "entities written")
	budget(p.Bytes, "byte written", "bytes written")
	budget(p.Hottest, "entity operation on any one partition", "entity operations on any one partition")
	switch len(parts) {
	case 0:
		return "runs without an error: a step the patterns after it build on"
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// grouped writes n with commas between thousands.
func grouped(n int) string {
	s := strconv.Itoa(n)
	var b bytes.Buffer
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Exercises is the goldmark extension for exercises.
type Exercises struct {
	// Highlight writes the exercise's code; it must be set.
	Highlight Highlighter
}

// Extend implements goldmark.Extender.
func (e Exercises) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(exerciseTransformer{}, 100)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(exerciseRenderer{highlight: e.Highlight}, 100)))
}
