package wasm

import (
	"encoding/binary"
	"strings"
	"testing"
)

// buildModule builds a wasm module by hand: an import section with one
// function import (and a memory import, which does not count), a code
// section with bodies of the given sizes, and a name section naming every
// function.
func buildModule(bodies []int, names map[uint32]string) []byte {
	section := func(id byte, payload []byte) []byte {
		b := []byte{id}
		b = binary.AppendUvarint(b, uint64(len(payload)))
		return append(b, payload...)
	}
	str := func(b []byte, s string) []byte {
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...)
	}
	out := []byte("\x00asm\x01\x00\x00\x00")

	var imports []byte
	imports = binary.AppendUvarint(imports, 2)
	imports = str(imports, "go")
	imports = str(imports, "debug")
	imports = append(imports, 0, 0) // a function of type 0
	imports = str(imports, "env")
	imports = str(imports, "mem")
	imports = append(imports, 2, 1, 1, 2) // a memory with min 1, max 2
	out = append(out, section(2, imports)...)

	var code []byte
	code = binary.AppendUvarint(code, uint64(len(bodies)))
	for _, n := range bodies {
		code = binary.AppendUvarint(code, uint64(n))
		code = append(code, make([]byte, n)...)
	}
	out = append(out, section(10, code)...)

	var fn []byte
	fn = binary.AppendUvarint(fn, uint64(len(names)))
	for i := range uint32(len(bodies) + 1) {
		if name, ok := names[i]; ok {
			fn = binary.AppendUvarint(fn, uint64(i))
			fn = str(fn, name)
		}
	}
	var name []byte
	name = str(name, "name")
	name = append(name, 0, 1, 'm') // a module-name subsection, skipped
	name = append(name, 1)
	name = binary.AppendUvarint(name, uint64(len(fn)))
	name = append(name, fn...)
	return append(out, section(0, name)...)
}

func TestBreakdown(t *testing.T) {
	bodies := []int{100, 200, 300, 40, 5, 7}
	names := map[uint32]string{
		0: "go.debug", // the import: no body
		1: "runtime.mallocgc",
		2: "github.com_tidwall_btree.__BTreeG_go.shape.struct_github.com_tablelab_tablelab_engine.item_.Scan",
		3: "github.com_tablelab_tablelab_engine.__Store_.Get",
		4: "runtime.__mheap_.alloc",
		5: "type_.eq.github.com_tablelab_tablelab_engine.item",
		6: "github.com_tablelab_tablelab_engine_api_jsonwire.DecodeEntity",
	}
	paths := []string{"runtime", "github.com/tidwall/btree", "github.com/tablelab/tablelab/engine", "github.com/tablelab/tablelab/engine/api/jsonwire"}
	got, code, err := Breakdown(buildModule(bodies, names), paths)
	if err != nil {
		t.Fatal(err)
	}
	if code != 652 {
		t.Fatalf("code %d, want 652", code)
	}
	want := []PackageSize{
		{"github.com/tablelab/tablelab/engine", 300},
		{"github.com/tidwall/btree", 200},
		{"runtime", 140},
		{"github.com/tablelab/tablelab/engine/api/jsonwire", 7},
		{"type:", 5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestBreakdownErrors(t *testing.T) {
	if _, _, err := Breakdown([]byte("not wasm"), nil); err == nil {
		t.Error("accepted a file that is not wasm")
	}
	m := buildModule([]int{10}, map[uint32]string{1: "runtime.f"})
	if _, _, err := Breakdown(m[:len(m)-3], nil); err == nil {
		t.Error("accepted a truncated module")
	}
	if _, _, err := Breakdown([]byte("\x00asm\x01\x00\x00\x00"), nil); err == nil {
		t.Error("accepted a module without a name section")
	}
}

func TestCheckDeps(t *testing.T) {
	if err := CheckDeps([]string{"strconv", "github.com/tablelab/tablelab/engine"}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"net/http", "encoding/json", "fmt"} {
		if err := CheckDeps([]string{"strconv", f}); err == nil {
			t.Fatalf("%s passed", f)
		}
	}
}

func TestSizesBudget(t *testing.T) {
	if err := (Sizes{Gzip: CeilingGzip}).CheckBudget(); err != nil {
		t.Fatal(err)
	}
	if err := (Sizes{Gzip: CeilingGzip + 1}).CheckBudget(); err == nil {
		t.Fatal("one byte over the ceiling passed")
	}
	if over := (Sizes{Raw: 1, Gzip: BudgetGzip + 1}).String(); !strings.Contains(over, "OVER the budget") {
		t.Fatalf("a build over the budget is not said to be: %s", over)
	}
	if CeilingGzip < BudgetGzip {
		t.Fatal("the ceiling is below the budget: make them one")
	}
	if BudgetGzip != 1258291 {
		t.Fatalf("budget %d B is not 1.2 MiB", BudgetGzip)
	}
}

func TestMeasure(t *testing.T) {
	data := make([]byte, 64<<10) // zeros compress to almost nothing
	s, err := Measure(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.Raw != len(data) || s.Gzip <= 0 || s.Gzip > 1<<10 {
		t.Fatalf("%+v", s)
	}
}

func TestParseBench(t *testing.T) {
	lines, err := parseLines([]byte("insert\t100\t2500\npoint read\t100\t900\n"))
	if err != nil || len(lines) != 2 || lines[1] != (measured{"point read", 100, 900}) || lines[1].nsInt() != 900 {
		t.Fatalf("%v %v", lines, err)
	}
	for _, bad := range []string{"", "insert 100 2500\n", "insert\tx\t1\n"} {
		if _, err := parseLines([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestCountTAP(t *testing.T) {
	report := "TAP version 13\n# Subtest: a\nok 1 - a\n  ---\n# Subtest: b\n    not ok 1 - inner\nnot ok 2 - b\n1..2\n"
	got := countTAP([]byte(report))
	if got.Passed != 1 || got.Failed != 1 || len(got.Failures) != 1 || !strings.Contains(got.Failures[0], "not ok 2 - b") {
		t.Fatalf("%+v", got)
	}
}

// A skipped test of worker.js is a skip with its reason, not a pass.
func TestCountTAPSkips(t *testing.T) {
	got := countTAP([]byte("ok 1 - a\nok 2 - b # SKIP no IndexedDB here\nok 3 - c # TODO\n"))
	if got.Passed != 1 || got.Skipped != 2 || got.Skips[0] != "wasm: worker.js b (skip: no IndexedDB here)" || got.Skips[1] != "wasm: worker.js c (todo: no reason given)" {
		t.Fatalf("%+v", got)
	}
}

func TestCheckServices(t *testing.T) {
	all := append([]string{"fmt"}, Services...)
	if err := CheckServices(all); err != nil {
		t.Fatal(err)
	}
	err := CheckServices([]string{"github.com/tablelab/tablelab/engine/api", "github.com/tablelab/tablelab/engine/api/queueapi"})
	if err == nil || !strings.Contains(err.Error(), "blobapi") || strings.Contains(err.Error(), "queueapi") {
		t.Fatalf("a build without the Blob service: %v", err)
	}
}
