package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// memValues is Values over files held in memory, for tests of the store's
// side of settling.
type memValues struct{ files map[uint32][]byte }

func (m *memValues) ReadAt(p []byte, file uint32, off int64) (int, error) {
	f, ok := m.files[file]
	if !ok {
		return 0, fmt.Errorf("no file %d", file)
	}
	if off >= int64(len(f)) {
		return 0, fmt.Errorf("past the end")
	}
	n := copy(p, f[off:])
	if n < len(p) {
		return n, fmt.Errorf("short")
	}
	return n, nil
}

func (m *memValues) Pin() func() { return func() {} }

// TestSettledPlaceRoundTrip settles items with keys of every length class
// at places near the limits of each field, and reads the place back.
func TestSettledPlaceRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 600} {
		pk, rk := strings.Repeat("p", n), strings.Repeat("r", n+1)
		e := &Entity{PartitionKey: pk, RowKey: rk}
		enc := encodeEntity(e, 42)
		it := entityItem(7, enc, pk, rk)
		for _, p := range []struct {
			file uint32
			off  int64
		}{{1, 1}, {1<<32 - 1, 1<<40 + 3}, {9, 1<<62 + 5}} {
			s, ok := settledAt(it, len(enc), p.file, p.off)
			if !ok || !s.settled() {
				t.Fatalf("keys of %d: not settled at %+v", n, p)
			}
			file, off, vlen, head := s.place()
			if file != p.file || off != p.off || vlen != len(enc) || !strings.HasPrefix(enc, head) || len(head) != headLen(it) {
				t.Fatalf("keys of %d: place %d %d %d %q, want %+v %d", n, file, off, vlen, head, p, len(enc))
			}
			if s.size() != int64(len(enc)) || it.size() != int64(len(enc)) {
				t.Fatalf("keys of %d: sizes %d and %d, want %d", n, s.size(), it.size(), len(enc))
			}
			if s.pk() != pk || s.rk() != rk || less(s, it) || less(it, s) {
				t.Fatalf("keys of %d: a settled item does not keep its keys", n)
			}
			// Settling a settled item moves it, keeping one place only.
			again, _ := settledAt(s, len(enc), 3, 99)
			if f, o, _, h := again.place(); f != 3 || o != 99 || h != head {
				t.Fatalf("keys of %d: moved to %d %d %q", n, f, o, h)
			}
		}
	}
}

// TestSettledReadChecksHead checks that an entity whose place points at
// another entity fails to read, rather than answering with the other.
func TestSettledReadChecksHead(t *testing.T) {
	a := encodeEntity(&Entity{PartitionKey: "p", RowKey: "a"}, 1)
	b := encodeEntity(&Entity{PartitionKey: "p", RowKey: "b"}, 1)
	vals := &memValues{files: map[uint32][]byte{2: []byte("xxxx" + a + b)}}
	s := New(Options{Values: vals})
	good, _ := settledAt(entityItem(1, a, "p", "a"), len(a), 2, 4)
	if enc, err := s.load(good); err != nil || enc != a {
		t.Fatalf("load: %q, %v", enc, err)
	}
	wrong, _ := settledAt(entityItem(1, a, "p", "a"), len(b), 2, int64(4+len(a)))
	if _, err := s.load(wrong); err != errValueMismatch {
		t.Fatalf("load of a misplaced entity: %v", err)
	}
	vr := valueReader{s: s}
	if _, err := vr.get(wrong); err != errValueMismatch {
		t.Fatalf("window read of a misplaced entity: %v", err)
	}
	past, _ := settledAt(entityItem(1, a, "p", "a"), len(a), 2, 1000)
	if _, err := s.load(past); err == nil {
		t.Fatal("read past the end of a file succeeded")
	}
	if _, err := vr.get(past); err == nil {
		t.Fatal("window read past the end of a file succeeded")
	}
}

// settleAll settles every entity of s into one file of vals, as a
// snapshot would.
func settleAll(t *testing.T, s *Store, vals *memValues, file uint32) {
	t.Helper()
	buf := []byte("head")
	var settled []item
	s.tree.Scan(func(it item) bool {
		off := int64(len(buf))
		buf = append(buf, it.enc...)
		st, ok := settledAt(it, len(it.enc), file, off)
		if !ok {
			t.Fatalf("%s/%s did not settle", it.pk(), it.rk())
		}
		settled = append(settled, st)
		return true
	})
	vals.files[file] = buf
	for _, it := range settled {
		s.tree.Set(it)
	}
}

// TestResidueFilters runs filters over settled entities, which decide from
// the residue in memory or read the whole entity back when they need a
// long value, against the same entities held whole in memory: the pages
// must be the same.
func TestResidueFilters(t *testing.T) {
	vals := &memValues{files: map[uint32][]byte{}}
	settledStore := New(Options{Now: fixedClock, Values: vals})
	memStore := New(Options{Now: fixedClock})
	long := strings.Repeat("x", residueMax)
	longer := strings.Repeat("y", 300)
	for _, s := range []*Store{settledStore, memStore} {
		if err := s.CreateTable("Things"); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 300; i++ {
			g, _ := edm.ParseGuid(fmt.Sprintf("c9da6455-213d-42c9-9a79-%012d", i))
			e := ent(fmt.Sprintf("p%d", i/100), fmt.Sprintf("r%03d", i),
				"Code", fmt.Sprintf("c%d", i%10),
				"Note", fmt.Sprintf("note %d %s", i%7, longer), // always deferred
				"Edge", long[:residueMax-i%2], // residueMax bytes or one less: kept
				"Bin", edm.BinaryValue(bytes.Repeat([]byte{byte(i)}, 1+i%40)), // kept or deferred
				"Id", g,
				"Num", i)
			if _, err := s.Write("Things", Op{Kind: Insert, Entity: e}); err != nil {
				t.Fatal(err)
			}
		}
	}
	settleAll(t, settledStore, vals, 1)
	if r := settledStore.Residency(); r.Settled != 300 || r.HeldBytes > settledStore.DataBytes()/2 {
		t.Fatalf("residency %+v of %d data bytes: the long values must stay in the file", r, settledStore.DataBytes())
	}
	// Which values each residue leaves in the file: those over residueMax.
	for _, c := range []struct{ rk, deferred string }{{"r005", "Note"}, {"r035", "Note"}, {"r036", "Bin Note"}, {"r039", "Bin Note"}} {
		it, ok := settledStore.tree.Get(keyItem(1, "p0", c.rk))
		if !ok || !it.settled() {
			t.Fatalf("%s is not settled", c.rk)
		}
		r := reader{s: it.enc, off: headLen(it)}
		var names []string
		for n := r.uvarint(); n > 0 && !r.err; n-- {
			name := r.str()
			kind, _ := splitKind(r.byte1())
			if kind == deferredKind {
				names = append(names, name)
			}
			r.skip(kind)
		}
		if got := strings.Join(names, " "); r.err || got != c.deferred {
			t.Fatalf("%s: the residue defers %q, want %q", c.rk, got, c.deferred)
		}
	}
	for _, f := range []string{
		"Num gt 250",
		"Code eq 'c7'",
		"Edge eq '" + long[:residueMax-1] + "'",
		"Note eq 'note 3 " + longer + "'",
		"not (Note eq 'note 3 " + longer + "')",
		"Note ge 'note 5'",
		"Num lt 20 or Note eq 'note 6 " + longer + "'",
		"PartitionKey eq 'p1' and Code ne 'c1' and Note lt 'note 2'",
		"Bin eq X'0a0a0a0a0a0a0a0a0a0a0a'",
		"Bin eq X'" + strings.Repeat("21", 34) + "'",
		"Id eq guid'c9da6455-213d-42c9-9a79-000000000042'",
		"Missing eq 1 or Num eq 3",
	} {
		got, want := pageKeys(t, settledStore, f), pageKeys(t, memStore, f)
		if got != want || want == "" {
			t.Fatalf("%s: settled store answers %q, in memory %q", f, got, want)
		}
	}
}

// pageKeys runs a filter to the end and lists the keys it returns, with
// one property read from each entity to show it is whole.
func pageKeys(t *testing.T, s *Store, filter string) string {
	t.Helper()
	var b strings.Builder
	q := Query{Filter: filter}
	for {
		p, err := s.Query("Things", q)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		for _, e := range p.Entities {
			note, _ := e.Property("Note")
			fmt.Fprintf(&b, "%s/%s:%d ", e.PartitionKey, e.RowKey, len(note.Str()))
		}
		if p.Next == nil {
			return b.String()
		}
		q.After = p.Next
	}
}
