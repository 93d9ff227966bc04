package wasm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tablelab/tablelab/build/testrun"
)

// JSDir holds the Node tests of worker.js and the benchmark's bridge
// column, with the lock file of the one npm package they use
// (fake-indexeddb).
const JSDir = "build/wasm/js"

// testedPackages are the packages of the browser host (and the Promise
// helper it shares with the Worker), tested compiled to
// wasm under Node (the engine's own are in the test command's core wasm
// tier). Not wasm/worker: syumai/workers reads the Workers runtime's
// globals as it starts, which Node lacks; the worker tier runs it in
// workerd, and its other tests run natively.
var testedPackages = []string{"./wasm/bench", "./wasm/bench/floor", "./wasm/browser", "./wasm/httptext", "./wasm/promise", "./wasm/stores", "./engine/dump"}

// Tier is the test command's tier for the engine in the browser: it
// builds wasm/browser as the site ships it, holds it to the size budget
// with all three storage services linked and to linking neither net/http
// nor encoding/json, prints where its
// size comes from, runs the browser host's Go tests under GOOS=js and
// worker.js's tests under Node, and runs a short benchmark and floor,
// whose figures it prints but does not hold to the targets (on a shared
// machine, time is not a verdict).
func Tier(env testrun.Env) testrun.Tally {
	dir, err := os.MkdirTemp("", "tablelab-wasm-")
	if err != nil {
		return testrun.Check("wasm: temporary folder", err)
	}
	defer os.RemoveAll(dir)
	report, err := Inspect(env.Root, dir)
	t := testrun.Check("wasm: build "+BrowserPackage+" (-s -w) and read its name section", err)
	if err != nil {
		return t
	}
	report.Write(env.Out, 20)
	t.Add(testrun.Check("wasm: "+report.Sizes.String(), report.Sizes.CheckBudget()))
	t.Add(testrun.Check("wasm: links neither "+strings.Join(Forbidden, " nor "), CheckDeps(report.Deps)))
	t.Add(testrun.Check("wasm: links the Table, Queue and Blob services", CheckServices(report.Deps)))

	if _, err := exec.LookPath("node"); err != nil {
		t.Add(env.CannotRun("wasm: tests and benchmark under Node", "node is not installed"))
		return t
	}
	extra, err := jsEnv()
	if err != nil {
		t.Add(testrun.Check("wasm: GOOS=js environment", err))
		return t
	}
	args := []string{"-count=1", "-timeout=10m"}
	if env.Short {
		args = append(args, "-short")
	}
	t.Add(testrun.GoTest(env, extra, append(args, testedPackages...)...))
	t.Add(nodeTests(env, dir))

	lines, err := Bench(env.Root, dir, 2000, 1, false, io.Discard)
	t.Add(testrun.Check("wasm: benchmark (native, wasm, bridge) runs and every query returns what it must", err))
	if err == nil {
		fmt.Fprintln(env.Out, "wasm benchmark, 2,000 entities, one round (go run ./build wasm -bench for the figures):")
		WriteBench(env.Out, lines)
	}
	kernels, err := Floor(env.Root, 1, 0.1, io.Discard)
	t.Add(testrun.Check("wasm: the floor (plain Go kernels, native and wasm) runs", err))
	if err == nil {
		fmt.Fprintln(env.Out, "floor, a tenth of each kernel, one round (go run ./build wasm -bench -floor for the figures):")
		WriteFloor(env.Out, kernels)
	}
	return t
}

// nodeTests installs JSDir's locked packages and runs its tests of
// worker.js against the engine built into engineDir, one check per test.
func nodeTests(env testrun.Env, engineDir string) testrun.Tally {
	js := filepath.Join(env.Root, filepath.FromSlash(JSDir))
	ci := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	ci.Dir, ci.Stdout, ci.Stderr = js, env.Out, env.Out
	if err := ci.Run(); err != nil {
		return testrun.Check("wasm: npm ci in "+JSDir, err)
	}
	cmd := exec.Command("node", "--test", "--test-reporter=tap", "--test-timeout=120000", "worker.test.mjs")
	cmd.Dir = js
	cmd.Env = append(os.Environ(), "TABLELAB_ENGINE_DIR="+engineDir)
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := countTAP(out.Bytes())
	if runErr != nil && t.Failed == 0 {
		t.Fail("wasm: node --test worker.test.mjs: " + runErr.Error())
	}
	if t.Passed+t.Failed == 0 {
		t.Fail("wasm: node --test worker.test.mjs ran no test")
	}
	return t
}

// countTAP counts the top-level results of a TAP report: "ok N - name"
// and "not ok N - name" at the start of a line.
func countTAP(report []byte) testrun.Tally {
	var t testrun.Tally
	sc := bufio.NewScanner(bytes.NewReader(report))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "ok "):
			t.Pass()
		case strings.HasPrefix(line, "not ok "):
			t.Fail("wasm: worker.js " + line)
		}
	}
	return t
}
