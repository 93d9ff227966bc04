// Package testrun is the test command: it runs tiers of checks in order,
// counts what passed, failed and was skipped across them, and ends with
// one summary line.
package testrun

import (
	"fmt"
	"io"
	"strconv"
)

// A Tally counts checks. A check that could not run is skipped, never
// passed; a failure or a skip carries one line saying which check and
// why.
type Tally struct {
	Passed, Failed, Skipped int
	Failures                []string
	Skips                   []string
}

// Pass counts one passed check.
func (t *Tally) Pass() { t.Passed++ }

// Fail counts one failed check, described by what.
func (t *Tally) Fail(what string) {
	t.Failed++
	t.Failures = append(t.Failures, what)
}

// Skip counts one check that did not run, described by what.
func (t *Tally) Skip(what string) {
	t.Skipped++
	t.Skips = append(t.Skips, what)
}

// Add adds o's counts and lines to t.
func (t *Tally) Add(o Tally) {
	t.Passed += o.Passed
	t.Failed += o.Failed
	t.Skipped += o.Skipped
	t.Failures = append(t.Failures, o.Failures...)
	t.Skips = append(t.Skips, o.Skips...)
}

// Summary is the test command's last line: "N passed, N failed", with
// ", N skipped" when any check was skipped.
func (t Tally) Summary() string {
	s := strconv.Itoa(t.Passed) + " passed, " + strconv.Itoa(t.Failed) + " failed"
	if t.Skipped > 0 {
		s += ", " + strconv.Itoa(t.Skipped) + " skipped"
	}
	return s
}

// Check is the tally of one check: passed when err is nil.
func Check(what string, err error) Tally {
	var t Tally
	if err != nil {
		t.Fail(what + ": " + err.Error())
	} else {
		t.Pass()
	}
	return t
}

// Env is what every tier runs in.
type Env struct {
	Root  string    // the module's root, and the working directory
	Short bool      // pass -short to go test
	CI    bool      // a check that cannot run fails instead of being skipped
	Out   io.Writer // the log
}

// CannotRun is the tally of a check that could not run for reason:
// skipped, or under CI a failure, since CI must run every check.
func (e Env) CannotRun(what, reason string) Tally {
	var t Tally
	if e.CI {
		t.Fail(what + ": cannot run under CI=true: " + reason)
	} else {
		t.Skip(what + ": " + reason)
	}
	return t
}

// A Tier is one named group of checks. The test command's tier list is
// where a new kind of check is added: one entry, a name and a func.
type Tier struct {
	Name string
	Run  func(Env) Tally
}

// Run runs the tiers in order and prints each failure and skip and the
// summary line last.
func Run(env Env, tiers []Tier) Tally {
	var total Tally
	for _, tier := range tiers {
		fmt.Fprintf(env.Out, "\n=== %s\n", tier.Name)
		t := tier.Run(env)
		fmt.Fprintf(env.Out, "--- %s: %s\n", tier.Name, t.Summary())
		total.Add(t)
	}
	fmt.Fprintln(env.Out)
	for _, s := range total.Skips {
		fmt.Fprintln(env.Out, "SKIPPED:", s)
	}
	for _, f := range total.Failures {
		fmt.Fprintln(env.Out, "FAILED:", f)
	}
	fmt.Fprintln(env.Out, total.Summary())
	return total
}
