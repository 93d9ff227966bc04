package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/keyspace"
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

// settleAll settles every entity of s into one file of vals, as a
// snapshot would.
func settleAll(t *testing.T, s *Store, vals *memValues, file uint32) {
	t.Helper()
	buf := []byte("head")
	var settled []keyspace.Item
	s.tree.Scan(func(it keyspace.Item) bool {
		off := int64(len(buf))
		buf = append(buf, it.Enc...)
		st, ok := keyspace.SettledAt(it, len(it.Enc), file, off)
		if !ok {
			t.Fatalf("%s/%s did not settle", it.PK(), it.RK())
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
	settledStore, recovery := NewDurable(Options{Now: fixedClock, Values: vals})
	memStore := New(Options{Now: fixedClock})
	long := strings.Repeat("x", keyspace.ResidueMax)
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
				"Edge", long[:keyspace.ResidueMax-i%2], // keyspace.ResidueMax bytes or one less: kept
				"Bin", edm.BinaryValue(bytes.Repeat([]byte{byte(i)}, 1+i%40)), // kept or deferred
				"Id", g,
				"Num", i)
			if _, err := s.Write("Things", Op{Kind: Insert, Entity: e}); err != nil {
				t.Fatal(err)
			}
		}
	}
	settleAll(t, settledStore, vals, 1)
	if r := recovery.Residency(); r.Settled != 300 || r.HeldBytes > recovery.DataBytes()/2 {
		t.Fatalf("residency %+v of %d data bytes: the long values must stay in the file", r, recovery.DataBytes())
	}
	for _, f := range []string{
		"Num gt 250",
		"Code eq 'c7'",
		"Edge eq '" + long[:keyspace.ResidueMax-1] + "'",
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

// TestSettleAndReplayFromRecords lays a store's journal records in a file
// and settles the store from them, then replays them into a second store
// that reads the same file: both must answer as the store did with every
// entity in memory, and hold every current entity settled.
func TestSettleAndReplayFromRecords(t *testing.T) {
	j := &memJournal{}
	vals := &memValues{files: map[uint32][]byte{}}
	s, rec := NewDurable(Options{Now: fixedClock, Journal: j, Values: vals})
	if err := s.CreateTable("Things"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		if _, err := s.Write("Things", Op{Kind: InsertOrReplace, Entity: ent("p", fmt.Sprintf("r%02d", i%25), "N", i, "Text", strings.Repeat("t", 50+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Batch("Things", []Op{{Kind: Delete, Entity: ent("p", "r03")}, {Kind: InsertOrMerge, Entity: ent("p", "r04", "M", true)}}); err != nil {
		t.Fatal(err)
	}
	want := dump(t, s)

	file := []byte("head")
	var places []Place
	for _, r := range j.recs {
		places = append(places, Place{File: 1, Off: int64(len(file))})
		file = append(file, r...)
	}
	vals.files[1] = file
	read := func(settle func([]byte, Place) error) error {
		for i, r := range j.recs {
			if err := settle(r, places[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := rec.Settle(read); err != nil {
		t.Fatal(err)
	}
	if r := rec.Residency(); r.Entities != 24 || r.Settled != 24 {
		t.Fatalf("settled from records: %+v", r)
	}
	if got := dump(t, s); got != want {
		t.Fatalf("settled store answers\n%s\nwant\n%s", got, want)
	}

	replayed, rr := NewDurable(Options{Now: fixedClock, Values: vals})
	for i, r := range j.recs {
		if err := rr.Replay(r, places[i]); err != nil {
			t.Fatal(err)
		}
	}
	if r := rr.Residency(); r.Entities != 24 || r.Settled != 24 {
		t.Fatalf("replayed from records: %+v", r)
	}
	if got := dump(t, replayed); got != want {
		t.Fatalf("replayed store answers\n%s\nwant\n%s", got, want)
	}
	checkDataBytes(t, replayed)
}
