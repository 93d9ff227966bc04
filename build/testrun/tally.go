// Package testrun is the test command: it runs tiers of checks in order,
// counts what passed, failed and was skipped across them, and ends with
// one summary line. While a tier runs, its tools' output goes to a log
// file of its own and the console gets a line at least every 30 seconds;
// a failure's detail, and every skip with its reason, reach the console.
package testrun

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A Tally counts checks. A check that could not run is skipped, never
// passed; a failure or a skip carries one line saying which check and
// why, and a failure may carry its detail: what the failing test printed.
type Tally struct {
	Passed, Failed, Skipped int
	Failures                []string
	Skips                   []string
	// Details holds, for failures that have one, the failure's line
	// followed by what the check printed.
	Details []string
}

// Pass counts one passed check.
func (t *Tally) Pass() { t.Passed++ }

// Fail counts one failed check, described by what.
func (t *Tally) Fail(what string) {
	t.Failed++
	t.Failures = append(t.Failures, what)
}

// FailWith counts one failed check, described by what, whose output
// detail says why.
func (t *Tally) FailWith(what, detail string) {
	t.Fail(what)
	if detail = strings.TrimRight(detail, "\n"); detail != "" {
		t.Details = append(t.Details, what+"\n"+detail)
	}
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
	t.Details = append(t.Details, o.Details...)
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

// named gives every count a line: a report that counted more skips or
// failures than it named (a tool's totals against its per-test lines)
// gets one line saying so, so the summary never shows a number it does
// not explain.
func (t *Tally) named(tier string) {
	if n := t.Skipped - len(t.Skips); n > 0 {
		t.Skips = append(t.Skips, fmt.Sprintf("%s: %d skipped checks the report does not name (see the tier's log)", tier, n))
	}
	if n := t.Failed - len(t.Failures); n > 0 {
		t.Failures = append(t.Failures, fmt.Sprintf("%s: %d failed checks the report does not name (see the tier's log)", tier, n))
	}
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

// LogDir is where the test command writes each tier's log, under the
// module's root.
const LogDir = "build/out/test"

// Env is what every tier runs in.
type Env struct {
	Root  string    // the module's root, and the working directory
	Short bool      // pass -short to go test
	CI    bool      // a check that cannot run fails instead of being skipped
	Out   io.Writer // the log: the tier's own file while Run runs it
	// LogDir, when set, is where Run writes each tier's log, one file a
	// tier; otherwise tiers write to Out.
	LogDir string
	// Heartbeat is how often Run says which tier is running; zero means
	// every 30 seconds. Clock, nil for the system's, tells the time.
	Heartbeat time.Duration
	Clock     Clock

	// run is shared by every tier of one Run: the server binary built
	// once, the npm folders installed once.
	run *shared
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

// Run runs the tiers in order and returns their total. On env.Out, the
// console, it prints each tier's name, a heartbeat while it runs, its
// tally and time, the detail of its failures; then every skip and failure
// with its reason, the time of each tier, and the summary line last.
func Run(env Env, tiers []Tier) Tally {
	console := env.Out
	if env.Clock == nil {
		env.Clock = systemClock{}
	}
	if env.Heartbeat <= 0 {
		env.Heartbeat = 30 * time.Second
	}
	if env.run == nil {
		env.run = newShared()
		defer env.run.close()
	}
	var total Tally
	var times []string
	for _, tier := range tiers {
		fmt.Fprintf(console, "\n=== %s\n", tier.Name)
		tierEnv, log, logPath, closeLog := env.tierLog(tier.Name)
		start := env.Clock.Now()
		stop := startHeartbeat(console, tier.Name, env.Clock, env.Heartbeat, log)
		t := tier.Run(tierEnv)
		stop()
		closeLog()
		took := env.Clock.Now().Sub(start)
		t.named(tier.Name)
		line := fmt.Sprintf("--- %s: %s (%s)", tier.Name, t.Summary(), roundTime(took))
		if logPath != "" {
			line += "; log: " + logPath
		}
		fmt.Fprintln(console, line)
		for _, d := range t.Details {
			fmt.Fprintln(console, indent("FAILED: "+d))
		}
		times = append(times, fmt.Sprintf("%8s  %s", roundTime(took), tier.Name))
		total.Add(t)
	}
	fmt.Fprintln(console)
	if len(tiers) > 1 {
		fmt.Fprintln(console, "time per tier:")
		for _, l := range times {
			fmt.Fprintln(console, l)
		}
		fmt.Fprintln(console)
	}
	for _, s := range total.Skips {
		fmt.Fprintln(console, "SKIPPED:", s)
	}
	for _, f := range total.Failures {
		fmt.Fprintln(console, "FAILED:", f)
	}
	fmt.Fprintln(console, total.Summary())
	return total
}

// tierLog returns the environment a tier runs in: its output to a log
// file of its own under LogDir (or to Out without one), through log, which
// the heartbeat reads. close closes the file.
func (e Env) tierLog(name string) (tierEnv Env, log *lastLine, path string, close func()) {
	tierEnv = e
	var w io.Writer = e.Out
	close = func() {}
	if e.LogDir != "" {
		path = filepath.Join(e.LogDir, slug(name)+".log")
		if err := os.MkdirAll(e.LogDir, 0o755); err == nil {
			if f, err := os.Create(path); err == nil {
				w, close = f, func() { f.Close() }
			} else {
				path = ""
			}
		}
	}
	log = &lastLine{w: w}
	tierEnv.Out = log
	return tierEnv, log, path, close
}

// slug is a tier's name as a file name: its first words, lower case,
// letters and digits joined by dashes.
func slug(name string) string {
	if i := strings.IndexAny(name, "(:"); i > 0 {
		name = name[:i]
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		} else {
			dash = true
		}
	}
	return b.String()
}

// indent sets every line of a detail after the first in by four spaces.
func indent(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
