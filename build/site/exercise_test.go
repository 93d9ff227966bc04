package site

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const exerciseCheck = `{
  "task": "Make the lookup a point read.",
  "patterns": [
    {"name": "one <order>", "run": "find(\"a\")", "expect": ["a"], "plan": "point", "examined": 1, "written": 0},
    {"name": "a new order", "run": "add(\"b\")", "requests": 2, "bytes": 400}
  ]
}`

func exerciseSource(check string) string {
	return "Intro.\n\n```js exercise\nconst t = 1; // start\n```\n\n```js solution\nconst t = 2; // model\n```\n\n```json check\n" + check + "\n```\n\nAfter.\n"
}

func TestExerciseHTML(t *testing.T) {
	got, errs := convert(t, exerciseSource(exerciseCheck))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{
		`<figure class="exercise" id="exercise-1" aria-labelledby="exercise-1-task">`,
		`<figcaption class="exercise-task" id="exercise-1-task"><span class="exercise-label">Exercise</span> Make the lookup a point read.</figcaption>`,
		`<textarea class="exercise-source" hidden>const t = 1; // start` + "\n</textarea>",
		`<pre class="exercise-check" hidden>{`,
		`<li><strong>one &lt;order&gt;</strong>: the right answer, served by a point read, at most 1 entity examined and no entities written</li>`,
		`<li><strong>a new order</strong>: at most 2 requests and at most 400 bytes written</li>`,
		`<details class="exercise-solution">` + "\n<summary>Show a solution</summary>",
		`<textarea class="exercise-solution-source" hidden>const t = 2; // model`,
		`<div class="exercise-output" aria-live="polite"></div>`,
		"<p>After.</p>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %s in:\n%s", want, got)
		}
	}
	// The three blocks are one exercise: no stray highlighted block.
	if strings.Count(got, `class="chroma"`) != 2 {
		t.Errorf("want the design and the solution highlighted, nothing else:\n%s", got)
	}
	if strings.Contains(got, "```") || strings.Contains(got, `language-json`) {
		t.Errorf("the check block was rendered as code:\n%s", got)
	}
}

func TestExerciseMistakes(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no solution", "```js exercise\nx\n```\n\n```json check\n" + exerciseCheck + "\n```\n", "must be followed by its ```js solution block"},
		{"no check", "```js exercise\nx\n```\n\n```js solution\ny\n```\n", "must be followed by the exercise's ```json check block"},
		{"a lone solution", "```js solution\ny\n```\n", "must follow a ```js exercise block"},
		{"a lone check", "```json check\n{}\n```\n", "must follow an exercise's ```js solution block"},
		{"not JSON", exerciseSource("{task: 1}"), "check: invalid character"},
		{"an unknown field", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "plan": "point", "budget": 3}]}`), `unknown field "budget"`},
		{"no task", exerciseSource(`{"patterns": [{"name": "a", "run": "f()", "plan": "point"}]}`), "task must be a sentence"},
		{"no patterns", exerciseSource(`{"task": "t", "patterns": []}`), "at least one access pattern"},
		{"an unknown plan", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "plan": "scan"}]}`), `unknown plan "scan"`},
		{"a name twice", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "plan": "point"}, {"name": "a", "run": "g()", "plan": "point"}]}`), `"a" is used twice`},
		{"no run", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "plan": "point"}]}`), "run must be an expression"},
		{"a bad order", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "expect": 1, "order": "sorted"}]}`), `order is "any"`},
		{"a negative budget", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "examined": -1}]}`), "examined must be at least 0"},
		{"two objects", exerciseSource(`{"task": "t", "patterns": [{"name": "a", "run": "f()", "examined": 1}]} {}`), "text after the JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs := convert(t, tc.src)
			if len(errs) == 0 {
				t.Fatalf("no error for %q", tc.src)
			}
			if !strings.Contains(errs[0].Error(), tc.want) {
				t.Errorf("error %q, want it to say %q", errs[0], tc.want)
			}
			if errs[0].Line == 0 {
				t.Errorf("error %q has no line", errs[0])
			}
		})
	}
}

func TestCheckExercises(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a.md": "---\ntitle: A\n---\n\n" + exerciseSource(exerciseCheck),
		"b.md": "---\ntitle: B\n---\n\n```js run\nprint(1)\n```\n",
		"c.md": "---\ntitle: C\n---\n\n" + exerciseSource(`{"task": "t"}`),
	})
	if err := CheckExercises(dir, []string{"a.md"}); err != nil {
		t.Errorf("a page with an exercise: %v", err)
	}
	err := CheckExercises(dir, []string{"a.md", "b.md", "c.md", "d.md"})
	if err == nil {
		t.Fatal("no error for pages without exercises")
	}
	for _, want := range []string{"content/b.md: no exercise", "content/c.md:15: check: patterns must list", "content/d.md: missing"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "a.md") || strings.Contains(err.Error(), "must follow") {
		t.Errorf("a.md has its exercise, and c.md's blocks are in order: %v", err)
	}
}

// Every page the issue names sets an exercise the grader can read.
func TestContentExercises(t *testing.T) {
	content := filepath.Join(repoRoot, "content")
	if _, err := os.Stat(content); err != nil {
		t.Skip("no content/ in this checkout")
	}
	if err := CheckExercises(content, ExercisePages); err != nil {
		t.Error(err)
	}
}

func TestExerciseAsks(t *testing.T) {
	one, two := 1, 2000
	for _, tc := range []struct {
		p    CheckPattern
		want string
	}{
		{CheckPattern{Plan: "range"}, "served by a range query or better"},
		{CheckPattern{Expect: []byte("1"), Examined: &two}, "the right answer and at most 2,000 entities examined"},
		{CheckPattern{Written: &one}, "at most 1 entity written"},
		{CheckPattern{}, "runs without an error: a step the patterns after it build on"},
		{CheckPattern{Hottest: &two}, "at most 2,000 entity operations on any one partition"},
	} {
		if got := asks(tc.p); got != tc.want {
			t.Errorf("asks(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
