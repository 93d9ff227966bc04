package testrun

import (
	"bytes"
	"io"
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
	t := Check("npm ci in "+PlayDir+"/vendor-src", npmCI(env, filepath.Join(dir, "vendor-src")))
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
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	got := countTAP(out.String())
	if runErr != nil && got.Failed == 0 {
		got.Fail(what + ": node --test: " + runErr.Error())
	}
	if got.Passed+got.Failed+got.Skipped == 0 {
		got.Fail(what + ": node --test ran no test")
	}
	t.Add(got)
	return t
}
