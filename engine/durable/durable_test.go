package durable_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/durable/durabletest"
	"github.com/tablelab/tablelab/engine/edm"
)

func open(t *testing.T, m durable.Medium, opts durable.Options) *durable.DB {
	t.Helper()
	db, err := durable.Open(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func entity(pk, rk string, n int) *engine.Entity {
	return &engine.Entity{PartitionKey: pk, RowKey: rk, Properties: []engine.Property{
		{Name: "N", Value: edm.Int32Value(int32(n))},
		{Name: "Pad", Value: edm.StringValue(strings.Repeat("x", 100))},
	}}
}

func write(t *testing.T, s *engine.Store, table string, kind engine.OpKind, e *engine.Entity) {
	t.Helper()
	if _, err := s.Write(table, engine.Op{Kind: kind, Entity: e}); err != nil {
		t.Fatalf("%v %s/%s: %v", kind, e.PartitionKey, e.RowKey, err)
	}
}

// contents lists a table's entities as "pk/rk N etag", in key order.
func contents(t *testing.T, s *engine.Store, table string) []string {
	t.Helper()
	var out []string
	q := engine.Query{}
	for {
		p, err := s.Query(table, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entities {
			n, _ := e.Property("N")
			out = append(out, fmt.Sprintf("%s/%s %d %s", e.PartitionKey, e.RowKey, n.Int(), e.ETag()))
		}
		if p.Next == nil {
			return out
		}
		q.After = p.Next
	}
}

func sameContents(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("restored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRestoreAfterCrash writes, overwrites and deletes, then restores
// what a crash leaves of the medium: the state, ETags included, is the
// one every acknowledged write made.
func TestRestoreAfterCrash(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	if err := db.Store.CreateTable("Orders"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		write(t, db.Store, "Orders", engine.Insert, entity(fmt.Sprint("p", i%5), fmt.Sprint(i), i))
	}
	for i := 0; i < 50; i += 3 {
		write(t, db.Store, "Orders", engine.InsertOrReplace, entity(fmt.Sprint("p", i%5), fmt.Sprint(i), 1000+i))
	}
	for i := 1; i < 50; i += 7 {
		write(t, db.Store, "Orders", engine.Delete, &engine.Entity{PartitionKey: fmt.Sprint("p", i%5), RowKey: fmt.Sprint(i)})
	}
	want := contents(t, db.Store, "Orders")
	if len(want) != 50-7 {
		t.Fatalf("%d entities before the crash, want 43", len(want))
	}

	restored := open(t, m.Crash(), durable.Options{})
	sameContents(t, contents(t, restored.Store, "Orders"), want)
	// The restored store goes on where the old one stopped.
	write(t, restored.Store, "Orders", engine.Insert, entity("p0", "new", 1))
}

// TestBatchWholeOrNotAtAll checks that a batch is one record, and that a
// crash at any point of the log restores every batch before it whole and
// nothing of the ones after.
func TestBatchWholeOrNotAtAll(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	if err := db.Store.CreateTable("Batches"); err != nil {
		t.Fatal(err)
	}
	const batches, size = 6, 10
	for b := 0; b < batches; b++ {
		before := m.Records()
		ops := make([]engine.Op, size)
		for i := range ops {
			ops[i] = engine.Op{Kind: engine.Insert, Entity: entity(fmt.Sprint("b", b), fmt.Sprint(i), i)}
		}
		if _, err := db.Store.Batch("Batches", ops); err != nil {
			t.Fatal(err)
		}
		if n := m.Records() - before; n != 1 {
			t.Fatalf("batch %d took %d records, want 1", b, n)
		}
	}
	// Record 0 created the table; record b+1 is batch b.
	for k := 1; k <= m.Records(); k++ {
		restored := open(t, m.CrashAfter(k), durable.Options{})
		for b := 0; b < batches; b++ {
			p, err := restored.Store.Query("Batches", engine.Query{Filter: fmt.Sprintf("PartitionKey eq 'b%d'", b)})
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if b < k-1 {
				want = size
			}
			if len(p.Entities) != want {
				t.Fatalf("crash after %d records: batch %d has %d entities, want %d", k, b, len(p.Entities), want)
			}
		}
	}

	// A batch that fails to become durable is lost whole.
	m.Fail(errors.New("disk full"))
	ops := []engine.Op{
		{Kind: engine.Insert, Entity: entity("lost", "1", 1)},
		{Kind: engine.Insert, Entity: entity("lost", "2", 2)},
	}
	if _, err := db.Store.Batch("Batches", ops); err == nil {
		t.Fatal("a batch the medium failed to keep was acknowledged")
	}
	restored := open(t, m.Crash(), durable.Options{})
	if got := contents(t, restored.Store, "Batches"); len(got) != batches*size {
		t.Fatalf("after the failed batch, %d entities restored, want %d", len(got), batches*size)
	}
}

// TestReplaceWholeOrNotAtAll replaces every table of a durable store:
// one record, so a crash restores the tables before it or those after,
// never a mixture, and the store restored after it takes writes.
func TestReplaceWholeOrNotAtAll(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	for _, n := range []string{"Old", "Orders"} {
		if err := db.Store.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 30; i++ {
		write(t, db.Store, "Orders", engine.Insert, entity("old", fmt.Sprint(i), i))
	}
	oldOrders := contents(t, db.Store, "Orders")
	src := db.Store.NewEmpty()
	for _, n := range []string{"Orders", "New"} {
		if err := src.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 500; i++ {
		write(t, src, "Orders", engine.Insert, entity(fmt.Sprint("p", i%9), fmt.Sprint(i), -i))
	}
	write(t, src, "New", engine.Insert, entity("n", "1", 1))
	before := m.Records()
	if err := db.Store.ReplaceTables(src); err != nil {
		t.Fatal(err)
	}
	if n := m.Records() - before; n != 1 {
		t.Fatalf("the replace took %d records, want 1", n)
	}
	newOrders := contents(t, db.Store, "Orders")
	tables := func(s *engine.Store) string {
		p, err := s.QueryTables(engine.TableQuery{})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(p.Names, ",")
	}
	for k := before; k <= m.Records(); k++ {
		restored := open(t, m.CrashAfter(k), durable.Options{})
		if k == before {
			if got := tables(restored.Store); got != "Old,Orders" {
				t.Fatalf("crash before the replace: tables %s", got)
			}
			sameContents(t, contents(t, restored.Store, "Orders"), oldOrders)
			continue
		}
		if got := tables(restored.Store); got != "New,Orders" {
			t.Fatalf("crash after the replace: tables %s", got)
		}
		sameContents(t, contents(t, restored.Store, "Orders"), newOrders)
		write(t, restored.Store, "Orders", engine.Insert, entity("after", "1", 1))
	}
	// And through a snapshot.
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	restored := open(t, m.Crash(), durable.Options{})
	sameContents(t, contents(t, restored.Store, "Orders"), newOrders)
}

// TestFailedAppendRefusesWrites checks that a store whose medium failed
// acknowledges no write from then on, and that a restore finds the state
// of the last acknowledged one.
func TestFailedAppendRefusesWrites(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	if err := db.Store.CreateTable("Fail"); err != nil {
		t.Fatal(err)
	}
	write(t, db.Store, "Fail", engine.Insert, entity("p", "kept", 1))
	want := contents(t, db.Store, "Fail")

	m.Fail(errors.New("I/O error"))
	if _, err := db.Store.Write("Fail", engine.Op{Kind: engine.Insert, Entity: entity("p", "lost", 2)}); err == nil {
		t.Fatal("a write the medium failed to keep was acknowledged")
	}
	if _, err := db.Store.Write("Fail", engine.Op{Kind: engine.Insert, Entity: entity("p", "after", 3)}); err == nil {
		t.Fatal("a write after the failure was acknowledged")
	}
	if err := db.Store.CreateTable("Other"); err == nil {
		t.Fatal("a table created after the failure was acknowledged")
	}
	if err := db.Snapshot(); err == nil {
		t.Fatal("a snapshot on a failed medium succeeded")
	}
	if err := db.Close(); err == nil {
		t.Fatal("Close of a failed medium reported no error")
	}

	restored := open(t, m.Crash(), durable.Options{})
	sameContents(t, contents(t, restored.Store, "Fail"), want)
	if _, err := restored.Store.Query("Other", engine.Query{}); err == nil {
		t.Fatal("the table created after the failure was restored")
	}
}

// TestCompactsWhenLogOutgrowsSnapshot checks the compaction rule: a
// snapshot once the log has grown past the minimum and past the last
// snapshot, none before, and a restore from the snapshot and the log after
// it.
func TestCompactsWhenLogOutgrowsSnapshot(t *testing.T) {
	m := durabletest.NewMedium()
	opts := durable.Options{MinCompactBytes: 1 << 10, CheckEvery: time.Millisecond}
	db := open(t, m, opts)
	if err := db.Store.CreateTable("Churn"); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no %s within 5s: %+v", what, m.Sizes())
			}
		}
	}

	// The same 40 entities written over and over: the log grows, the
	// live data does not.
	for i := 0; i < 400; i++ {
		write(t, db.Store, "Churn", engine.InsertOrReplace, entity("p", fmt.Sprint(i%40), i))
	}
	waitFor("snapshot", func() bool { return m.Snapshots() > 0 })
	waitFor("quiet compactor", func() bool { return m.Sizes().LogBytes < m.Sizes().SnapshotBytes })
	snaps, size := m.Snapshots(), m.Sizes()
	if size.SnapshotBytes > 40*200 {
		t.Fatalf("a snapshot of 40 entities takes %d bytes", size.SnapshotBytes)
	}

	// A log smaller than the snapshot, though past the minimum, stays.
	for i := 0; m.Sizes().LogBytes < 1<<10; i++ {
		write(t, db.Store, "Churn", engine.InsertOrReplace, entity("p", fmt.Sprint(i%40), i))
	}
	if m.Sizes().LogBytes >= m.Sizes().SnapshotBytes {
		t.Fatalf("the log reached the snapshot's size before the minimum: %+v", m.Sizes())
	}
	time.Sleep(50 * time.Millisecond) // fifty checks
	if m.Snapshots() != snaps {
		t.Fatalf("a snapshot was taken with the log (%d bytes) smaller than the last snapshot (%d bytes)", m.Sizes().LogBytes, size.SnapshotBytes)
	}

	// Once the log outgrows the snapshot, the next one follows.
	for i := 0; m.Sizes().LogBytes <= m.Sizes().SnapshotBytes && m.Snapshots() == snaps; i++ {
		write(t, db.Store, "Churn", engine.InsertOrReplace, entity("p", fmt.Sprint(i%40), 5000+i))
	}
	waitFor("second snapshot", func() bool { return m.Snapshots() > snaps })

	want := contents(t, db.Store, "Churn")
	restored := open(t, m.Crash(), durable.Options{})
	sameContents(t, contents(t, restored.Store, "Churn"), want)
}

// TestSnapshotThenLog restores a snapshot taken on demand and the writes
// logged after it, and no more records than those writes.
func TestSnapshotThenLog(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	if err := db.Store.CreateTable("Snap"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		write(t, db.Store, "Snap", engine.Insert, entity("p", fmt.Sprint(i), i))
	}
	var snapshotted []engine.Place
	if err := db.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if m.Records() != 0 || m.Sizes().SnapshotBytes == 0 {
		t.Fatalf("after a snapshot: %d records, %+v", m.Records(), m.Sizes())
	}
	write(t, db.Store, "Snap", engine.Merge, &engine.Entity{PartitionKey: "p", RowKey: "3",
		Properties: []engine.Property{{Name: "N", Value: edm.Int32Value(300)}}})
	write(t, db.Store, "Snap", engine.Delete, &engine.Entity{PartitionKey: "p", RowKey: "4"})
	if m.Records() != 2 {
		t.Fatalf("%d records after the snapshot, want 2", m.Records())
	}
	want := contents(t, db.Store, "Snap")

	restored := open(t, m.Crash(), durable.Options{Snapshotted: func(at engine.Place) { snapshotted = append(snapshotted, at) }})
	sameContents(t, contents(t, restored.Store, "Snap"), want)
	if err := restored.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if len(snapshotted) != 1 {
		t.Fatalf("Snapshotted called %d times for one snapshot", len(snapshotted))
	}
	if err := restored.Close(); err != nil {
		t.Fatal(err)
	}
	if err := restored.Snapshot(); err == nil {
		t.Fatal("a snapshot after Close succeeded")
	}
}

// TestDamagedRecordRefusesOpen checks that a record the store cannot
// decode stops the restore, and that Open releases the medium.
func TestDamagedRecordRefusesOpen(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{})
	if err := db.Store.CreateTable("Damaged"); err != nil {
		t.Fatal(err)
	}
	if err := m.Append([]byte{0xff, 0x01, 0x02}).Wait(); err != nil {
		t.Fatal(err)
	}
	damaged := m.Crash()
	if db, err := durable.Open(damaged, durable.Options{}); err == nil {
		db.Close()
		t.Fatal("a log with a damaged record was restored")
	}
	if err := damaged.Append([]byte("x")).Wait(); err == nil {
		t.Fatal("the medium of a failed Open still takes appends")
	}
}

// TestWritesDuringCompaction has writers race the compactor: every
// acknowledged write survives a crash, whichever side of a snapshot's
// point it fell on.
func TestWritesDuringCompaction(t *testing.T) {
	m := durabletest.NewMedium()
	db := open(t, m, durable.Options{MinCompactBytes: 1 << 10, CheckEvery: time.Millisecond})
	if err := db.Store.CreateTable("Race"); err != nil {
		t.Fatal(err)
	}
	const writers, writes = 4, 300
	deadline := time.Now().Add(5 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// Write on until two snapshots have raced the writers.
			for i := 0; i < writes || m.Snapshots() < 2 && time.Now().Before(deadline); i++ {
				op := engine.Op{Kind: engine.InsertOrReplace, Entity: entity(fmt.Sprint("w", w), fmt.Sprint(i%25), i)}
				if _, err := db.Store.Write("Race", op); err != nil {
					errs <- err
					return
				}
				if i%50 == 0 {
					// js/wasm runs one thread and never preempts: let the
					// compactor's ticker in.
					time.Sleep(time.Millisecond)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if m.Snapshots() < 2 {
		t.Fatalf("%d snapshots in 5s while the log grew to many times the live data", m.Snapshots())
	}
	want := contents(t, db.Store, "Race")
	if len(want) != writers*25 {
		t.Fatalf("%d entities, want %d", len(want), writers*25)
	}
	restored := open(t, m.Crash(), durable.Options{})
	sameContents(t, contents(t, restored.Store, "Race"), want)
}

// TestCloseWakesEvery checks that Close does not wait out the period of
// the loops Every runs: a compactor checking once an hour stops at once.
func TestCloseWakesEvery(t *testing.T) {
	db := open(t, durabletest.NewMedium(), durable.Options{CheckEvery: time.Hour})
	ran := make(chan struct{}, 1)
	db.Every(time.Hour, func() { ran <- struct{}{} })
	start := time.Now()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Close took %s with hourly loops", d)
	}
	select {
	case <-ran:
		t.Fatal("Close ran the loop's function")
	default:
	}
}
