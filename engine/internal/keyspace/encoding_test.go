package keyspace

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/tablelab/tablelab/engine/edm"
)

type prop struct {
	name string
	v    edm.Value
}

// encode writes an entity's encoding from properties sorted by name.
func encode(ticks int64, pk, rk string, props ...prop) string {
	text := 0
	for _, p := range props {
		text += len(p.name) + len(p.v.Str())
	}
	e := NewEncoder(ticks, pk, rk, len(props), text)
	for _, p := range props {
		e.Property(p.name, p.v)
	}
	return e.Finish()
}

// decode reads an encoding back with a Decoder.
func decode(enc string) (pk, rk string, props []prop, err error) {
	d := NewDecoder(enc)
	_, pk, rk, n, ok := d.Header()
	if !ok {
		return "", "", nil, ErrCorrupt
	}
	for i := 0; i < n; i++ {
		name, v := d.Property()
		props = append(props, prop{name, v})
	}
	return pk, rk, props, d.End()
}

// TestPlainStringsInEncoding checks the plain mark end to end: set on the
// kind byte of exactly the strings that need no escaping, read back as a
// value that writes the same JSON and compares equal to the same text,
// found by filters, absent from encodings written without it (which read
// the same), and refused on any kind but String.
func TestPlainStringsInEncoding(t *testing.T) {
	props := []prop{
		{"Accent", edm.StringValue("café")},
		{"Count", edm.Int32Value(7)},
		{"Empty", edm.StringValue("")},
		{"Plain", edm.StringValue(strings.Repeat("plain text, 0-9 ", 5))},
		{"Quote", edm.StringValue(`say "hi"`)},
		{"Tab", edm.StringValue("a\tb")},
	}
	plain := map[string]bool{"Empty": true, "Plain": true}
	enc := encode(42, "p", "r", props...)

	// Find each property's kind byte by walking the encoding.
	r := reader{s: enc}
	r.header()
	for _, p := range props {
		if name := r.str(); name != p.name {
			t.Fatalf("property %q where %q was expected", name, p.name)
		}
		at := r.off
		kind, isPlain := splitKind(r.byte1())
		if kind != p.v.Kind() || isPlain != plain[p.name] {
			t.Fatalf("%s: kind %v plain %v, want %v plain %v", p.name, kind, isPlain, p.v.Kind(), plain[p.name])
		}
		if got := enc[at]&plainBit != 0; got != plain[p.name] {
			t.Fatalf("%s: plain bit %v in the kind byte", p.name, got)
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
		pk, rk, back, err := decode(form)
		if err != nil || pk != "p" || rk != "r" || len(back) != len(props) || !Valid(form) {
			t.Fatalf("decoded %q %q %v: %v", pk, rk, back, err)
		}
		rec := &Record{Enc: form}
		for i, p := range props {
			got := back[i].v
			if back[i].name != p.name || !edm.Equal(got, p.v) {
				t.Fatalf("%s read back as %s %v, want %v", p.name, back[i].name, got, p.v)
			}
			if a, b := string(edm.AppendJSON(nil, got)), string(edm.AppendJSON(nil, p.v)); a != b {
				t.Fatalf("%s writes %s, want %s", p.name, a, b)
			}
			if f, ok := rec.Property(p.name); !ok || !edm.Equal(f, p.v) {
				t.Fatalf("%s as a filter sees it: %v, want %v", p.name, f, p.v)
			}
		}
	}

	// The bit on an Int32 is damage, not a kind.
	bad := []byte(enc)
	r = reader{s: enc}
	r.header()
	for _, p := range props {
		r.str()
		if p.name == "Count" {
			bad[r.off] |= plainBit
		}
		kind, _ := splitKind(enc[r.off])
		r.off++
		r.skip(kind)
	}
	if _, _, _, err := decode(string(bad)); err == nil {
		t.Fatal("a plain bit on an Int32 was read as a value")
	}
	if Valid(string(bad)) {
		t.Fatal("a plain bit on an Int32 passes as a whole encoding")
	}
}

// TestRecordReadsKeysAndTimestamp checks that a filter reads the system
// properties from the head, wherever the properties start.
func TestRecordReadsKeysAndTimestamp(t *testing.T) {
	enc := encode(77, "part", "row", prop{"A", edm.Int32Value(1)})
	it := ItemOf(3, enc, "part", "row")
	for _, rec := range []*Record{{Enc: enc}, {Enc: enc, Props: it.HeadLen()}} {
		pk, ok1 := rec.Property("PartitionKey")
		rk, ok2 := rec.Property("RowKey")
		ts, ok3 := rec.Property("Timestamp")
		a, ok4 := rec.Property("A")
		_, ok5 := rec.Property("B")
		if !ok1 || !ok2 || !ok3 || !ok4 || ok5 || pk.Str() != "part" || rk.Str() != "row" || ts.Ticks() != 77 || a.Int() != 1 {
			t.Fatalf("record %+v reads %v %v %v %v", rec, pk, rk, ts, a)
		}
	}
}

// TestDecodeRefusesDamage truncates an encoding at every length: each
// prefix fails to decode and is not Valid, and none panics.
func TestDecodeRefusesDamage(t *testing.T) {
	enc := encode(5, "p", "r", prop{"B", edm.BoolValue(true)}, prop{"N", edm.Int64Value(9)}, prop{"S", edm.StringValue("text")})
	for i := 0; i < len(enc); i++ {
		if _, _, _, err := decode(enc[:i]); err == nil || Valid(enc[:i]) {
			t.Fatalf("a prefix of %d bytes of %d decodes", i, len(enc))
		}
	}
	if _, _, _, err := decode(enc + "x"); err == nil || Valid(enc+"x") {
		t.Fatal("an encoding with a byte past its end decodes")
	}
}

// TestRecordRepeatedLookup checks the Record's memory of its last
// property: a second question about the same property has the same
// answer, a question about another is read afresh, and Reset forgets the
// previous entity, including one held in the same buffer.
func TestRecordRepeatedLookup(t *testing.T) {
	a := encode(1, "p", "r", prop{"A", edm.Int32Value(1)}, prop{"N", edm.Int32Value(7)})
	b := encode(1, "p", "r", prop{"A", edm.Int32Value(2)}, prop{"N", edm.Int32Value(9)})
	buf := []byte(a)
	enc := unsafe.String(unsafe.SliceData(buf), len(buf))
	var rec Record
	rec.Reset(enc, 0)
	for range 2 {
		if v, ok := rec.Property("N"); !ok || v.Int() != 7 {
			t.Fatalf("N = %v, %v; want 7", v, ok)
		}
	}
	if v, ok := rec.Property("A"); !ok || v.Int() != 1 {
		t.Fatalf("A = %v, %v; want 1", v, ok)
	}
	if _, ok := rec.Property("Missing"); ok {
		t.Fatal("a missing property was found")
	}
	copy(buf, b) // the next entity in the same buffer, as a read-back window reuses it
	rec.Reset(enc, 0)
	if v, ok := rec.Property("N"); !ok || v.Int() != 9 {
		t.Fatalf("after Reset, N = %v, %v; want 9", v, ok)
	}
}

// TestRecordOnEveryKindAndDamage checks a filter's reads over properties
// of every kind, with names that sort before, between and after them
// and share their first bytes, on the whole encoding (each found as
// stored, the others absent) and on every truncation of it and every
// changed byte (no panic; a value found in a damaged encoding is at worst
// another value, never a read out of bounds).
func TestRecordOnEveryKindAndDamage(t *testing.T) {
	props := []prop{
		{"B", edm.BoolValue(true)},
		{"Bin", edm.BinaryValue([]byte{0, 1, 2})},
		{"D", edm.DoubleValue(2.5)},
		{"G", edm.GuidString("c9da6455-213d-42c9-9a79-3e9149a57833")},
		{"I", edm.Int32Value(-4)},
		{"L", edm.Int64Value(1 << 40)},
		{"Long", edm.StringValue(strings.Repeat("x", 200))},
		{"S", edm.StringValue("text")},
		{"T", edm.DateTimeTicks(edm.MinDateTimeTicks + 5)},
	}
	enc := encode(42, "pk", "rk", props...)
	absent := []string{"", "A", "Bi", "Bio", "C", "Loo", "Longer", "Z", "Sa"}
	it := ItemOf(1, enc, "pk", "rk")
	for _, start := range []int{0, it.HeadLen()} {
		var rec Record
		rec.Reset(enc, start)
		for _, p := range props {
			for range 2 { // the second read comes from the Record's memory
				if v, ok := rec.Property(p.name); !ok || !edm.Equal(v, p.v) {
					t.Fatalf("%s = %v, %v; want %v", p.name, v, ok, p.v)
				}
			}
		}
		for _, name := range absent {
			if v, ok := rec.Property(name); ok {
				t.Fatalf("%q found as %v", name, v)
			}
		}
	}
	names := append(absent[:len(absent):len(absent)], "B", "Bin", "D", "G", "I", "L", "Long", "S", "T")
	read := func(damaged string) {
		var rec Record
		rec.Reset(damaged, 0)
		for _, name := range names {
			rec.Property(name)
		}
	}
	for n := range len(enc) {
		read(enc[:n])
	}
	for i := range len(enc) {
		for _, b := range []byte{0, 0x7f, 0x80, 0xff} {
			d := []byte(enc)
			d[i] = b
			read(string(d))
		}
	}
}
