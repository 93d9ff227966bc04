//go:build !js

package persist

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
)

// benchDB loads 100 partitions of 1,000 entities of about 1 KiB, in
// batches, and settles them (or keeps them in memory).
func benchDB(b *testing.B, keep bool) *DB {
	b.Helper()
	db, err := Open(b.TempDir(), Options{KeepInMemory: keep, NoSync: true, HoldBytes: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.Store.CreateTable("Bench")
	pad := strings.Repeat("x", 1000)
	for p := 0; p < 100; p++ {
		for r := 0; r < 1000; r += 100 {
			ops := make([]engine.Op, 100)
			for i := range ops {
				ops[i] = engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: fmt.Sprintf("p%04d", p), RowKey: fmt.Sprintf("r%06d", r+i),
					Properties: []engine.Property{{Name: "Cat", Value: edm.Int32Value(int32((r + i) % 50))}, {Name: "N", Value: edm.Int32Value(int32(r + i))}, {Name: "Pad", Value: edm.StringValue(pad)}}}}
			}
			if _, err := db.Store.Batch("Bench", ops); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.Snapshot(); err != nil {
		b.Fatal(err)
	}
	if r := db.rec.Residency(); keep != (r.Settled == 0) || !keep && r.Settled != r.Entities {
		b.Fatalf("residency %+v", r)
	}
	return db
}

// BenchmarkReads compares reads of entities settled in files (read back
// through the page cache) with reads of entities held in memory:
//
//	go test ./engine/persist -run - -bench Reads
func BenchmarkReads(b *testing.B) {
	for _, mode := range []struct {
		name string
		keep bool
	}{{"memory", true}, {"settled", false}} {
		db := benchDB(b, mode.keep)
		b.Run("point/"+mode.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < b.N; i++ {
				if _, err := db.Store.Get("Bench", fmt.Sprintf("p%04d", rng.IntN(100)), fmt.Sprintf("r%06d", rng.IntN(1000))); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("partition/"+mode.name, func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < b.N; i++ {
				p, err := db.Store.Query("Bench", engine.Query{Filter: fmt.Sprintf("PartitionKey eq 'p%04d'", rng.IntN(100))})
				if err != nil || len(p.Entities) != 1000 {
					b.Fatal(err, len(p.Entities))
				}
			}
		})
		b.Run("sparse/"+mode.name, func(b *testing.B) {
			// One entity in 50 matches, as in the HTTP benchmark's
			// filtered scan.
			for i := 0; i < b.N; i++ {
				n := 0
				q := engine.Query{Filter: "PartitionKey lt 'p0020' and Cat eq 7"}
				for {
					p, err := db.Store.Query("Bench", q)
					if err != nil {
						b.Fatal(err)
					}
					n += len(p.Entities)
					if p.Next == nil {
						break
					}
					q.After = p.Next
				}
				if n != 400 {
					b.Fatal(n)
				}
			}
		})
		b.Run("filtered/"+mode.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := db.Store.Query("Bench", engine.Query{Filter: "N eq 5 and PartitionKey lt 'p0020'"})
				if err != nil || len(p.Entities) != 20 {
					b.Fatal(err, len(p.Entities))
				}
			}
		})
	}
}
