package site

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// EnginePackage is the GOOS=js entry point of the engine in the browser.
const EnginePackage = "./wasm/browser"

// buildEngine writes into dir the three files a page needs to run the
// engine in a Web Worker: app.wasm, the Go toolchain's wasm_exec.js, and
// worker.js.
func buildEngine(root, dir string) error {
	src := filepath.Join(root, filepath.FromSlash(EnginePackage))
	if _, err := os.Stat(filepath.Join(src, "worker.js")); err != nil {
		return fmt.Errorf("engine: the browser build needs %s with its worker.js: %w", EnginePackage, err)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("engine: go env GOROOT: %w", err)
	}
	// The wasm and wasm_exec.js must come from the same toolchain: the
	// glue script changes with Go's runtime.
	gobin := filepath.Join(strings.TrimSpace(string(goroot)), "bin", "go")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.Command(gobin, "build", "-trimpath", "-ldflags=-s -w", "-o", filepath.Join(dir, "app.wasm"), EnginePackage)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("engine: GOOS=js GOARCH=wasm go build %s: %v\n%s", EnginePackage, err, out)
	}
	glue, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "wasm_exec.js"), glue); err != nil {
		return err
	}
	worker, err := os.ReadFile(filepath.Join(src, "worker.js"))
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "worker.js"), worker)
}
