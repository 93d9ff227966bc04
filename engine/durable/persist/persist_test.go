//go:build !js

package persist

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
)

func dirSize(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestRestoreAndCompact writes, overwrites and deletes under background
// compaction, then reopens: the state, ETags included, is the same, and
// the directory stays within about twice the live data.
func TestRestoreAndCompact(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{MinCompactBytes: 64 << 10, CheckEvery: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Store.CreateTable("Churn"); err != nil {
		t.Fatal(err)
	}
	payload := strings.Repeat("x", 500)
	for round := 0; round < 20; round++ {
		for i := 0; i < 200; i++ {
			e := &engine.Entity{PartitionKey: "p", RowKey: fmt.Sprint(i), Properties: []engine.Property{
				{Name: "Round", Value: edm.Int32Value(int32(round))}, {Name: "Pad", Value: edm.StringValue(payload)}}}
			if _, err := db.Store.Write("Churn", engine.Op{Kind: engine.InsertOrReplace, Entity: e}); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(10 * time.Millisecond) // let the compactor run
	}
	if _, err := db.Store.Write("Churn", engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: "p", RowKey: "7"}}); err != nil {
		t.Fatal(err)
	}
	want, err := db.Store.Query("Churn", engine.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	live := int64(len(want.Entities) * 560)
	if size := dirSize(t, dir); size > 3*live {
		t.Fatalf("directory holds %d bytes for about %d of live data", size, live)
	}
	if _, err := Open(dir, Options{}); err == nil {
		t.Fatal("a second Open of the same directory succeeded")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Store.Query("Churn", engine.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entities) != 199 || len(got.Entities) != len(want.Entities) {
		t.Fatalf("%d entities after reopening, want 199", len(got.Entities))
	}
	for i := range got.Entities {
		g, w := got.Entities[i], want.Entities[i]
		if g.RowKey != w.RowKey || g.ETag() != w.ETag() {
			t.Fatalf("entity %d: %s %s, want %s %s", i, g.RowKey, g.ETag(), w.RowKey, w.ETag())
		}
		if v, _ := g.Property("Round"); v.Int() != 19 {
			t.Fatalf("entity %s has Round %d", g.RowKey, v.Int())
		}
	}
}
