package wasm

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Main is `go run ./build wasm`: it builds the browser engine, prints its
// raw, gzip and brotli sizes against the budget and the packages its code
// comes from, and with -bench runs the benchmark (with -floor, the Go
// runtime's floor under wasm after it).
func Main(root string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("wasm", flag.ContinueOnError)
	top := fs.Int("top", 25, "packages to list in the breakdown")
	bench := fs.Bool("bench", false, "run the benchmark: native Go, the same Go as wasm, and wasm through the JS bridge")
	n := fs.Int("n", 10000, "with -bench: entities in the workload")
	rounds := fs.Int("rounds", 3, "with -bench: rounds of each column; each line keeps its fastest")
	chromium := fs.Bool("chromium", false, "with -bench: the Chromium columns too (headless /usr/bin/chromium, build/browser's node_modules)")
	floor := fs.Bool("floor", false, "with -bench: the Go runtime's floor too, plain Go kernels natively and as wasm (wasm/bench/floor)")
	dir := fs.String("o", "", "write app.wasm, wasm_exec.js and worker.js here (default: a temporary folder)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	engineDir := *dir
	if engineDir == "" {
		tmp, err := os.MkdirTemp("", "tablelab-wasm-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		engineDir = tmp
	}
	report, err := Inspect(root, engineDir)
	if err != nil {
		return err
	}
	report.Write(out, *top)
	if err := CheckServices(report.Deps); err != nil {
		return err
	}
	if err := report.Sizes.CheckBudget(); err != nil {
		return err
	}
	if !*bench {
		return nil
	}
	fmt.Fprintf(out, "\nbenchmark: %d entities, best of %d rounds (go run ./build wasm -bench -n %d -rounds %d -chromium=%t)\n", *n, *rounds, *n, *rounds, *chromium)
	lines, err := Bench(root, engineDir, *n, *rounds, *chromium, io.Discard)
	if err != nil {
		return err
	}
	WriteBench(out, lines)
	if !*floor {
		return nil
	}
	fmt.Fprintf(out, "\nfloor: the Go runtime under wasm, plain Go kernels with none of tablelab, best of %d rounds (go run ./build wasm -bench -floor)\n", *rounds)
	kernels, err := Floor(root, *rounds, 1, io.Discard)
	if err != nil {
		return err
	}
	WriteFloor(out, kernels)
	return nil
}

// A Report is what the command and the test tier say of a build.
type Report struct {
	Sizes    Sizes
	Deps     []string
	Packages []PackageSize
	Code     int // bytes of the code section
}

// Inspect builds the engine into engineDir and measures it: the shipped
// (stripped) binary's sizes, and the code per package of the same build
// with its names kept.
func Inspect(root, engineDir string) (Report, error) {
	var r Report
	if err := Engine(root, engineDir); err != nil {
		return r, err
	}
	module, err := os.ReadFile(filepath.Join(engineDir, "app.wasm"))
	if err != nil {
		return r, err
	}
	if r.Sizes, err = Measure(module); err != nil {
		return r, err
	}
	if r.Deps, err = Deps(root, BrowserPackage); err != nil {
		return r, err
	}
	named := filepath.Join(engineDir, "app-names.wasm")
	if err := BuildEngine(root, BrowserPackage, named, false); err != nil {
		return r, err
	}
	defer os.Remove(named)
	withNames, err := os.ReadFile(named)
	if err != nil {
		return r, err
	}
	r.Packages, r.Code, err = Breakdown(withNames, r.Deps)
	return r, err
}

// Write prints the sizes and the top packages of the breakdown.
func (r Report) Write(w io.Writer, top int) {
	fmt.Fprintf(w, "wasm/browser: %s\n", r.Sizes)
	fmt.Fprintf(w, "code section %s; the packages it comes from:\n", MiB(r.Code))
	for i, p := range r.Packages {
		if i == top {
			rest := 0
			for _, q := range r.Packages[i:] {
				rest += q.Bytes
			}
			fmt.Fprintf(w, "  %8d B %5.1f%%  (%d more packages)\n", rest, 100*float64(rest)/float64(r.Code), len(r.Packages)-i)
			break
		}
		fmt.Fprintf(w, "  %8d B %5.1f%%  %s\n", p.Bytes, 100*float64(p.Bytes)/float64(r.Code), p.Package)
	}
}
