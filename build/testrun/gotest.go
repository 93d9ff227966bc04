package testrun

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// GoTest runs go test -json with args (and the environment's extra
// variables, such as GOOS) and counts every test and subtest. The whole
// output goes to the log; a failing test's output comes back as its
// failure's detail, and a skip carries the reason the test gave.
func GoTest(env Env, extraEnv []string, args ...string) Tally {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir = env.Root
	cmd.Env = append(os.Environ(), extraEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(env.Out, &stderr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Check("go test", err)
	}
	if err := cmd.Start(); err != nil {
		return Check("go test", err)
	}
	t := countGoTest(out, env.Out)
	if err := cmd.Wait(); err != nil && t.Failed == 0 {
		// go test failed, yet no test or package did: say so rather
		// than let the run pass.
		t.FailWith("go test "+strings.Join(args, " ")+": "+err.Error(), stderr.String())
	}
	return t
}

// testEvent is the part of go test -json's events that the count reads.
type testEvent struct {
	Action, Package, Test, Output, ImportPath string
}

// countGoTest counts the tests of a go test -json stream: every "pass",
// "fail" and "skip" of a test or subtest, and a package that failed with
// no failing test (a build error, a panic outside any test, a timeout) as
// one failure. It writes the tests' output to log as go test would print
// it, and keeps each test's until it ends: a failure takes it as its
// detail, a skip its last line as the reason.
func countGoTest(r io.Reader, log io.Writer) Tally {
	var t Tally
	failedTests := map[string]bool{} // by package
	// What each test printed while it ran, by package and test; a
	// package's own lines (its build errors, its last words) under "".
	printed := map[[2]string][]string{}
	keep := func(key [2]string, line string) {
		lines := printed[key]
		if len(lines) == maxKept {
			lines = lines[1:]
		}
		printed[key] = append(lines, line)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(log, sc.Text()) // go prints some build errors as plain text
			keep([2]string{"", ""}, sc.Text()+"\n")
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			fmt.Fprint(log, e.Output)
			pkg, _, _ := strings.Cut(e.ImportPath, " ")
			keep([2]string{pkg, ""}, e.Output)
		case "output":
			fmt.Fprint(log, e.Output)
			keep(key, e.Output)
		case "pass":
			if e.Test != "" {
				t.Pass()
			}
			delete(printed, key)
		case "skip":
			if e.Test != "" {
				t.Skip(e.Package + " " + e.Test + ": " + skipReason(printed[key]))
			}
			delete(printed, key)
		case "fail":
			if e.Test != "" {
				failedTests[e.Package] = true
				t.FailWith(e.Package+" "+e.Test, strings.Join(printed[key], ""))
			} else if !failedTests[e.Package] {
				t.FailWith(e.Package+": failed outside any test (build error, panic or timeout)", strings.Join(printed[key], ""))
			}
			delete(printed, key)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fail("reading go test's output: " + err.Error())
	}
	if lines := printed[[2]string{"", ""}]; len(lines) > 0 && t.Failed > 0 && len(t.Details) == 0 {
		t.Details = append(t.Details, "go test printed\n"+strings.Join(lines, ""))
	}
	return t
}

// maxKept is how many of a test's last lines are kept for its detail.
const maxKept = 200

// skipReason is why a test skipped: the last line it printed besides go
// test's own (=== RUN, --- SKIP), as "file_test.go:12: why".
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		return l
	}
	return "no reason given"
}
