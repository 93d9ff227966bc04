package wasm

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

// BenchPackage is the workload inside Go (wasm/bench), built natively and
// for GOOS=js; build/wasm/js/bench.mjs sends its requests through the
// JavaScript bridge.
const BenchPackage = "./wasm/bench"

// A BenchLine is one line of the workload in the three columns, in
// nanoseconds per operation: native Go, the same Go as wasm under Node,
// and wasm reached through the JavaScript bridge (worker.js's
// tablelab.serve, one awaited call per request). With Chromium, three
// more: tablelab.serve called inside a Web Worker of headless Chromium,
// the page posting each request to worker.js and awaiting its answer, and
// the same messages to a Worker that only posts each request back (the
// round trip's floor); all three are wall time, zero when not run.
type BenchLine struct {
	Name                     string
	Ops                      int
	Native, Wasm, Bridge     int64
	InWorker, FromPage, Echo int64
}

// WasmRatio is how many times slower the Go code runs as wasm.
func (l BenchLine) WasmRatio() float64 { return float64(l.Wasm) / float64(l.Native) }

// BridgeCost is what the bridge adds to the wasm time, as a fraction.
func (l BenchLine) BridgeCost() float64 { return float64(l.Bridge)/float64(l.Wasm) - 1 }

// PageCost is what posting each request from the page to the Worker adds
// to serving it inside the Worker, in Chromium, as a fraction.
func (l BenchLine) PageCost() float64 { return float64(l.FromPage)/float64(l.InWorker) - 1 }

// PageCostOverEcho is PageCost with the echo's round trip taken off the
// page's time: what posting adds beyond the floor that a message to any
// Worker and back costs. The echo answers with the request, so on lines
// whose responses are long (the scans) the floor is lower than their
// answers' own crossing.
func (l BenchLine) PageCostOverEcho() float64 {
	return float64(l.FromPage-l.Echo)/float64(l.InWorker) - 1
}

// Bench runs the workload for n entities in each column, rounds times,
// alternating the columns so that each round sees the machine as loaded
// as the others, and keeps each line's fastest round. engineDir holds a
// built engine (Engine). With chromium, the three Chromium columns run too
// (build/browser's node_modules and /usr/bin/chromium needed). Progress
// goes to log.
func Bench(root, engineDir string, n, rounds int, chromium bool, log io.Writer) ([]BenchLine, error) {
	tmp, err := os.MkdirTemp("", "tablelab-wasm-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	native := filepath.Join(tmp, "bench")
	build := exec.Command("go", append(append([]string{"build", "-o", native}, EngineFlags()...), BenchPackage)...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %v\n%s", BenchPackage, err, out)
	}
	wasmBin := filepath.Join(tmp, "bench.wasm")
	if err := BuildEngine(root, BenchPackage, wasmBin, true); err != nil {
		return nil, err
	}
	gr, err := goroot()
	if err != nil {
		return nil, err
	}
	arg := strconv.Itoa(n)
	columns := [][]string{
		{native, "-n", arg},
		{"node", filepath.Join(gr, "lib", "wasm", "wasm_exec_node.js"), wasmBin, "-n", arg},
		{"node", filepath.Join(root, "build", "wasm", "js", "bench.mjs"), arg},
	}
	names := []string{"native", "wasm", "bridge", "chromium worker", "chromium page", "chromium echo"}
	if chromium {
		for _, way := range []string{"worker", "page", "echo"} {
			columns = append(columns, []string{"node", filepath.Join(root, "build", "wasm", "js", "bench-chromium.mjs"), arg, way})
		}
	}
	env := append(os.Environ(), "TABLELAB_ENGINE_DIR="+engineDir)
	best, order, err := bestRounds(root, env, columns, names, rounds, "round", log)
	if err != nil {
		return nil, err
	}
	var result []BenchLine
	for _, name := range order {
		l := BenchLine{Name: name, Ops: best[0][name].ops, Native: best[0][name].nsInt(), Wasm: best[1][name].nsInt(), Bridge: best[2][name].nsInt()}
		if l.Native == 0 || l.Wasm == 0 || l.Bridge == 0 {
			return nil, fmt.Errorf("the line %q is missing from a column", name)
		}
		if chromium {
			l.InWorker, l.FromPage, l.Echo = best[3][name].nsInt(), best[4][name].nsInt(), best[5][name].nsInt()
			if l.InWorker == 0 || l.FromPage == 0 || l.Echo == 0 {
				return nil, fmt.Errorf("the line %q is missing from a Chromium column", name)
			}
		}
		result = append(result, l)
	}
	return result, nil
}

// measured is one line a benchmark program printed.
type measured struct {
	name string
	ops  int
	ns   float64 // per operation
}

// nsInt is the time per operation in whole nanoseconds, as wasm/bench
// prints it.
func (m measured) nsInt() int64 { return int64(m.ns) }

// parseLines reads a benchmark program's lines (wasm/bench's and
// wasm/bench/floor's): name, operations and ns/op, tab-separated.
func parseLines(out []byte) ([]measured, error) {
	var lines []measured
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("the benchmark printed %q", sc.Text())
		}
		ops, err1 := strconv.Atoi(f[1])
		ns, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || ops <= 0 || ns < 0 {
			return nil, fmt.Errorf("the benchmark printed %q", sc.Text())
		}
		lines = append(lines, measured{f[0], ops, ns})
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("the benchmark printed nothing")
	}
	return lines, nil
}

// bestRounds runs each column's command rounds times, alternating the
// columns so that each round sees the machine as loaded as the others,
// and keeps each column's fastest figure for each line. order is the
// lines as the first column printed them. Progress goes to log, each run
// named by what and names.
func bestRounds(root string, env []string, columns [][]string, names []string, rounds int, what string, log io.Writer) (best []map[string]measured, order []string, err error) {
	best = make([]map[string]measured, len(columns))
	for r := range rounds {
		for c, args := range columns {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = root
			cmd.Env = env
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.Bytes())
			}
			lines, err := parseLines(out)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %v", strings.Join(cmd.Args, " "), err)
			}
			if best[c] == nil {
				best[c] = map[string]measured{}
			}
			for _, l := range lines {
				if r == 0 && c == 0 {
					order = append(order, l.name)
				}
				if b, ok := best[c][l.name]; !ok || l.ns < b.ns {
					best[c][l.name] = l
				}
			}
			fmt.Fprintf(log, "%s %d, %s: done\n", what, r+1, names[c])
		}
	}
	return best, order, nil
}

// WriteBench prints the lines as a table: the three columns and the two
// ratios the targets are set on (wasm ≤ 4× native; the bridge adding
// ≤ 25%), and, when they ran, the Chromium columns, what the page's
// messages add to the Worker's time, and what they add beyond the echo's
// round trip.
func WriteBench(w io.Writer, lines []BenchLine) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	chromium := len(lines) > 0 && lines[0].InWorker != 0
	head := "line\tops\tnative µs/op\twasm µs/op\tbridge µs/op\twasm/native\tbridge adds\t"
	if chromium {
		head += "chromium worker µs/op\tchromium page µs/op\techo µs/op\tpage adds\tpage − echo adds\t"
	}
	fmt.Fprintln(tw, head)
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.2f×\t%+.0f%%\t", l.Name, l.Ops,
			float64(l.Native)/1e3, float64(l.Wasm)/1e3, float64(l.Bridge)/1e3, l.WasmRatio(), 100*l.BridgeCost())
		if chromium {
			fmt.Fprintf(tw, "%.1f\t%.1f\t%.1f\t%+.0f%%\t%+.0f%%\t", float64(l.InWorker)/1e3, float64(l.FromPage)/1e3,
				float64(l.Echo)/1e3, 100*l.PageCost(), 100*l.PageCostOverEcho())
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// FloorPackage is the Go runtime's floor under wasm (wasm/bench/floor):
// small kernels of plain Go, none of tablelab, built natively and for
// GOOS=js with the same flags.
const FloorPackage = "./wasm/bench/floor"

// A FloorLine is one kernel of the floor, in nanoseconds per operation:
// native Go and the same Go as wasm under Node.
type FloorLine struct {
	Name         string
	Ops          int
	Native, Wasm float64
}

// WasmRatio is how many times slower the kernel runs as wasm.
func (l FloorLine) WasmRatio() float64 { return l.Wasm / l.Native }

// Floor runs the floor's kernels natively and as wasm, rounds times,
// alternating the two as Bench does, and keeps each kernel's fastest
// round. Scale is the fraction of each kernel's operations run (1 for the
// figures). Progress goes to log.
func Floor(root string, rounds int, scale float64, log io.Writer) ([]FloorLine, error) {
	tmp, err := os.MkdirTemp("", "tablelab-wasm-floor-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	native := filepath.Join(tmp, "floor")
	build := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", native, FloorPackage)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build %s: %v\n%s", FloorPackage, err, out)
	}
	wasmBin := filepath.Join(tmp, "floor.wasm")
	if err := Build(root, FloorPackage, wasmBin, true); err != nil {
		return nil, err
	}
	gr, err := goroot()
	if err != nil {
		return nil, err
	}
	arg := strconv.FormatFloat(scale, 'g', -1, 64)
	columns := [][]string{
		{native, "-scale", arg},
		{"node", filepath.Join(gr, "lib", "wasm", "wasm_exec_node.js"), wasmBin, "-scale", arg},
	}
	names := []string{"native", "wasm"}
	best, order, err := bestRounds(root, nil, columns, names, rounds, "floor round", log)
	if err != nil {
		return nil, err
	}
	var result []FloorLine
	for _, name := range order {
		n, w := best[0][name], best[1][name]
		if n.ops == 0 || w.ops == 0 {
			return nil, fmt.Errorf("the kernel %q is missing from a column", name)
		}
		if n.ops != w.ops {
			return nil, fmt.Errorf("the kernel %q ran %d operations natively, %d as wasm", name, n.ops, w.ops)
		}
		result = append(result, FloorLine{Name: name, Ops: n.ops, Native: n.ns, Wasm: w.ns})
	}
	return result, nil
}

// WriteFloor prints the floor as a table: each kernel's native and wasm
// times and their ratio, the floor beneath the workload's wasm/native.
func WriteFloor(w io.Writer, lines []FloorLine) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kernel\tops\tnative ns/op\twasm ns/op\twasm/native\t")
	for _, l := range lines {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%.2f×\t\n", l.Name, l.Ops, floorNs(l.Native), floorNs(l.Wasm), l.WasmRatio())
	}
	tw.Flush()
}

// floorNs prints a time per operation with three significant figures or
// more, as the kernels range from a nanosecond to a sort's tens of
// microseconds.
func floorNs(ns float64) string {
	switch {
	case ns < 10:
		return strconv.FormatFloat(ns, 'f', 2, 64)
	case ns < 100:
		return strconv.FormatFloat(ns, 'f', 1, 64)
	}
	return strconv.FormatFloat(ns, 'f', 0, 64)
}
