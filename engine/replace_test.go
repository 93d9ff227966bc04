package engine

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// filled returns a store with two tables of entities and one empty.
func filled(t *testing.T, opts Options) *Store {
	t.Helper()
	s := New(opts)
	for _, n := range []string{"Orders", "People", "Empty"} {
		if err := s.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 250 {
		if _, err := s.Write("Orders", Op{Kind: Insert, Entity: ent(fmt.Sprintf("c%d", i%7), fmt.Sprintf("%04d", i), "N", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Write("People", Op{Kind: Insert, Entity: ent("p", "ann", "Name", "Ann")}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCloneIsIndependent copies a store and writes to each side: every
// write, a table created or deleted included, shows on its side only, and
// the copy keeps the entities' Timestamps until written.
func TestCloneIsIndependent(t *testing.T) {
	s := filled(t, Options{Now: fixedClock})
	before := dump(t, s)
	c, err := s.Clone(Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	copied := s.lastTicks
	if got := dump(t, c); got != before {
		t.Fatalf("the clone differs:\n%s\nwant\n%s", got, before)
	}
	checkDataBytes(t, c)
	// Writes to the clone, across many nodes of the tree.
	for i := range 250 {
		if _, err := c.Write("Orders", Op{Kind: InsertOrReplace, Entity: ent(fmt.Sprintf("c%d", i%7), fmt.Sprintf("%04d", i), "N", -i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Write("People", Op{Kind: Delete, Entity: ent("p", "ann")}); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTable("Empty"); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateTable("Fresh"); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, s); got != before {
		t.Fatal("writes to the clone showed in its source")
	}
	// And the other way.
	cloned := dump(t, c)
	if _, err := s.Write("Orders", Op{Kind: Insert, Entity: ent("c0", "new")}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTable("People"); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, c); got != cloned {
		t.Fatal("writes to the source showed in its clone")
	}
	// The clone's own writes get Timestamps past the source's.
	r, err := c.Write("Orders", Op{Kind: Insert, Entity: ent("z", "z")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Entity.Timestamp <= copied {
		t.Fatal("the clone reuses its source's Timestamps")
	}
	checkDataBytes(t, s)
	checkDataBytes(t, c)
}

func TestCloneTableNameCase(t *testing.T) {
	s := New(Options{CaseSensitiveTableNames: true})
	for _, n := range []string{"Orders", "orders"} {
		if err := s.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Clone(Options{}); err == nil || !strings.Contains(err.Error(), "differ only by case") {
		t.Fatalf("a clone ignoring case of tables differing by case: %v", err)
	}
	c, err := s.Clone(Options{CaseSensitiveTableNames: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.TableExists("orders"); !ok {
		t.Fatal("the case-sensitive clone lost a table")
	}
	if _, err := c.Clone(Options{Journal: &memJournal{}}); err == nil {
		t.Fatal("a clone with a journal")
	}
}

// TestReplaceTables replaces every table of a store by those built in an
// empty one: the old tables are gone, the new ones hold their entities
// with Timestamps of the store's, and a journal gets one record that
// replays to the same store, as does a snapshot.
func TestReplaceTables(t *testing.T) {
	j := &memJournal{}
	s, sr := NewDurable(Options{Now: fixedClock, Journal: j})
	for _, n := range []string{"Orders", "Gone"} {
		if err := s.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	old, err := s.Write("Orders", Op{Kind: Insert, Entity: ent("c0", "0000", "N", 1)})
	if err != nil {
		t.Fatal(err)
	}
	src := filled(t, Options{Now: fixedClock})
	want := dump(t, src)
	recs := len(j.recs)
	if err := s.ReplaceTables(src); err != nil {
		t.Fatal(err)
	}
	if len(j.recs) != recs+1 {
		t.Fatalf("a replace wrote %d records", len(j.recs)-recs)
	}
	if got := dump(t, src); got != want {
		t.Fatal("the replace changed its source")
	}
	if _, ok := s.TableExists("Gone"); ok {
		t.Fatal("a table the replace deleted is still there")
	}
	// Same entities and properties; Timestamps of s's, each new.
	strip := func(d string) string {
		var b strings.Builder
		for line := range strings.SplitSeq(d, "\n") {
			f := strings.Split(line, "|")
			if len(f) == 4 {
				f[2] = ""
			}
			b.WriteString(strings.Join(f, "|") + "\n")
		}
		return b.String()
	}
	got := dump(t, s)
	if strip(got) != strip(want) {
		t.Fatalf("replaced store:\n%s\nwant\n%s", got, want)
	}
	e, err := getEntity(s, "Orders", "c0", "0000")
	if err != nil {
		t.Fatal(err)
	}
	if e.Timestamp <= old.Entity.Timestamp {
		t.Fatal("a replaced entity did not get a Timestamp of its own")
	}
	if _, err := s.Write("Orders", Op{Kind: Replace, Entity: ent("c0", "0000"), IfMatch: old.ETag()}); !svcerr.Is(err, svcerr.UpdateConditionNotSatisfied) {
		t.Fatalf("the ETag of the entity the replace removed still matches: %v", err)
	}
	checkDataBytes(t, s)
	// The table ids are new: a write to the new Orders lands there.
	if _, err := s.Write("Orders", Op{Kind: Insert, Entity: ent("zz", "after")}); err != nil {
		t.Fatal(err)
	}
	got = dump(t, s)

	replayed, rr := NewDurable(Options{Now: fixedClock})
	for _, rec := range j.recs {
		if err := rr.Replay(rec, Place{}); err != nil {
			t.Fatal(err)
		}
	}
	if d := dump(t, replayed); d != got {
		t.Fatalf("replay differs:\n%s\nwant\n%s", d, got)
	}
	checkDataBytes(t, replayed)
	var snap bytes.Buffer
	if _, err := sr.Checkpoint(nil).WriteTo(&snap); err != nil {
		t.Fatal(err)
	}
	loaded, lr := NewDurable(Options{Now: fixedClock})
	if err := lr.Load(&snap, Place{}); err != nil {
		t.Fatal(err)
	}
	if d := dump(t, loaded); d != got {
		t.Fatal("the snapshot after a replace differs")
	}
	// A replace by an empty store leaves no table.
	if err := s.ReplaceTables(s.NewEmpty()); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.QueryTables(TableQuery{}); len(p.Names) != 0 || s.Len() != 0 {
		t.Fatalf("after a replace by nothing: tables %v, %d entities", p.Names, s.Len())
	}
}

func TestReplaceTablesRefuses(t *testing.T) {
	s := New(Options{})
	if err := s.CreateTable("Keep"); err != nil {
		t.Fatal(err)
	}
	exact := New(Options{CaseSensitiveTableNames: true})
	for _, n := range []string{"Orders", "orders"} {
		if err := exact.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ReplaceTables(exact); err == nil {
		t.Fatal("tables differing by case replaced those of a store that ignores case")
	}
	if err := s.ReplaceTables(New(Options{OpenKeys: true})); err == nil {
		t.Fatal("a store of open keys replaced the tables of one with the service's keys")
	}
	if _, ok := s.TableExists("Keep"); !ok {
		t.Fatal("a refused replace changed the store")
	}
}
