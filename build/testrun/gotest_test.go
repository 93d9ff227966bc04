package testrun

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A go test -json stream, trimmed, as go 1.26 writes it: a passing, a
// skipped and a failing test, a subtest, a package with no test files
// and a package that fails to build.
const goTestStream = `{"Action":"start","Package":"example/a"}
{"Action":"run","Package":"example/a","Test":"TestOK"}
{"Action":"pass","Package":"example/a","Test":"TestOK","Elapsed":0}
{"Action":"run","Package":"example/a","Test":"TestOK/sub"}
{"Action":"pass","Package":"example/a","Test":"TestOK/sub","Elapsed":0}
{"Action":"run","Package":"example/a","Test":"TestPortTaken"}
{"Action":"output","Package":"example/a","Test":"TestPortTaken","Output":"    a_test.go:9: 10002 taken\n"}
{"Action":"skip","Package":"example/a","Test":"TestPortTaken","Elapsed":0}
{"Action":"run","Package":"example/a","Test":"TestBroken"}
{"Action":"fail","Package":"example/a","Test":"TestBroken","Elapsed":0}
{"Action":"fail","Package":"example/a","Elapsed":0.1}
{"Action":"skip","Package":"example/empty","Elapsed":0}
{"ImportPath":"example/b [example/b.test]","Action":"build-output","Output":"b.go:3:1: syntax error\n"}
{"Action":"fail","Package":"example/b","Elapsed":0,"FailedBuild":"example/b [example/b.test]"}
`

func TestCountGoTestCountsSkipsAndBuildFailures(t *testing.T) {
	got := countGoTest(strings.NewReader(goTestStream), io.Discard)
	if got.Passed != 2 || got.Skipped != 1 || got.Failed != 2 {
		t.Fatalf("counted %d passed, %d failed, %d skipped; want 2, 2, 1 (%q)", got.Passed, got.Failed, got.Skipped, got.Failures)
	}
	if got.Skips[0] != "example/a TestPortTaken: a_test.go:9: 10002 taken" {
		t.Errorf("skip line = %q", got.Skips[0])
	}
	if got.Failures[0] != "example/a TestBroken" || !strings.HasPrefix(got.Failures[1], "example/b:") {
		t.Errorf("failure lines = %q", got.Failures)
	}
}

// A package that fails outside any test has its last lines shown, since
// they are all that says why.
func TestCountGoTestShowsWhyAPackageFailed(t *testing.T) {
	stream := `{"Action":"output","Package":"example/c","Output":"fatal error: all goroutines are asleep\n"}
{"Action":"fail","Package":"example/c","Elapsed":0.1}
`
	var log bytes.Buffer
	got := countGoTest(strings.NewReader(stream), &log)
	if got.Failed != 1 || !strings.Contains(log.String(), "all goroutines are asleep") {
		t.Fatalf("counted %s, log %q", got.Summary(), log.String())
	}
}

// A failing test's output is its failure's detail, and only its own; a
// skip without a word says so.
func TestCountGoTestKeepsEachTestsOutput(t *testing.T) {
	stream := `{"Action":"run","Package":"example/d","Test":"TestA"}
{"Action":"output","Package":"example/d","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"example/d","Test":"TestA","Output":"    d_test.go:5: chatter of a passing test\n"}
{"Action":"pass","Package":"example/d","Test":"TestA"}
{"Action":"run","Package":"example/d","Test":"TestB"}
{"Action":"output","Package":"example/d","Test":"TestB","Output":"    d_test.go:9: got 3, want 4\n"}
{"Action":"output","Package":"example/d","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}
{"Action":"fail","Package":"example/d","Test":"TestB"}
{"Action":"run","Package":"example/d","Test":"TestC"}
{"Action":"output","Package":"example/d","Test":"TestC","Output":"=== RUN   TestC\n"}
{"Action":"output","Package":"example/d","Test":"TestC","Output":"--- SKIP: TestC (0.00s)\n"}
{"Action":"skip","Package":"example/d","Test":"TestC"}
{"Action":"fail","Package":"example/d"}
`
	var log bytes.Buffer
	got := countGoTest(strings.NewReader(stream), &log)
	if got.Passed != 1 || got.Failed != 1 || got.Skipped != 1 {
		t.Fatalf("counted %s", got.Summary())
	}
	if len(got.Details) != 1 || !strings.HasPrefix(got.Details[0], "example/d TestB\n") || !strings.Contains(got.Details[0], "got 3, want 4") || strings.Contains(got.Details[0], "chatter") {
		t.Errorf("details %q", got.Details)
	}
	if got.Skips[0] != "example/d TestC: no reason given" {
		t.Errorf("skip %q", got.Skips[0])
	}
	// The log has everything, the passing test's chatter included.
	if !strings.Contains(log.String(), "chatter of a passing test") {
		t.Errorf("log %q", log.String())
	}
}
