package testrun

import (
	"bytes"
	"errors"
	"fmt"
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
	return Check("npm ci in "+JSDir, npmCI(env, filepath.Join(env.Root, JSDir)))
}

func npmCI(env Env, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		return errors.New("no package-lock.json")
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, env.Out, env.Out
	return cmd.Run()
}

// devstoreCheck names the walk's test of UseDevelopmentStorage=true,
// which needs the server on 127.0.0.1:10002.
const devstoreCheck = "UseDevelopmentStorage=true"

// JSWalk builds the server, starts it on loopback — on 10002 when that
// port is free, so that UseDevelopmentStorage=true is tested too — and
// runs the JS SDK walk against it with node's test runner.
func JSWalk(env Env) Tally {
	tmp, err := os.MkdirTemp("", "tablelab-test-")
	if err != nil {
		return Check("js walk", err)
	}
	defer os.RemoveAll(tmp)
	bin, err := localserver.Build(env.Root, tmp)
	if err != nil {
		return Check("js walk", err)
	}
	addr, devstore := localserver.DevStoreAddr, localserver.Free(localserver.DevStoreAddr)
	if !devstore {
		port, err := localserver.FreePort()
		if err != nil {
			return Check("js walk", err)
		}
		addr = fmt.Sprintf("127.0.0.1:%d", port)
	}
	srv, err := localserver.Start(localserver.Tablelab(bin, addr, "-data", filepath.Join(tmp, "data")), tmp, addr, 20*time.Second)
	if err != nil {
		return Check("js walk", err)
	}
	defer srv.Stop()
	dir := filepath.Join(env.Root, JSDir)
	files, _ := filepath.Glob(filepath.Join(dir, "*.test.mjs"))
	if len(files) == 0 {
		return Check("js walk", errors.New("no *.test.mjs files in "+JSDir))
	}
	nodeArgs := []string{"--test", "--test-reporter=tap"}
	for _, f := range files {
		nodeArgs = append(nodeArgs, filepath.Base(f))
	}
	cmd := exec.Command("node", nodeArgs...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TABLES_CONNECTION_STRING="+localserver.ConnectionString(addr), "TABLELAB=1")
	if devstore {
		cmd.Env = append(cmd.Env, "TABLES_DEVSTORE=1")
	}
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := devstoreVerdict(env, countTAP(out.String()), devstore)
	if runErr != nil && t.Failed == 0 {
		t.Fail("node --test: " + runErr.Error())
	}
	return t
}

// devstoreVerdict turns the walk's skip of UseDevelopmentStorage=true,
// when 10002 was taken, into a failure under CI that says which port to
// free.
func devstoreVerdict(env Env, t Tally, portFree bool) Tally {
	if portFree || !env.CI {
		return t
	}
	for i, s := range t.Skips {
		if strings.Contains(s, devstoreCheck) {
			t.Skips = append(t.Skips[:i:i], t.Skips[i+1:]...)
			t.Skipped--
			t.Fail(s + ": cannot run under CI=true: free 127.0.0.1:10002 (something else listens there) and run again")
			return t
		}
	}
	return t
}

var (
	tapLine  = regexp.MustCompile(`(?m)^\s*(ok|not ok) \d+ - (.*)$`)
	tapCount = regexp.MustCompile(`(?m)^# (pass|fail|cancelled|skipped) (\d+)$`)
)

// countTAP counts node's TAP report: its totals (a cancelled test is a
// failed one), and a line for each failed or skipped test.
func countTAP(out string) Tally {
	var t Tally
	for _, m := range tapCount.FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		switch m[1] {
		case "pass":
			t.Passed = n
		case "fail", "cancelled":
			t.Failed += n
		case "skipped":
			t.Skipped = n
		}
	}
	for _, m := range tapLine.FindAllStringSubmatch(out, -1) {
		name, directive, _ := strings.Cut(m[2], " # ")
		switch {
		case m[1] == "not ok":
			t.Failures = append(t.Failures, "js: "+name)
		case strings.HasPrefix(strings.ToUpper(directive), "SKIP"):
			t.Skips = append(t.Skips, "js: "+name+" ("+strings.TrimSpace(directive[4:])+")")
		}
	}
	return t
}
