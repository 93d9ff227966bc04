package durable_test

import (
	"errors"
	"io"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
)

// TestLedger walks a medium's bookkeeping: a restore, appends numbered in
// order, a snapshot taken while records keep coming, and a failure that
// every later append and snapshot repeats.
func TestLedger(t *testing.T) {
	var l durable.Ledger
	l.Restored(100, 30, 7)
	if s := l.Sizes(); s != (durable.Sizes{LogBytes: 30, SnapshotBytes: 100}) {
		t.Fatalf("restored: %+v", s)
	}
	var seqs []uint64
	write := func(seq uint64) error { seqs = append(seqs, seq); return nil }
	for _, n := range []int{10, 20} {
		if err := l.Append(n, write); err != nil {
			t.Fatal(err)
		}
	}
	var stored []byte
	var storedUpto uint64
	snap, err := l.BeginSnapshot(func(b []byte, upto uint64) error {
		stored, storedUpto = append([]byte(nil), b...), upto
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A record appended after the snapshot began stays in the log it
	// leaves.
	if err := l.Append(5, write); err != nil {
		t.Fatal(err)
	}
	fill := func(w io.Writer, _ engine.Place) error {
		_, err := w.Write(make([]byte, 120))
		return err
	}
	if err := snap.Write(fill); err != nil {
		t.Fatal(err)
	}
	if len(stored) != 120 || storedUpto != 9 {
		t.Fatalf("stored %d bytes up to %d, want 120 up to 9", len(stored), storedUpto)
	}
	if s := l.Sizes(); s != (durable.Sizes{LogBytes: 5, SnapshotBytes: 120}) {
		t.Fatalf("after the snapshot: %+v", s)
	}
	// A snapshot the medium fails to store changes nothing.
	snap, _ = l.BeginSnapshot(func([]byte, uint64) error { return errors.New("quota") })
	if err := snap.Write(fill); err == nil || l.Sizes() != (durable.Sizes{LogBytes: 5, SnapshotBytes: 120}) {
		t.Fatalf("a failed snapshot: %v %+v", err, l.Sizes())
	}
	if len(seqs) != 3 || seqs[0] != 8 || seqs[1] != 9 || seqs[2] != 10 {
		t.Fatalf("numbered %v, want 8 9 10", seqs)
	}

	boom := errors.New("disk full")
	if err := l.Append(1, func(uint64) error { return boom }); err != boom {
		t.Fatalf("failed write: %v", err)
	}
	if err := l.Append(1, func(uint64) error { t.Error("wrote after a failure"); return nil }); err != boom {
		t.Errorf("append after a failure: %v", err)
	}
	if _, err := l.BeginSnapshot(nil); err != boom {
		t.Errorf("snapshot after a failure: %v", err)
	}
	if err := l.Fail(errors.New("later")); err != boom || l.Err() != boom {
		t.Errorf("the first failure stays: %v", err)
	}
	if s := l.Sizes(); s.LogBytes != 5 {
		t.Errorf("a failed record counted: %+v", s)
	}
}
