package wasm

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestFloorOutputParses runs the floor natively, briefly, and reads its
// output as Floor does: every kernel a line, none twice, the control
// among them, and the table printing each.
func TestFloorOutputParses(t *testing.T) {
	cmd := exec.Command("go", "run", FloorPackage, "-scale", "0.001")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run %s: %v", FloorPackage, err)
	}
	parsed, err := parseLines(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"integer loop (the control)", "plain call (not inlined)", "interface method call",
		"string == (16 B, differ in last)", "string == (64 B, differ in last)", "bytes.IndexByte (256 B)",
		"copy (4 KiB)", "map[string]int lookup (16 B keys, 1,000)", "slices.Sort (1,000 short strings)",
		"strconv.ParseFloat", "strconv.AppendInt", "time.Now", "append-grow []byte (256 appends)",
		"new 32 B struct with a pointer",
	}
	if len(parsed) != len(want) {
		t.Fatalf("%d kernels, want %d:\n%s", len(parsed), len(want), out)
	}
	lines := make([]FloorLine, len(parsed))
	for i, p := range parsed {
		if p.name != want[i] {
			t.Errorf("kernel %d is %q, want %q", i, p.name, want[i])
		}
		lines[i] = FloorLine{Name: p.name, Ops: p.ops, Native: p.ns + 1, Wasm: 2 * (p.ns + 1)}
	}
	var table bytes.Buffer
	WriteFloor(&table, lines)
	for _, name := range want {
		if !strings.Contains(table.String(), name) {
			t.Errorf("the table does not name %q:\n%s", name, table.String())
		}
	}
	if got := strings.Count(table.String(), "2.00×"); got != len(want) {
		t.Errorf("%d ratios of 2.00×, want %d:\n%s", got, len(want), table.String())
	}
}

func TestParseLinesRejects(t *testing.T) {
	for _, out := range []string{"", "copy\t10\n", "copy\tten\t1.5\n", "copy\t10\t-1\n", "copy\t0\t1.5\n"} {
		if _, err := parseLines([]byte(out)); err == nil {
			t.Errorf("parseLines(%q) accepted it", out)
		}
	}
}
