package testrun

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// JSDir holds the real JS SDK walk and its lock file: the only npm
// packages the tests install.
const JSDir = "engine/api/testdata/js"

// NpmInstall installs JSDir's packages exactly as its lock file pins
// them, as one check.
func NpmInstall(env Env) Tally {
	return Check("npm ci in "+JSDir, env.npmCI(filepath.Join(env.Root, JSDir)))
}

func npmCI(env Env, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return errors.New("no package-lock.json")
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, env.Out, env.Out
	return cmd.Run()
}

// FlagsDir, under JSDir, holds the walks of the production flags
// (-throttle, -fault, -paging, -scan): the Worker's tier runs JSDir's
// walks against the Worker, and these are of the local server alone.
const FlagsDir = "flags"

// devstoreCheck names the walk's tests of UseDevelopmentStorage=true,
// which need the services on their development ports (Blob 10000, Queue
// 10001, Table 10002).
const devstoreCheck = "UseDevelopmentStorage=true"

// JSWalk starts the server the test command built on loopback with all three
// services — each on its development port when that is free, so that
// UseDevelopmentStorage=true is tested too — and runs the JS SDK walks
// against it with node's test runner. Every *.test.mjs gets the
// development account's connection string to all three services
// (STORAGE_CONNECTION_STRING) and to the Table service alone
// (TABLES_CONNECTION_STRING); TABLES_DEVSTORE=1 says the Table service is
// on 10002, STORAGE_DEVSTORE=1 that all three are on their development
// ports. The walks in FlagsDir start servers of their own with the flags
// they test, from the binary built here (TABLELAB_BIN), on free ports.
func JSWalk(env Env) Tally {
	tmp, err := os.MkdirTemp("", "tablelab-test-")
	if err != nil {
		return Check("js walk", err)
	}
	defer os.RemoveAll(tmp)
	bin, err := env.ServerBinary()
	if err != nil {
		return Check("js walk", err)
	}
	ends, err := localserver.ChooseEndpoints()
	if err != nil {
		return Check("js walk", err)
	}
	srv, err := localserver.StartAll(localserver.AllServices(bin, ends, "-data", filepath.Join(tmp, "data")), tmp,
		[]string{ends.Blob, ends.Queue, ends.Table}, 20*time.Second)
	if err != nil {
		return Check("js walk", err)
	}
	defer srv.Stop()
	dir := filepath.Join(env.Root, JSDir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.test.mjs"))
	if len(files) == 0 {
		return Check("js walk", errors.New("no *.test.mjs files in "+JSDir))
	}
	flagged, _ := filepath.Glob(filepath.Join(dir, FlagsDir, "*.test.mjs"))
	nodeArgs := []string{"--test", "--test-reporter=tap"}
	for _, f := range append(files, flagged...) {
		rel, _ := filepath.Rel(dir, f)
		nodeArgs = append(nodeArgs, rel)
	}
	cmd := exec.Command("node", nodeArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), walkEnv(ends)...)
	cmd.Env = append(cmd.Env, "TABLELAB_BIN="+bin)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := devstoreVerdict(env, countTAP(out.String()), ends.Busy())
	if runErr != nil && t.Failed == 0 {
		t.Fail("node --test: " + runErr.Error())
	}
	return t
}

// walkEnv is what the walks are told of the server at ends.
func walkEnv(ends localserver.Endpoints) []string {
	env := []string{
		"STORAGE_CONNECTION_STRING=" + ends.ConnectionString(),
		"TABLES_CONNECTION_STRING=" + localserver.ConnectionString(ends.Table),
		"TABLELAB=1",
	}
	if ends.Table == localserver.DevEndpoints.Table {
		env = append(env, "TABLES_DEVSTORE=1")
	}
	if len(ends.Busy()) == 0 {
		env = append(env, "STORAGE_DEVSTORE=1")
	}
	return env
}

// devstoreVerdict turns the walks' skips of UseDevelopmentStorage=true,
// when some development ports were busy, into failures under CI that say
// which ports to free.
func devstoreVerdict(env Env, t Tally, busy []string) Tally {
	if len(busy) == 0 || !env.CI {
		return t
	}
	skips := t.Skips[:0:0]
	var failed []string
	for _, s := range t.Skips {
		if strings.Contains(s, devstoreCheck) {
			failed = append(failed, s)
			continue
		}
		skips = append(skips, s)
	}
	t.Skips = skips
	t.Skipped -= len(failed)
	for _, s := range failed {
		t.Fail(s + ": cannot run under CI=true: free " + strings.Join(busy, ", ") + " (something else listens there) and run again")
	}
	return t
}

var (
	tapLine  = regexp.MustCompile(`^(\s*)(ok|not ok) \d+ - (.*)$`)
	tapCount = regexp.MustCompile(`(?m)^# (pass|fail|cancelled|skipped|todo) (\d+)$`)
)

// countTAP counts node's TAP report as the JS walks' tier names it.
func countTAP(out string) Tally { return CountTAP(out, "js") }

// CountTAP counts node's TAP report: its totals (a cancelled test is a
// failed one, a test marked todo a skipped one), a line for each failed
// or skipped test, named with label first, a skip with its reason, and
// for each failure the diagnostics node printed under it.
func CountTAP(out, label string) Tally {
	var t Tally
	for _, m := range tapCount.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "pass":
			t.Passed = n
		case "fail", "cancelled":
			t.Failed += n
		case "skipped", "todo":
			t.Skipped += n
		}
	}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		m := tapLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		name, directive, _ := strings.Cut(m[3], " # ")
		kind, reason, _ := strings.Cut(directive, " ")
		switch {
		case m[2] == "not ok" && !strings.EqualFold(kind, "TODO"):
			t.Failures = append(t.Failures, label+": "+name)
			if d := tapDiagnostics(lines[i+1:], len(m[1])); d != "" {
				t.Details = append(t.Details, label+": "+name+"\n"+d)
			}
		case strings.EqualFold(kind, "SKIP"), strings.EqualFold(kind, "TODO"):
			if reason = strings.TrimSpace(reason); reason == "" {
				reason = "no reason given"
			}
			if strings.EqualFold(kind, "TODO") {
				reason = "todo: " + reason
			}
			t.Skips = append(t.Skips, label+": "+name+" ("+reason+")")
		}
	}
	return t
}

// tapDiagnostics returns the block node writes under a test's line, the
// lines indented deeper than the test's own, up to the next line that is
// not.
func tapDiagnostics(lines []string, depth int) string {
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l)-len(strings.TrimLeft(l, " ")) <= depth {
			break
		}
		b.WriteString(l[depth:] + "\n")
	}
	return b.String()
}
