package testrun

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// PlayDir is the playground's code; its unit tests import the pinned SDK
// from PlayDir/vendor-src, whose lock file the committed bundles are
// built from.
const PlayDir = "site/play"

// PlayUnits runs the playground's own unit tests (site/play/test, under
// node's test runner): the results grid, the wire log, the keyspace map,
// share links, the runner and its host. They need no browser and no
// server, so a failure here names a module before the browser tier does.
func PlayUnits(env Env) Tally {
	const what = "the playground's unit tests"
	dir := filepath.Join(env.Root, PlayDir)
	t := Check("npm ci in "+PlayDir+"/vendor-src", env.npmCI(filepath.Join(dir, "vendor-src")))
	if t.Failed > 0 {
		return t
	}
	files, _ := filepath.Glob(filepath.Join(dir, "test", "*.test.mjs"))
	if len(files) == 0 {
		t.Fail(what + ": no test/*.test.mjs in " + PlayDir)
		return t
	}
	args := []string{"--test", "--test-reporter=tap"}
	for _, f := range files {
		args = append(args, filepath.Join("test", filepath.Base(f)))
	}
	bin, err := env.BinEnv()
	if err != nil {
		t.Add(Check(what, err))
		return t
	}
	t.Add(runNode(env, what, dir, args, []string{bin}))
	return t
}

// runNode runs node with args in dir (its test runner, reporting TAP) and
// counts the report test by test: a run that fails with no failed test,
// or that runs none, is a failure of what.
func runNode(env Env, what, dir string, args, extraEnv []string) Tally {
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	if len(extraEnv) > 0 {
		cmd.Env = append(os.Environ(), extraEnv...)
	}
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := countTAP(out.String())
	if runErr != nil && t.Failed == 0 {
		t.Fail(what + ": node --test: " + runErr.Error())
	}
	if t.Passed+t.Failed+t.Skipped == 0 {
		t.Fail(what + ": node --test ran no test")
	}
	return t
}
