package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// TestOutput runs every kernel briefly and checks the lines that
// build/wasm reads: one per kernel, in order, each a name, a count of
// operations and a positive time per operation.
func TestOutput(t *testing.T) {
	var out bytes.Buffer
	run(&out, 0.001)
	ks := kernels()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != len(ks) {
		t.Fatalf("%d lines for %d kernels:\n%s", len(lines), len(ks), out.String())
	}
	seen := map[string]bool{}
	for i, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("line %q: not three fields", line)
		}
		if f[0] != ks[i].name || seen[f[0]] {
			t.Errorf("line %d names %q, want %q once", i, f[0], ks[i].name)
		}
		seen[f[0]] = true
		ops, err := strconv.Atoi(f[1])
		if err != nil || ops != max(int(float64(ks[i].ops)*0.001), 1) {
			t.Errorf("line %q: ops %q", line, f[1])
		}
		ns, err := strconv.ParseFloat(f[2], 64)
		if err != nil || ns < 0 {
			t.Errorf("line %q: ns/op %q", line, f[2])
		}
	}
}

// TestKernelsWork checks that each kernel leaves a result in sink: a
// kernel whose work the compiler could drop would leave it as it was.
func TestKernelsWork(t *testing.T) {
	for _, k := range kernels() {
		before := sink
		k.run(max(k.ops/1000, 2))
		if sink == before {
			t.Errorf("%s left sink as it was", k.name)
		}
	}
}
