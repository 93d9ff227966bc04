package site

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tablelab/tablelab/build/wasm"
)

// buildEngine writes into dir the three files a page needs to run the
// engine in a Web Worker: app.wasm, the Go toolchain's wasm_exec.js, and
// worker.js. It is the build the wasm command measures and holds to the
// size budget, with the same flags, so that the site ships what was
// measured.
func buildEngine(root, dir string) error {
	src := filepath.Join(root, filepath.FromSlash(wasm.BrowserPackage))
	if _, err := os.Stat(filepath.Join(src, "worker.js")); err != nil {
		return fmt.Errorf("engine: the browser build needs %s with its worker.js: %w", wasm.BrowserPackage, err)
	}
	if err := wasm.Engine(root, dir); err != nil {
		return fmt.Errorf("engine: %w", err)
	}
	return nil
}
