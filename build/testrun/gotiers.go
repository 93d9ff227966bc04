package testrun

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GoVet is go vet over the module.
func GoVet(env Env) Tally {
	return env.checkCommand("go vet ./...", nil, "go", "vet", "./...")
}

// GoTests runs the tests of every package but the engine's, which the
// race tier runs (Race): unit tests, fuzz seed corpora, the Go SDK's
// conformance suite and the crash test, against the server binary the
// test command built once.
func GoTests(env Env) Tally {
	bin, err := env.BinEnv()
	if err != nil {
		return Check("go test", err)
	}
	pkgs, err := env.packages(func(p string) bool { return !isCore(p) })
	if err != nil {
		return Check("go list ./...", err)
	}
	args := []string{"-count=1", "-timeout=15m"}
	if env.Short {
		args = append(args, "-short")
	}
	return GoTest(env, []string{bin}, append(args, pkgs...)...)
}

// Race runs the engine's and the protocol's tests under the race
// detector, counted test by test: their only native run, since a race
// build runs the same tests and more.
func Race(env Env) Tally {
	args := []string{"-race", "-count=1", "-timeout=15m"}
	if env.Short {
		args = append(args, "-short")
	}
	return GoTest(env, nil, append(args, corePackages)...)
}

// isCore reports whether the import path p is one of corePackages'.
func isCore(p string) bool {
	const engine = "github.com/tablelab/tablelab/engine"
	return p == engine || strings.HasPrefix(p, engine+"/")
}

// packages lists the module's packages that keep says to.
func (e Env) packages(keep func(string) bool) ([]string, error) {
	cmd := exec.Command("go", "list", "./...")
	cmd.Dir = e.Root
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		if keep(p) {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

// CrossBuilds are the platforms the server must build for besides this
// one: where most users of a local storage emulator work.
var CrossBuilds = [][2]string{
	{"darwin", "amd64"},
	{"darwin", "arm64"},
	{"windows", "amd64"},
	{"linux", "arm64"},
}

// CrossBuild compiles the server for each of CrossBuilds, one check
// each, two at a time: every package it links, for that platform, type-
// checked and compiled. Naming a second package makes go build compile
// without linking, which a platform's build constraints cannot fail but
// which took most of the time of each build once the packages were in the
// build cache.
func CrossBuild(env Env) Tally {
	results := make([]Tally, len(CrossBuilds))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2)
	for i, p := range CrossBuilds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			goEnv := []string{"CGO_ENABLED=0", "GOOS=" + p[0], "GOARCH=" + p[1]}
			results[i] = env.checkCommand("go build . for "+p[0]+"/"+p[1], goEnv, "go", "build", ".", "./engine")
		}()
	}
	wg.Wait()
	var t Tally
	for _, r := range results {
		t.Add(r)
	}
	return t
}

// corePackages are the engine and its protocol core: what the browser
// and the edge hosts run.
const corePackages = "./engine/..."

// wasmEnv is the environment of a GOOS=js build; with Go's own wasm
// directory first on PATH, go test runs the test binaries with
// go_js_wasm_exec under Node.
func wasmEnv() ([]string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	wasmDir := filepath.Join(strings.TrimSpace(string(out)), "lib", "wasm")
	return []string{"GOOS=js", "GOARCH=wasm", "PATH=" + wasmDir + string(os.PathListSeparator) + os.Getenv("PATH")}, nil
}

// WasmBuild builds the core for GOOS=js GOARCH=wasm, as one check.
func WasmBuild(env Env) Tally {
	goEnv, err := wasmEnv()
	if err != nil {
		return Check("GOOS=js go build "+corePackages, err)
	}
	return env.checkCommand("GOOS=js GOARCH=wasm go build "+corePackages, goEnv, "go", "build", corePackages)
}

// WasmTests runs the core packages' own tests compiled to wasm, under
// Node, counted test by test like the native run. Packages that need
// files or processes say so in a !js build tag and drop out.
func WasmTests(env Env) Tally {
	goEnv, err := wasmEnv()
	if err != nil {
		return Check("GOOS=js go test", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return env.CannotRun("core tests under GOOS=js", "node is not installed")
	}
	args := []string{"-count=1", "-timeout=15m"}
	if env.Short {
		args = append(args, "-short")
	}
	return GoTest(env, goEnv, append(args, corePackages)...)
}

// command is name with args, run in the module's root with the extra
// environment, writing to the log.
func (e Env) command(extraEnv []string, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Dir = e.Root
	cmd.Env = append(os.Environ(), extraEnv...)
	cmd.Stdout, cmd.Stderr = e.Out, e.Out
	return cmd
}

// checkCommand runs a command as one check, what: its output goes to the
// log, and is the failure's detail when it fails.
func (e Env) checkCommand(what string, extraEnv []string, name string, args ...string) Tally {
	cmd := e.command(extraEnv, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(e.Out, &out), io.MultiWriter(e.Out, &out)
	var t Tally
	if err := cmd.Run(); err != nil {
		t.FailWith(what+": "+err.Error(), out.String())
	} else {
		t.Pass()
	}
	return t
}
