package testrun

import (
	"os"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/build/localserver"
)

// node 20's TAP reporter, trimmed: one pass, one skip, one failure.
const tapReport = `TAP version 13
# Subtest: create a table
ok 1 - create a table
  ---
  duration_ms: 2.7
  ...
# Subtest: UseDevelopmentStorage=true reaches the server on 127.0.0.1:10002
ok 2 - UseDevelopmentStorage=true reaches the server on 127.0.0.1:10002 # SKIP server not on 10002
  ---
  duration_ms: 0.2
  ...
# Subtest: query
not ok 3 - query
  ---
  error: 'x'
  ...
1..3
# tests 3
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 1
# todo 0
`

func TestCountTAP(t *testing.T) {
	got := countTAP(tapReport)
	if got.Passed != 1 || got.Failed != 1 || got.Skipped != 1 {
		t.Fatalf("counted %+v, want 1 passed, 1 failed, 1 skipped", got)
	}
	if got.Failures[0] != "js: query" {
		t.Errorf("failure = %q", got.Failures[0])
	}
	if !strings.Contains(got.Skips[0], devstoreCheck) || !strings.Contains(got.Skips[0], "server not on 10002") {
		t.Errorf("skip = %q", got.Skips[0])
	}
}

func TestCountTAPCancelledIsFailed(t *testing.T) {
	got := countTAP("# pass 3\n# fail 0\n# cancelled 2\n# skipped 0\n")
	if got.Failed != 2 {
		t.Errorf("failed = %d, want the 2 cancelled", got.Failed)
	}
}

func TestDevstoreSkipIsCountedLocallyAndFailsUnderCI(t *testing.T) {
	walk := countTAP(tapReport)
	busy := []string{"127.0.0.1:10000", "127.0.0.1:10002"}
	local := devstoreVerdict(Env{}, walk, busy)
	if local.Skipped != 1 || local.Failed != 1 {
		t.Errorf("outside CI: %s, want the skip counted as a skip", local.Summary())
	}
	ci := devstoreVerdict(Env{CI: true}, countTAP(tapReport), busy)
	if ci.Skipped != 0 || ci.Failed != 2 {
		t.Fatalf("under CI: %s, want the skip turned into a failure", ci.Summary())
	}
	if msg := ci.Failures[len(ci.Failures)-1]; !strings.Contains(msg, "free 127.0.0.1:10000, 127.0.0.1:10002") {
		t.Errorf("failure %q does not say which ports to free", msg)
	}
	free := devstoreVerdict(Env{CI: true}, Tally{Passed: 3}, nil)
	if free.Failed != 0 || free.Passed != 3 {
		t.Errorf("ports free under CI: %s, want it untouched", free.Summary())
	}
}

// Every devstore skip fails under CI, not only the first: each service's
// walk has one.
func TestEveryDevstoreSkipFailsUnderCI(t *testing.T) {
	report := "ok 1 - UseDevelopmentStorage=true reaches the Table service # SKIP not on 10002\n" +
		"ok 2 - UseDevelopmentStorage=true reaches the Blob service # SKIP not on 10000\n" +
		"ok 3 - other # SKIP why not\n# pass 0\n# fail 0\n# cancelled 0\n# skipped 3\n"
	got := devstoreVerdict(Env{CI: true}, countTAP(report), []string{"127.0.0.1:10000"})
	if got.Failed != 2 || got.Skipped != 1 || len(got.Skips) != 1 || !strings.Contains(got.Skips[0], "other") {
		t.Fatalf("%s, skips %q: want both devstore skips failed and the other kept", got.Summary(), got.Skips)
	}
}

// The walks are told both connection strings, and which development
// ports the server holds.
func TestWalkEnv(t *testing.T) {
	dev := strings.Join(walkEnv(localserver.DevEndpoints), "\n")
	for _, want := range []string{
		"STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + localserver.Key +
			";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;TableEndpoint=http://127.0.0.1:10002/devstoreaccount1\n",
		"TABLES_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + localserver.Key + ";TableEndpoint=http://127.0.0.1:10002/devstoreaccount1\n",
		"TABLES_DEVSTORE=1", "STORAGE_DEVSTORE=1", "TABLELAB=1",
	} {
		if !strings.Contains(dev+"\n", want) {
			t.Errorf("env on the development ports lacks %q:\n%s", want, dev)
		}
	}
	moved := localserver.DevEndpoints
	moved.Queue = "127.0.0.1:4242"
	env := strings.Join(walkEnv(moved), "\n")
	if !strings.Contains(env, "TABLES_DEVSTORE=1") || strings.Contains(env, "STORAGE_DEVSTORE") || !strings.Contains(env, "QueueEndpoint=http://127.0.0.1:4242/devstoreaccount1") {
		t.Errorf("env with the Queue service moved:\n%s", env)
	}
}

// The test command installs only what the tests use: Azurite, which only
// the benchmark runs, is pinned in the benchmark's own npm folder.
func TestTestsInstallNoAzurite(t *testing.T) {
	tests, err := os.ReadFile("../../" + JSDir + "/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(tests), `"node_modules/azurite"`) {
		t.Errorf("%s/package-lock.json installs Azurite, which no test uses", JSDir)
	}
	if !strings.Contains(string(tests), `"node_modules/@azure/data-tables"`) {
		t.Errorf("%s/package-lock.json lacks the JS SDK the walk uses", JSDir)
	}
	bench, err := os.ReadFile("../bench/js/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(bench), `"node_modules/azurite"`) {
		t.Error("build/bench/js/package-lock.json does not pin Azurite")
	}
}

// node's TAP for a skip without a reason, a todo and a failure with its
// diagnostics: every skip is named with a reason, the todo among them,
// and the failure's diagnostics are its detail.
const tapSkipsAndFailure = `TAP version 13
# Subtest: bare
ok 1 - bare # SKIP
  ---
  duration_ms: 0.1
  ...
# Subtest: later
ok 2 - later # TODO not written yet
  ---
  duration_ms: 0.1
  ...
# Subtest: suite
    # Subtest: inner
    not ok 1 - inner
      ---
      duration_ms: 0.3
      failureType: 'testCodeFailure'
      error: |-
        Expected values to be strictly equal:
        3 !== 4
      ...
    1..1
not ok 3 - suite
  ---
  duration_ms: 0.5
  error: '1 subtest failed'
  ...
1..3
# tests 4
# pass 0
# fail 2
# cancelled 0
# skipped 1
# todo 1
`

func TestCountTAPNamesEverySkipAndKeepsDiagnostics(t *testing.T) {
	got := CountTAP(tapSkipsAndFailure, "js")
	if got.Skipped != 2 || len(got.Skips) != 2 || got.Failed != 2 || len(got.Failures) != 2 {
		t.Fatalf("counted %s, skips %q, failures %q", got.Summary(), got.Skips, got.Failures)
	}
	if got.Skips[0] != "js: bare (no reason given)" || got.Skips[1] != "js: later (todo: not written yet)" {
		t.Errorf("skips %q", got.Skips)
	}
	if len(got.Details) != 2 || !strings.Contains(got.Details[0], "3 !== 4") || !strings.HasPrefix(got.Details[0], "js: inner\n") {
		t.Errorf("details %q", got.Details)
	}
}
