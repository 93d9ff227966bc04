package engine

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// TestPlainStringsInEncoding checks the plain mark end to end: set on the
// kind byte of exactly the strings that need no escaping, read back as a
// value that writes the same JSON and compares equal to the same text,
// found by filters, absent from encodings written without it (which read
// the same), and refused on any kind but String.
func TestPlainStringsInEncoding(t *testing.T) {
	props := []Property{
		{Name: "Accent", Value: edm.StringValue("café")},
		{Name: "Count", Value: edm.Int32Value(7)},
		{Name: "Empty", Value: edm.StringValue("")},
		{Name: "Plain", Value: edm.StringValue(strings.Repeat("plain text, 0-9 ", 5))},
		{Name: "Quote", Value: edm.StringValue(`say "hi"`)},
		{Name: "Tab", Value: edm.StringValue("a\tb")},
	}
	plain := map[string]bool{"Empty": true, "Plain": true}
	e := &Entity{PartitionKey: "p", RowKey: "r", Properties: props}
	enc := encodeEntity(e, 42)

	// Find each property's kind byte by walking the encoding.
	r := reader{s: enc}
	r.header()
	for _, p := range props {
		if name := r.str(); name != p.Name {
			t.Fatalf("property %q where %q was expected", name, p.Name)
		}
		at := r.off
		kind, isPlain := splitKind(r.byte1())
		if kind != p.Value.Kind() || isPlain != plain[p.Name] {
			t.Fatalf("%s: kind %v plain %v, want %v plain %v", p.Name, kind, isPlain, p.Value.Kind(), plain[p.Name])
		}
		if got := enc[at]&plainBit != 0; got != plain[p.Name] {
			t.Fatalf("%s: plain bit %v in the kind byte", p.Name, got)
		}
		r.skip(kind)
	}
	if r.err || r.off != len(enc) {
		t.Fatal("walk did not end at the end of the encoding")
	}

	// The same entity written without any plain bit, as earlier builds did.
	old := []byte(enc)
	r = reader{s: enc}
	r.header()
	for range props {
		r.str()
		kind, _ := splitKind(enc[r.off])
		old[r.off] = byte(kind)
		r.off++
		r.skip(kind)
	}

	for _, form := range []string{enc, string(old)} {
		back, err := decodeEntity(form)
		if err != nil {
			t.Fatal(err)
		}
		rec := &encodedRecord{enc: form}
		for _, p := range props {
			got, ok := back.Property(p.Name)
			if !ok || !edm.Equal(got, p.Value) {
				t.Fatalf("%s read back as %v, want %v", p.Name, got, p.Value)
			}
			if a, b := string(edm.AppendJSON(nil, got)), string(edm.AppendJSON(nil, p.Value)); a != b {
				t.Fatalf("%s writes %s, want %s", p.Name, a, b)
			}
			if f, ok := rec.Property(p.Name); !ok || !edm.Equal(f, p.Value) {
				t.Fatalf("%s as a filter sees it: %v, want %v", p.Name, f, p.Value)
			}
		}
	}

	// The bit on an Int32 is damage, not a kind.
	bad := []byte(enc)
	r = reader{s: enc}
	r.header()
	for _, p := range props {
		r.str()
		if p.Name == "Count" {
			bad[r.off] |= plainBit
		}
		kind, _ := splitKind(enc[r.off])
		r.off++
		r.skip(kind)
	}
	if _, err := decodeEntity(string(bad)); err == nil {
		t.Fatal("a plain bit on an Int32 was read as a value")
	}
}
