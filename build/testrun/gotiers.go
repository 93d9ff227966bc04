package testrun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GoVet is go vet over the module.
func GoVet(env Env) Tally {
	return Check("go vet ./...", env.command(nil, "go", "vet", "./...").Run())
}

// GoTests runs every package's tests: unit tests, fuzz seed corpora, the
// Go SDK's conformance suite and the crash test.
func GoTests(env Env) Tally {
	args := []string{"-count=1", "-timeout=15m"}
	if env.Short {
		args = append(args, "-short")
	}
	return GoTest(env, nil, append(args, "./...")...)
}

// Race runs the engine's and the protocol's tests under the race
// detector, as one check.
func Race(env Env) Tally {
	return Check("go test -race ./engine/...", env.command(nil, "go", "test", "-race", "-count=1", "-timeout=10m", "./engine/...").Run())
}

// CrossBuilds are the platforms the server must build for besides this
// one: where most users of a local storage emulator work.
var CrossBuilds = [][2]string{
	{"darwin", "amd64"},
	{"darwin", "arm64"},
	{"windows", "amd64"},
	{"linux", "arm64"},
}

// CrossBuild builds the server for each of CrossBuilds, one check each.
func CrossBuild(env Env) Tally {
	var t Tally
	for _, p := range CrossBuilds {
		goEnv := []string{"CGO_ENABLED=0", "GOOS=" + p[0], "GOARCH=" + p[1]}
		err := env.command(goEnv, "go", "build", "-o", os.DevNull, ".").Run()
		t.Add(Check("go build . for "+p[0]+"/"+p[1], err))
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
	return Check("GOOS=js GOARCH=wasm go build "+corePackages, env.command(goEnv, "go", "build", corePackages).Run())
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
