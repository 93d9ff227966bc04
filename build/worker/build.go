// Package worker is `go run ./build worker`: it writes the folder that
// `wrangler deploy` takes (wrangler.toml, the entry module, the Go
// runtime's glue and app.wasm, built from wasm/worker) and measures it
// against Cloudflare's limit on a compressed Worker, and it is the test
// tier that runs the Worker offline under Miniflare (workerd).
package worker

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tablelab/tablelab/build/wasm"
)

// Package is the Worker's Go entry point.
const Package = "./wasm/worker"

// LimitBytes is what Cloudflare's free plan allows a Worker, compressed
// with gzip: 3 MB (the paid plans allow 10).
const LimitBytes = 3_000_000

// files are the folder's files besides app.wasm, and where each comes
// from: the entry module is ours, wasm_exec.js is the one
// workers-assets-gen writes for the Go toolchain (Go's own, with each
// runtime handed its own globalThis.context).
var entryFiles = []string{"worker.mjs"}

// Sizes are what the folder weighs.
type Sizes struct {
	Raw, Gzip int64
}

// Build writes the deployable folder into dir and returns its sizes:
// every file the upload carries, compressed one by one, as Cloudflare
// counts them.
func Build(root, dir string) (Sizes, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Sizes{}, err
	}
	if err := wasm.Build(root, Package, filepath.Join(dir, "app.wasm"), true); err != nil {
		return Sizes{}, err
	}
	if err := assetsGen(root, dir); err != nil {
		return Sizes{}, err
	}
	for _, name := range entryFiles {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(Package), name))
		if err != nil {
			return Sizes{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return Sizes{}, err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "wrangler.toml"), []byte(wranglerTOML), 0o644); err != nil {
		return Sizes{}, err
	}
	var s Sizes
	for _, name := range append([]string{"app.wasm", "wasm_exec.js"}, entryFiles...) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return Sizes{}, err
		}
		s.Raw += int64(len(b))
		s.Gzip += gzipSize(b)
	}
	return s, nil
}

// assetsGen takes wasm_exec.js from syumai/workers' generator, run in
// its Go mode into a scratch folder (it also writes an entry module that
// starts a runtime per request, which the Worker does not use).
func assetsGen(root, dir string) error {
	tmp, err := os.MkdirTemp("", "tablelab-assets-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "assets")
	cmd := exec.Command("go", "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", out)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("workers-assets-gen: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(filepath.Join(out, "wasm_exec.js"))
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte("globalProxy")) {
		return errors.New("workers-assets-gen's wasm_exec.js no longer hands each runtime its context")
	}
	return os.WriteFile(filepath.Join(dir, "wasm_exec.js"), b, 0o644)
}

func gzipSize(b []byte) int64 {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return int64(buf.Len())
}

// CheckLimit says whether s fits Cloudflare's free plan.
func (s Sizes) CheckLimit() error {
	if s.Gzip > LimitBytes {
		return fmt.Errorf("the Worker is %s gzip, over the %s limit", mb(s.Gzip), mb(LimitBytes))
	}
	return nil
}

// String is the sizes as the command prints them.
func (s Sizes) String() string {
	return fmt.Sprintf("%s raw, %s gzip (limit %s: %.0f%%)", mb(s.Raw), mb(s.Gzip), mb(LimitBytes), 100*float64(s.Gzip)/LimitBytes)
}

func mb(n int64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + " MB"
}
