//go:build !js

package persist

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
)

// versioned is an entity whose properties are all derived from its keys
// and a version, so any copy read back can be checked on its own: a
// reference into the wrong place, or a file closed too early, shows as an
// entity that does not agree with itself, or as an error.
func versioned(pk, rk string, version int) *engine.Entity {
	return &engine.Entity{PartitionKey: pk, RowKey: rk, Properties: []engine.Property{
		{Name: "Check", Value: edm.StringValue(fmt.Sprintf("%s/%s/%d", pk, rk, version))},
		{Name: "Pad", Value: edm.StringValue(strings.Repeat(string(rune('a'+version%26)), 200+version%300))},
		{Name: "Version", Value: edm.Int32Value(int32(version))},
	}}
}

func checkVersioned(e *engine.Entity) error {
	v, ok := e.Property("Version")
	if !ok {
		return fmt.Errorf("%s/%s has no Version", e.PartitionKey, e.RowKey)
	}
	want := versioned(e.PartitionKey, e.RowKey, int(v.Int()))
	for _, p := range want.Properties {
		got, ok := e.Property(p.Name)
		if !ok || got.Str() != p.Value.Str() || got.Int() != p.Value.Int() {
			return fmt.Errorf("%s/%s version %d: %s is %v, want %v", e.PartitionKey, e.RowKey, v.Int(), p.Name, got, p.Value)
		}
	}
	return nil
}

// TestSettledEntities writes, merges, replaces and deletes, single and in
// batches, while the settler and the compactor run as often as they can
// and readers read points, partitions and the whole table. Every entity a
// reader sees must agree with itself; at the end the store must hold
// exactly the model's state, with nearly every entity in files and not in
// memory — and again after a restart.
func TestSettledEntities(t *testing.T) {
	dir := t.TempDir()
	var logMu sync.Mutex
	var logs []string
	opts := Options{MinCompactBytes: 32 << 10, CheckEvery: time.Millisecond, SettleEvery: time.Millisecond, NoSync: true, HoldBytes: -1, Logf: func(f string, a ...any) {
		logMu.Lock()
		logs = append(logs, fmt.Sprintf(f, a...))
		logMu.Unlock()
	}}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Store.CreateTable("Settle"); err != nil {
		t.Fatal(err)
	}
	const writers, partitions, rows = 4, 8, 40
	model := make([]map[string]int, writers) // per writer: row → version, -1 deleted
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	for w := 0; w < writers; w++ {
		model[w] = make(map[string]int)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			m := model[w]
			for i := 0; i < 1500; i++ {
				pk := fmt.Sprintf("w%d-p%d", w, rng.IntN(partitions/writers+1))
				rk := fmt.Sprintf("r%03d", rng.IntN(rows))
				key := pk + "/" + rk
				version := i + 1
				var err error
				switch op := rng.IntN(10); {
				case op < 4:
					_, err = db.Store.Write("Settle", engine.Op{Kind: engine.InsertOrReplace, Entity: versioned(pk, rk, version)})
					m[key] = version
				case op < 6:
					if v, ok := m[key]; ok && v >= 0 {
						// A merge keeps Pad from before only if it is not
						// sent; send everything so the entity stays whole.
						_, err = db.Store.Write("Settle", engine.Op{Kind: engine.Merge, IfMatch: "*", Entity: versioned(pk, rk, version)})
						m[key] = version
					}
				case op < 7:
					if v, ok := m[key]; ok && v >= 0 {
						_, err = db.Store.Write("Settle", engine.Op{Kind: engine.Delete, IfMatch: "*", Entity: &engine.Entity{PartitionKey: pk, RowKey: rk}})
						m[key] = -1
					}
				default:
					var ops []engine.Op
					for j := 0; j < 10; j++ {
						brk := fmt.Sprintf("b%03d", (i*10+j)%rows)
						ops = append(ops, engine.Op{Kind: engine.InsertOrReplace, Entity: versioned(pk, brk, version)})
						m[pk+"/"+brk] = version
					}
					_, err = db.Store.Batch("Settle", ops)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	var readers sync.WaitGroup
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func(r int) {
			defer readers.Done()
			rng := rand.New(rand.NewPCG(uint64(r), 11))
			for {
				select {
				case <-stop:
					return
				default:
				}
				var es []*engine.Entity
				switch rng.IntN(3) {
				case 0:
					e, err := db.Store.Get("Settle", fmt.Sprintf("w%d-p0", rng.IntN(writers)), fmt.Sprintf("r%03d", rng.IntN(rows)))
					if err == nil {
						es = append(es, e.Entity)
					} else if !strings.Contains(err.Error(), "ResourceNotFound") {
						errs <- err
						return
					}
				case 1:
					p, err := db.Store.Query("Settle", engine.Query{Filter: fmt.Sprintf("PartitionKey eq 'w%d-p1'", rng.IntN(writers))})
					if err != nil {
						errs <- err
						return
					}
					es = p.Entities
				default:
					q := engine.Query{Top: 100}
					for {
						p, err := db.Store.Query("Settle", q)
						if err != nil {
							errs <- err
							return
						}
						es = append(es, p.Entities...)
						if p.Next == nil {
							break
						}
						q.After = p.Next
					}
				}
				for _, e := range es {
					if err := checkVersioned(e); err != nil {
						errs <- err
						return
					}
				}
			}
		}(r)
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	check := func(db *DB, when string) {
		t.Helper()
		want := map[string]int{}
		for _, m := range model {
			for k, v := range m {
				if v >= 0 {
					want[k] = v
				}
			}
		}
		got := map[string]int{}
		q := engine.Query{}
		for {
			p, err := db.Store.Query("Settle", q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entities {
				if err := checkVersioned(e); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				v, _ := e.Property("Version")
				got[e.PartitionKey+"/"+e.RowKey] = int(v.Int())
			}
			if p.Next == nil {
				break
			}
			q.After = p.Next
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d entities, want %d", when, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %s at version %d, want %d", when, k, got[k], v)
			}
		}
	}
	check(db, "after the load")
	// Give the settler a moment to reach the end of the log.
	deadline := time.Now().Add(5 * time.Second)
	for r := db.rec.Residency(); r.Settled < r.Entities; r = db.rec.Residency() {
		if time.Now().After(deadline) {
			logMu.Lock()
			for _, l := range logs {
				if !strings.Contains(l, "snapshot of") {
					t.Log(l)
				}
			}
			logMu.Unlock()
			t.Fatalf("only %d of %d entities settled", r.Settled, r.Entities)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Held per entity: keys, place, and a residue of Check and Version
	// (~80 bytes); a Pad of 200 bytes or more must stay in the file.
	if r := db.rec.Residency(); r.Settled != r.Entities || r.HeldBytes > int64(r.Entities)*100 {
		t.Fatalf("after a restart: %+v; every entity should be settled, holding only its keys and short properties", r)
	}
	check(db, "after a restart")
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	check(db, "after a snapshot")
}

// TestKeepInMemory checks the option that keeps entities in memory: none
// is settled, and a restart restores them all.
func TestKeepInMemory(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{KeepInMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	db.Store.CreateTable("Kept")
	for i := 0; i < 50; i++ {
		if _, err := db.Store.Write("Kept", engine.Op{Kind: engine.Insert, Entity: versioned("p", fmt.Sprint(i), i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(dir, Options{KeepInMemory: true, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if r := db.rec.Residency(); r.Entities != 50 || r.Settled != 0 {
		t.Fatalf("%+v", r)
	}
}

// TestSettledLoadFreesMemory loads entities in key order, as a bulk load
// or a log tail does, and checks that once they are settled the heap no
// longer holds them: what stays is keys, not data. It fails if the tree
// keeps encodings alive in arrays its nodes no longer use.
func TestSettledLoadFreesMemory(t *testing.T) {
	db, err := Open(t.TempDir(), Options{NoSync: true, SettleEvery: 5 * time.Millisecond, HoldBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Store.CreateTable("Load")
	pad := strings.Repeat("y", 1000)
	const n = 120_000
	// Four writers, as the HTTP benchmark loads: with one, the settler
	// keeps pace and the leak hardly shows.
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(100)) - 100
				if i >= n {
					return
				}
				ops := make([]engine.Op, 100)
				for j := range ops {
					ops[j] = engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: fmt.Sprintf("p%04d", (i+j)/1000), RowKey: fmt.Sprintf("r%07d", i+j),
						Properties: []engine.Property{{Name: "Pad", Value: edm.StringValue(pad)}}}}
				}
				if _, err := db.Store.Batch("Load", ops); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for r := db.rec.Residency(); r.Settled < r.Entities; r = db.rec.Residency() {
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d entities settled", r.Settled, r.Entities)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// Once the writes have all settled, the settler's next tick finds
	// nothing new, and the store tidies its memory. 120 MB of entities
	// were written; their keys and places take about 10 MB, the tree a
	// few more. Without the refreshes of the tree's nodes, three quarters
	// of the data stayed for good.
	data := int64(n) * 1000
	var ms runtime.MemStats
	for deadline := time.Now().Add(5 * time.Second); ; {
		time.Sleep(20 * time.Millisecond)
		runtime.GC()
		runtime.ReadMemStats(&ms)
		if int64(ms.HeapAlloc) <= data/4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the heap holds %d MiB after settling %d MiB of entities", ms.HeapAlloc>>20, data>>20)
		}
	}
}

// TestHold checks that a store small enough to hold keeps its entities in
// memory, and that one that outgrows the hold settles them, then and
// after a restart.
func TestHold(t *testing.T) {
	dir := t.TempDir()
	opts := Options{NoSync: true, SettleEvery: time.Millisecond, HoldBytes: 100 << 10}
	db, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	db.Store.CreateTable("Hold")
	write := func(from, to int) {
		t.Helper()
		for i := from; i < to; i++ {
			if _, err := db.Store.Write("Hold", engine.Op{Kind: engine.InsertOrReplace, Entity: versioned("p", fmt.Sprintf("r%04d", i), i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitSettled := func(want func(r engine.Residency) bool) engine.Residency {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := db.rec.Residency()
			if want(r) {
				return r
			}
			if time.Now().After(deadline) {
				t.Fatalf("residency stayed %+v", r)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	write(0, 100) // about 40 KB
	time.Sleep(20 * time.Millisecond)
	if r := db.rec.Residency(); r.Settled != 0 || db.rec.DataBytes() > opts.HoldBytes {
		t.Fatalf("a store of %d bytes under a hold of %d settled: %+v", db.rec.DataBytes(), opts.HoldBytes, r)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	if r := db.rec.Residency(); r.Entities != 100 || r.Settled != 0 {
		t.Fatalf("a small store reopened with entities settled: %+v", r)
	}
	// About 240 KB, past the hold: every entity settles, the 100 read
	// back into memory at the restart too.
	write(100, 600)
	waitSettled(func(r engine.Residency) bool { return r.Settled == 600 })
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if db, err = Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if r := db.rec.Residency(); r.Entities != 600 || r.Settled != 600 {
		t.Fatalf("a large store reopened with entities in memory: %+v", r)
	}
}
