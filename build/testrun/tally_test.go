package testrun

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestSummaryShowsSkipsOnlyWhenThereAreSome(t *testing.T) {
	var a Tally
	a.Pass()
	a.Pass()
	a.Fail("x")
	if got, want := a.Summary(), "2 passed, 1 failed"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	a.Skip("y: port taken")
	if got, want := a.Summary(), "2 passed, 1 failed, 1 skipped"; got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
}

func TestAddKeepsEveryCountAndLine(t *testing.T) {
	var a, b Tally
	a.Pass()
	a.Skip("s1")
	b.Fail("f1")
	b.Skip("s2")
	b.Pass()
	a.Add(b)
	if a.Passed != 2 || a.Failed != 1 || a.Skipped != 2 {
		t.Fatalf("counts = %d/%d/%d, want 2/1/2", a.Passed, a.Failed, a.Skipped)
	}
	if strings.Join(a.Skips, ",") != "s1,s2" || strings.Join(a.Failures, ",") != "f1" {
		t.Errorf("lines = %q %q", a.Skips, a.Failures)
	}
}

func TestCheck(t *testing.T) {
	if c := Check("ok", nil); c.Passed != 1 || c.Failed != 0 {
		t.Errorf("Check(nil) = %+v", c)
	}
	c := Check("build", errors.New("boom"))
	if c.Passed != 0 || c.Failed != 1 || c.Failures[0] != "build: boom" {
		t.Errorf("Check(err) = %+v", c)
	}
}

func TestCannotRunSkipsOrFailsUnderCI(t *testing.T) {
	local := Env{}.CannotRun("walk", "node missing")
	if local.Skipped != 1 || local.Failed != 0 {
		t.Errorf("outside CI: %+v, want one skip", local)
	}
	ci := Env{CI: true}.CannotRun("walk", "node missing")
	if ci.Skipped != 0 || ci.Failed != 1 || !strings.Contains(ci.Failures[0], "node missing") {
		t.Errorf("under CI: %+v, want one failure naming the reason", ci)
	}
}

func TestRunPrintsEverySkipAndFailureAndTheSummaryLast(t *testing.T) {
	var out bytes.Buffer
	env := Env{Out: &out}
	total := Run(env, []Tier{
		{Name: "first", Run: func(Env) Tally { var t Tally; t.Pass(); t.Skip("a check: why"); return t }},
		{Name: "second", Run: func(Env) Tally { return Check("b check", errors.New("broke")) }},
	})
	if total.Passed != 1 || total.Failed != 1 || total.Skipped != 1 {
		t.Fatalf("total = %+v", total)
	}
	text := out.String()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if last := lines[len(lines)-1]; last != "1 passed, 1 failed, 1 skipped" {
		t.Errorf("last line = %q", last)
	}
	for _, want := range []string{"=== first", "=== second", "SKIPPED: a check: why", "FAILED: b check: broke"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
