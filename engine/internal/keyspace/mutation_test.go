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

// TestReplaceRoundTrip writes a Replace record of two tables and an empty
// one, reads it back, and refuses every truncation and a damaged put.
func TestReplaceRoundTrip(t *testing.T) {
	a := encode(10, "p", "a", prop{"N", edm.Int32Value(1)})
	b := encode(11, "q", "b")
	tables := []TableImage{
		{ID: 4, Name: "Orders", Changes: []Change{{Put: true, PK: "p", RK: "a", Enc: a}, {Put: true, PK: "q", RK: "b", Enc: b}}},
		{ID: 5, Name: "Empty"},
		{ID: 9, Name: "Last", Changes: []Change{{Put: true, PK: "q", RK: "b", Enc: b}}},
	}
	rec := AppendReplace(nil, tables)
	m, err := DecodeMutation(rec)
	if err != nil || m.Kind != Replace || len(m.Tables) != 3 {
		t.Fatalf("replace read back as %+v, %v", m, err)
	}
	for i, want := range tables {
		got := m.Tables[i]
		if got.ID != want.ID || got.Name != want.Name || len(got.Changes) != len(want.Changes) {
			t.Fatalf("table %d read back as %+v, want %+v", i, got, want)
		}
		for j, c := range got.Changes {
			w := want.Changes[j]
			if !c.Put || c.PK != w.PK || c.RK != w.RK || c.Enc != w.Enc || string(rec[c.Off:c.Off+len(c.Enc)]) != w.Enc {
				t.Fatalf("table %d, put %d read back as %+v, want %+v", i, j, c, w)
			}
		}
	}
	if m, err := DecodeMutation(AppendReplace(nil, nil)); err != nil || m.Kind != Replace || len(m.Tables) != 0 {
		t.Fatalf("a replace by no tables read back as %+v, %v", m, err)
	}
	for i := range rec {
		if _, err := DecodeMutation(rec[:i]); err == nil {
			t.Fatalf("a replace record truncated to %d bytes of %d decodes", i, len(rec))
		}
	}
	bad := AppendReplace(nil, []TableImage{{ID: 4, Name: "T", Changes: []Change{{Put: true, Enc: a[:len(a)-1]}}}})
	if _, err := DecodeMutation(bad); err == nil {
		t.Fatal("a replace of a damaged encoding decodes")
	}
	if _, err := DecodeMutation(AppendReplace(nil, []TableImage{{ID: 0, Name: "T"}})); err == nil {
		t.Fatal("a replace naming table id 0 decodes")
	}
}

func TestRestamp(t *testing.T) {
	a := encode(10, "p", "a", prop{"N", edm.Int32Value(1)})
	r := Restamp(a, 99)
	ticks, pk, rk, ok := Header(r)
	if !ok || ticks != 99 || pk != "p" || rk != "a" || r[8:] != a[8:] || Ticks(a) != 10 {
		t.Fatalf("restamped %q as %q", a, r)
	}
}
