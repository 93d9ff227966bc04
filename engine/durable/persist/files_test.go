//go:build !js

package persist

import (
	"io"
	"testing"

	"github.com/tablelab/tablelab/engine/durable/wal"
)

// TestRetiredFilesWaitForPins checks that a replaced file stays readable
// for a reader that pinned before it was retired, and closes when the
// last such reader lets go — not before, and regardless of readers that
// pinned after.
func TestRetiredFilesWaitForPins(t *testing.T) {
	l, err := wal.Open(t.TempDir(), wal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Replay(func(io.Reader, wal.Pos) error { return nil }, func([]byte, wal.Pos) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := l.Append([]byte("first")).Wait(); err != nil {
		t.Fatal(err)
	}
	l.BeginSnapshot() // segment 1 is complete; segment 2 is the newest
	fs := newFiles(l)
	defer fs.close()
	old := wal.SegmentID(1)
	if err := fs.add(old); err != nil {
		t.Fatal(err)
	}
	read := func() error {
		b := make([]byte, 5)
		_, err := fs.ReadAt(b, old, 8)
		if err == nil && string(b) != "first" {
			t.Fatalf("read %q", b)
		}
		return err
	}
	early, early2 := fs.Pin(), fs.Pin()
	fs.retire(2)
	late := fs.Pin()
	if err := read(); err != nil {
		t.Fatalf("retired file unreadable while pinned: %v", err)
	}
	early()
	early() // a second release of the same pin changes nothing
	if err := read(); err != nil {
		t.Fatalf("retired file closed with a pin left: %v", err)
	}
	early2()
	if err := read(); err == nil {
		t.Fatal("retired file still open after its last pin was released")
	}
	late()
	if err := fs.add(old); err == nil {
		t.Fatal("a retired file was opened again")
	}
}
