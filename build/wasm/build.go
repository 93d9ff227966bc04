package wasm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// BrowserPackage is the GOOS=js entry point of the engine in the browser.
const BrowserPackage = "./wasm/browser"

// jsEnv is what a GOOS=js build adds to the environment; with Go's own
// wasm directory on PATH, go test and go run execute wasm binaries under
// Node (go_js_wasm_exec).
func jsEnv() ([]string, error) {
	root, err := goroot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "lib", "wasm")
	return []string{"GOOS=js", "GOARCH=wasm", "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}, nil
}

func goEnv() ([]string, error) {
	extra, err := jsEnv()
	return append(os.Environ(), extra...), err
}

func goroot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOROOT: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Build compiles pkg (relative to the module root) for GOOS=js into out,
// with the compiler's defaults, as the Worker is built. Stripped (-ldflags='-s -w') is what ships; unstripped keeps the name
// section that Breakdown reads. The code is the same.
func Build(root, pkg, out string, stripped bool) error {
	return build(root, pkg, out, stripped, nil)
}

// noInline are the packages the browser engine is compiled without
// inlining: the Queue and Blob services, the XML they speak, the export,
// and URL escaping, of which a table request uses only the unescaping of
// its query. Inlining copies small functions into each caller, which off
// the table path costs the page's download more than the calls it saves;
// the table path keeps it.
var noInline = []string{
	"engine/blob",
	"engine/api/blobapi",
	"engine/queue",
	"engine/api/queueapi",
	"engine/api/xmlwire",
	"engine/internal/urltext",
	"engine/dump",
}

// EngineFlags are the flags of every build of the browser engine, beyond
// -trimpath and stripping: the one the site ships and this package
// measures (Engine, BuildEngine), and both columns of the benchmark, native
// and wasm, so that they run the same code.
func EngineFlags() []string {
	flags := make([]string, len(noInline))
	for i, p := range noInline {
		flags[i] = "-gcflags=github.com/tablelab/tablelab/" + p + "=-l"
	}
	return flags
}

// BuildEngine is Build with EngineFlags: pkg compiled as the browser
// engine is.
func BuildEngine(root, pkg, out string, stripped bool) error {
	return build(root, pkg, out, stripped, EngineFlags())
}

func build(root, pkg, out string, stripped bool, flags []string) error {
	env, err := goEnv()
	if err != nil {
		return err
	}
	args := append([]string{"build", "-trimpath", "-o", out}, flags...)
	if stripped {
		args = append(args, "-ldflags=-s -w")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir, cmd.Env = root, env
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("GOOS=js GOARCH=wasm go build %s: %v\n%s", pkg, err, msg)
	}
	return nil
}

// Engine writes into dir the three files a page needs to run the engine
// in a Web Worker, as the site lays out dist/engine/: app.wasm,
// wasm_exec.js from the same toolchain, and worker.js.
func Engine(root, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := BuildEngine(root, BrowserPackage, filepath.Join(dir, "app.wasm"), true); err != nil {
		return err
	}
	gr, err := goroot()
	if err != nil {
		return err
	}
	for src, name := range map[string]string{
		filepath.Join(gr, "lib", "wasm", "wasm_exec.js"):                     "wasm_exec.js",
		filepath.Join(root, filepath.FromSlash(BrowserPackage), "worker.js"): "worker.js",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Deps lists the import paths pkg links for GOOS=js.
func Deps(root, pkg string) ([]string, error) {
	env, err := goEnv()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("go", "list", "-deps", pkg)
	cmd.Dir, cmd.Env = root, env
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, fmt.Errorf("go list -deps %s: %v\n%s", pkg, err, exit.Stderr)
		}
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// Services are the protocol cores the browser build must link: the budget
// is measured with all three storage services in it, as the site ships
// them.
var Services = []string{
	"github.com/tablelab/tablelab/engine/api",
	"github.com/tablelab/tablelab/engine/api/queueapi",
	"github.com/tablelab/tablelab/engine/api/blobapi",
}

// CheckServices fails when deps lack one of the Services.
func CheckServices(deps []string) error {
	var missing []string
	for _, want := range Services {
		if !slices.Contains(deps, want) {
			missing = append(missing, want)
		}
	}
	if missing != nil {
		return fmt.Errorf("the browser build does not link %s", strings.Join(missing, ", "))
	}
	return nil
}

// Forbidden are packages the browser build must not link: each would
// cost more than the rest of the engine (net/http), or was removed to
// fit the budget (encoding/json; fmt, which encoding/hex's error type
// brings in, with os beneath it; crypto's FIPS module, whose self-tests
// crypto/hmac, crypto/sha256 and crypto/md5 link).
var Forbidden = []string{"net/http", "encoding/json", "fmt", "os", "crypto/internal/fips140only"}

// CheckDeps fails when deps hold a Forbidden package.
func CheckDeps(deps []string) error {
	var found []string
	for _, d := range deps {
		for _, f := range Forbidden {
			if d == f {
				found = append(found, d)
			}
		}
	}
	if found != nil {
		return fmt.Errorf("the browser build links %s", strings.Join(found, ", "))
	}
	return nil
}
