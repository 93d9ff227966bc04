package wasm

import (
	"slices"
	"strings"
	"testing"
)

// TestNoInlinePackagesAreLinked guards the flags against a package renamed
// or moved: a -gcflags pattern that matches nothing is silently ignored.
func TestNoInlinePackagesAreLinked(t *testing.T) {
	deps, err := Deps("../..", BrowserPackage)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range noInline {
		if !slices.Contains(deps, "github.com/tablelab/tablelab/"+p) {
			t.Errorf("%s is not linked into %s", p, BrowserPackage)
		}
	}
	flags := EngineFlags()
	if len(flags) != len(noInline) {
		t.Fatalf("EngineFlags = %q", flags)
	}
	for i, f := range flags {
		if !strings.HasPrefix(f, "-gcflags=github.com/tablelab/tablelab/"+noInline[i]+"=") {
			t.Errorf("flag %q does not name %s", f, noInline[i])
		}
	}
}
