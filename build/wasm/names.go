// Package wasm builds the engine for the browser (GOOS=js GOARCH=wasm), checks
// its size against the budget and says which packages the size comes from.
package wasm

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"
)

// PackageSize is the code one Go package contributes to a wasm binary.
type PackageSize struct {
	Package string
	Bytes   int
}

// Breakdown attributes the code section of a wasm module built by Go to
// the packages its functions belong to, largest first, using the module's
// name section ("go tool nm" cannot read wasm). paths are the import
// paths linked in (go list -deps). A binary linked with -s has no name
// section; build one without it to measure.
func Breakdown(module []byte, paths []string) (packages []PackageSize, code int, err error) {
	m, err := parseModule(module)
	if err != nil {
		return nil, 0, err
	}
	if m.names == nil {
		return nil, 0, errors.New("wasm: the module has no name section (built with -s?)")
	}
	mangled := make(map[string]string, len(paths))
	for _, p := range paths {
		mangled[strings.ReplaceAll(p, "/", "_")] = p
	}
	sizes := map[string]int{}
	for i, n := range m.bodySizes {
		name := m.names[uint32(m.importedFuncs+i)]
		sizes[packageOf(name, mangled)] += n
		code += n
	}
	for p, n := range sizes {
		packages = append(packages, PackageSize{p, n})
	}
	sort.Slice(packages, func(i, j int) bool {
		if packages[i].Bytes != packages[j].Bytes {
			return packages[i].Bytes > packages[j].Bytes
		}
		return packages[i].Package < packages[j].Package
	})
	return packages, code, nil
}

// packageOf returns the import path of a function from its name in the
// name section, where Go's linker has replaced the slashes and brackets
// of the symbol with underscores ("github.com_tidwall_btree.__BTreeG_…_.Scan"),
// so the path is found among the mangled paths of the packages linked
// in: the longest one followed by a dot. Compiler generated functions
// (type equality and hashing) are "type:".
func packageOf(name string, mangled map[string]string) string {
	if strings.HasPrefix(name, "type_.") {
		return "type:"
	}
	best := ""
	for i := 0; i < len(name); i++ {
		if name[i] == '.' {
			if p, ok := mangled[name[:i]]; ok && len(p) > len(best) {
				best = p
			}
		}
	}
	if best == "" {
		return "(other)"
	}
	return best
}

// module is what Breakdown needs of a wasm module.
type module struct {
	importedFuncs int
	bodySizes     []int             // the size of each defined function's body
	names         map[uint32]string // function index → name
	sections      map[string]int    // section name → size
}

var errTruncated = errors.New("wasm: truncated module")

type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) uleb() uint64 {
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.err = errTruncated
		r.off = len(r.b)
		return 0
	}
	r.off += n
	return v
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)-r.off) {
		r.err = errTruncated
		r.off = len(r.b)
		return nil
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b
}

func (r *reader) byte1() byte {
	b := r.bytes(1)
	if b == nil {
		return 0
	}
	return b[0]
}

var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count"}

func parseModule(b []byte) (*module, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return nil, errors.New("wasm: not a wasm module")
	}
	m := &module{sections: map[string]int{}}
	r := &reader{b: b, off: 8}
	for r.off < len(b) && r.err == nil {
		id := r.byte1()
		body := &reader{b: r.bytes(r.uleb())}
		name := "unknown"
		if int(id) < len(sectionNames) {
			name = sectionNames[id]
		}
		switch id {
		case 0:
			custom := string(body.bytes(body.uleb()))
			name = "custom " + custom
			if custom == "name" {
				m.names = readFunctionNames(body)
			}
		case 2:
			m.importedFuncs = countFunctionImports(body)
		case 10:
			for n := body.uleb(); n > 0 && body.err == nil; n-- {
				size := body.uleb()
				body.bytes(size)
				m.bodySizes = append(m.bodySizes, int(size))
			}
		}
		if body.err != nil {
			return nil, body.err
		}
		m.sections[name] += len(body.b)
	}
	return m, r.err
}

// countFunctionImports counts the functions among an import section's
// entries, which come first in the function index space.
func countFunctionImports(r *reader) int {
	funcs := 0
	for n := r.uleb(); n > 0 && r.err == nil; n-- {
		r.bytes(r.uleb()) // module
		r.bytes(r.uleb()) // field
		switch r.byte1() {
		case 0: // function: a type index
			r.uleb()
			funcs++
		case 1: // table: a reference type and limits
			r.byte1()
			limits(r)
		case 2: // memory
			limits(r)
		case 3: // global: a value type and mutability
			r.byte1()
			r.byte1()
		}
	}
	return funcs
}

func limits(r *reader) {
	if r.byte1()&1 != 0 {
		r.uleb()
	}
	r.uleb()
}

// readFunctionNames reads the function-names subsection (id 1) of a name
// section.
func readFunctionNames(r *reader) map[uint32]string {
	names := map[uint32]string{}
	for r.off < len(r.b) && r.err == nil {
		id := r.byte1()
		sub := &reader{b: r.bytes(r.uleb())}
		if id != 1 {
			continue
		}
		for n := sub.uleb(); n > 0 && sub.err == nil; n-- {
			idx := sub.uleb()
			names[uint32(idx)] = string(sub.bytes(sub.uleb()))
		}
	}
	return names
}
