package keyspace

import (
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// TestMutationRoundTrip writes each kind of record and reads it back with
// the decoder replay and settling share; a put's Off finds its encoding
// in the record, and every truncation of a record is refused.
func TestMutationRoundTrip(t *testing.T) {
	a := encode(10, "p", "a", prop{"N", edm.Int32Value(1)})
	b := encode(11, "p", "b")
	w := AppendWrite(nil, 7, []Change{{Put: true, PK: "p", RK: "a", Enc: a}, {PK: "p", RK: "gone"}, {Put: true, PK: "p", RK: "b", Enc: b}})
	m, err := DecodeMutation(w)
	if err != nil || m.Kind != Write || m.Table != 7 || len(m.Changes) != 3 {
		t.Fatalf("write read back as %+v, %v", m, err)
	}
	for i, want := range []Change{{Put: true, PK: "p", RK: "a", Enc: a}, {PK: "p", RK: "gone"}, {Put: true, PK: "p", RK: "b", Enc: b}} {
		c := m.Changes[i]
		if c.Put != want.Put || c.PK != want.PK || c.RK != want.RK || c.Enc != want.Enc {
			t.Fatalf("change %d read back as %+v, want %+v", i, c, want)
		}
		if c.Put && string(w[c.Off:c.Off+len(c.Enc)]) != want.Enc {
			t.Fatalf("change %d: Off %d does not point at its encoding", i, c.Off)
		}
	}
	for _, rec := range [][]byte{AppendCreateTable(nil, 3, "Orders"), AppendDeleteTable(nil, 3), w} {
		for i := range rec {
			if _, err := DecodeMutation(rec[:i]); err == nil {
				t.Fatalf("a record of kind %d truncated to %d bytes of %d decodes", rec[0], i, len(rec))
			}
		}
	}
	if m, err := DecodeMutation(AppendCreateTable(nil, 3, "Orders")); err != nil || m.Kind != CreateTable || m.Table != 3 || m.Name != "Orders" {
		t.Fatalf("create read back as %+v, %v", m, err)
	}
	if _, err := DecodeMutation(AppendCreateTable(nil, 0, "Orders")); err == nil {
		t.Fatal("a table of id 0 decodes")
	}
	// A put whose encoding is damaged is refused whole.
	bad := AppendWrite(nil, 7, []Change{{Put: true, Enc: a[:len(a)-1]}})
	if _, err := DecodeMutation(bad); err == nil {
		t.Fatal("a write of a damaged encoding decodes")
	}
}
