package testrun

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves: Tick advances it and delivers one
// tick to whoever listens.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	ticks chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC), ticks: make(chan time.Time)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Every(time.Duration) (<-chan time.Time, func()) { return c.ticks, func() {} }

// Tick moves the clock by d and hands the heartbeat one tick, returning
// once it has taken it.
func (c *fakeClock) Tick(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	c.ticks <- now
}

// syncBuffer is a console written by the heartbeat's goroutine and read
// by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHeartbeat: while a tier runs, every tick prints a line naming the
// tier, how long it has run by the clock and the last line it logged;
// once it has stopped, nothing.
func TestHeartbeat(t *testing.T) {
	var console syncBuffer
	clock := newFakeClock()
	log := &lastLine{w: io.Discard}
	stop := startHeartbeat(&console, "worker", clock, 30*time.Second, log)
	// A tick is taken before its line is written: wait for the line, so
	// that what the tier logs next cannot reach the line before.
	printed := func(n int) {
		for deadline := time.Now().Add(5 * time.Second); strings.Count(console.String(), "\n") < n; {
			if time.Now().After(deadline) {
				t.Fatalf("no heartbeat line %d: %q", n, console.String())
			}
			time.Sleep(time.Millisecond)
		}
	}
	clock.Tick(30 * time.Second)
	printed(1)
	io.WriteString(log, "ok 12 - the queue walk\n  ---\n  duration_ms: 3\n  ...\npartial")
	clock.Tick(45 * time.Second)
	printed(2)
	stop()
	lines := strings.Split(strings.TrimSpace(console.String()), "\n")
	want := []string{
		"... worker: running for 30s",
		"... worker: running for 1m15s; last: ok 12 - the queue walk",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("heartbeat printed\n%s\nwant\n%s", console.String(), strings.Join(want, "\n"))
	}
}

// TestRunShowsProgressAndKeepsDetailInLogs runs two tiers under a fake
// clock: the first ticks twice while it runs and writes detail; the
// console gets the heartbeat lines, each tier's time and log file, the
// failing check's detail in full and none of the passing detail, which
// stays in the tier's log file.
func TestRunShowsProgressAndKeepsDetailInLogs(t *testing.T) {
	var console syncBuffer
	clock := newFakeClock()
	dir := t.TempDir()
	env := Env{Out: &console, Clock: clock, LogDir: dir}
	total := Run(env, []Tier{
		{Name: "slow one (with details)", Run: func(e Env) Tally {
			io.WriteString(e.Out, "ok 1 - a passing test's detail\n")
			clock.Tick(30 * time.Second)
			clock.Tick(30 * time.Second)
			var t Tally
			t.Pass()
			t.FailWith("js: broken", "expected 3\ngot 4")
			return t
		}},
		{Name: "quick", Run: func(e Env) Tally { return Check("fine", nil) }},
	})
	if total.Passed != 2 || total.Failed != 1 {
		t.Fatalf("total %s", total.Summary())
	}
	text := console.String()
	for _, want := range []string{
		"... slow one (with details): running for 30s; last: ok 1 - a passing test's detail",
		"... slow one (with details): running for 1m0s; last: ok 1 - a passing test's detail",
		"--- slow one (with details): 1 passed, 1 failed (1m0s); log: " + filepath.Join(dir, "slow-one.log"),
		"FAILED: js: broken\n    expected 3\n    got 4",
		"--- quick: 1 passed, 0 failed (0s)",
		"time per tier:\n    1m0s  slow one (with details)\n      0s  quick",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("console lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "\nok 1 - a passing test's detail\n") {
		t.Errorf("passing detail on the console:\n%s", text)
	}
	log, err := os.ReadFile(filepath.Join(dir, "slow-one.log"))
	if err != nil || string(log) != "ok 1 - a passing test's detail\n" {
		t.Errorf("tier log: %q, %v", log, err)
	}
}

// TestRunNamesEveryCount: a tier whose report counts skips and failures
// it does not name gets a line for them, so the summary explains every
// number it shows.
func TestRunNamesEveryCount(t *testing.T) {
	var out bytes.Buffer
	total := Run(Env{Out: &out, Clock: newFakeClock()}, []Tier{{Name: "walks", Run: func(Env) Tally {
		t := Tally{Passed: 3, Skipped: 3, Failed: 1}
		t.Skips = []string{"js: a (why)"}
		return t
	}}})
	if len(total.Skips) != 2 || len(total.Failures) != 1 {
		t.Fatalf("skips %q, failures %q", total.Skips, total.Failures)
	}
	for _, want := range []string{"SKIPPED: js: a (why)", "SKIPPED: walks: 2 skipped checks the report does not name", "FAILED: walks: 1 failed checks the report does not name"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestCheckCommandKeepsItsOutput: a command that fails has its output as
// the failure's detail; one that passes leaves it in the log only.
func TestCheckCommandKeepsItsOutput(t *testing.T) {
	var log bytes.Buffer
	env := Env{Root: t.TempDir(), Out: &log}
	bad := env.checkCommand("sh fails", nil, "sh", "-c", "echo vet: x.go:3: unreachable code; exit 1")
	if bad.Failed != 1 || len(bad.Details) != 1 || !strings.Contains(bad.Details[0], "x.go:3: unreachable code") {
		t.Errorf("failing command: %+v", bad)
	}
	good := env.checkCommand("sh passes", nil, "sh", "-c", "echo all fine")
	if good.Passed != 1 || len(good.Details) != 0 || !strings.Contains(log.String(), "all fine") {
		t.Errorf("passing command: %+v, log %q", good, log.String())
	}
}

func TestSlug(t *testing.T) {
	for name, want := range map[string]string{
		"go test (unit, fuzz seeds, Go SDK conformance, crash recovery)": "go-test",
		"worker: the Cloudflare Worker under workerd":                    "worker",
		"npm ci (the JS SDK the tests use)":                              "npm-ci",
		"README examples, run as written":                                "readme-examples-run-as-written",
	} {
		if got := slug(name); got != want {
			t.Errorf("slug(%q) = %q, want %q", name, got, want)
		}
	}
}
