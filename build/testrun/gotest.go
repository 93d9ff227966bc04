package testrun

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// GoTest runs go test -json with args (and the environment's extra
// variables, such as GOOS) and counts every test and subtest.
func GoTest(env Env, extraEnv []string, args ...string) Tally {
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir = env.Root
	cmd.Env = append(os.Environ(), extraEnv...)
	cmd.Stderr = env.Out
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
		t.Fail("go test " + strings.Join(args, " ") + ": " + err.Error())
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
// one failure. It echoes failures and package results to log.
func countGoTest(r io.Reader, log io.Writer) Tally {
	var t Tally
	failedTests := map[string]bool{} // by package
	// The last lines each package printed: when a package fails outside
	// any test, they are what says why.
	recent := map[string][]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(log, sc.Text()) // go prints some build errors as plain text
			continue
		}
		switch e.Action {
		case "build-output":
			fmt.Fprint(log, e.Output)
		case "output":
			if worthShowing(e.Output) {
				fmt.Fprint(log, e.Output)
			} else if lines := recent[e.Package]; len(lines) < recentLines {
				recent[e.Package] = append(lines, e.Output)
			} else {
				recent[e.Package] = append(lines[1:], e.Output)
			}
		case "pass":
			if e.Test != "" {
				t.Pass()
			}
		case "skip":
			if e.Test != "" {
				t.Skip(e.Package + " " + e.Test)
			}
		case "fail":
			if e.Test != "" {
				failedTests[e.Package] = true
				t.Fail(e.Package + " " + e.Test)
			} else if !failedTests[e.Package] {
				for _, line := range recent[e.Package] {
					fmt.Fprint(log, line)
				}
				t.Fail(e.Package + ": failed outside any test (build error, panic or timeout)")
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fail("reading go test's output: " + err.Error())
	}
	return t
}

// recentLines is how many of a package's last lines are kept to show.
const recentLines = 30

// worthShowing keeps the log readable: failures, package results and
// what the tests print about themselves.
func worthShowing(line string) bool {
	for _, p := range []string{"--- FAIL", "--- SKIP", "FAIL", "ok ", "panic:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return strings.Contains(line, "_test.go:")
}
