//go:build !js

package wal

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func open(t *testing.T, dir string) (*Log, [][]byte, []string) {
	t.Helper()
	var logs []string
	l, err := Open(dir, Options{Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }})
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	if err := l.Replay(func(r io.Reader, _ Pos) error {
		b, err := io.ReadAll(r)
		recs = append(recs, append([]byte("SNAP:"), b...))
		return err
	}, func(rec []byte, _ Pos) error {
		recs = append(recs, append([]byte(nil), rec...))
		return nil
	}); err != nil {
		l.Close()
		t.Fatal(err)
	}
	return l, recs, logs
}

func appendAll(t *testing.T, l *Log, recs ...string) {
	t.Helper()
	for _, r := range recs {
		if err := l.Append([]byte(r)).Wait(); err != nil {
			t.Fatal(err)
		}
	}
}

func names(recs [][]byte) string {
	var s []string
	for _, r := range recs {
		s = append(s, string(r))
	}
	return strings.Join(s, ",")
}

func TestAppendReplay(t *testing.T) {
	dir := t.TempDir()
	l, recs, _ := open(t, dir)
	if len(recs) != 0 {
		t.Fatal("new log not empty")
	}
	appendAll(t, l, "a", "bb", "", "ccc")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, recs, _ = open(t, dir)
	defer l.Close()
	if names(recs) != "a,bb,,ccc" {
		t.Fatalf("replayed %q", names(recs))
	}
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second Open: %v", err)
	}
	l.Close()
	l2, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	l2.Close()
}

// TestDamagedTail cuts and corrupts the newest segment at every byte of
// its last records: recovery keeps exactly the records before the damage,
// says what it dropped, and the log goes on from there.
func TestDamagedTail(t *testing.T) {
	src := t.TempDir()
	l, _, _ := open(t, src)
	appendAll(t, l, "first record", "second record", "third, the last")
	l.Close()
	seg := filepath.Join(src, "log-0000000000000001.wal")
	whole, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	firstTwo := 2*headerSize + len("first record") + len("second record")
	recEnd := firstTwo + headerSize + len("third, the last")
	if len(whole) <= recEnd+2*headerSize {
		t.Fatalf("segment of %d bytes: no preallocated tail after the records' %d", len(whole), recEnd)
	}
	for off := firstTwo - (headerSize + len("second record")); off < recEnd+2*headerSize; off++ {
		for _, mode := range []string{"truncate", "flip"} {
			dir := t.TempDir()
			damaged := append([]byte(nil), whole...)
			if mode == "truncate" {
				damaged = damaged[:off]
			} else {
				damaged[off] ^= 0x40
			}
			if err := os.WriteFile(filepath.Join(dir, "log-0000000000000001.wal"), damaged, 0o644); err != nil {
				t.Fatal(err)
			}
			l, recs, logs := open(t, dir)
			want := "first record"
			if off >= firstTwo {
				want += ",second record"
			}
			if off >= recEnd {
				// Damage in the zeros after the records loses nothing.
				want += ",third, the last"
			}
			if names(recs) != want {
				l.Close()
				t.Fatalf("%s at %d: replayed %q, want %q", mode, off, names(recs), want)
			}
			// Cutting the file between records drops nothing worth a log
			// line, nor does cutting the zeros after them.
			boundary := mode == "truncate" && (off == firstTwo || off == firstTwo-headerSize-len("second record") || off >= recEnd)
			if boundary && len(logs) != 0 || !boundary && (len(logs) != 1 || !strings.Contains(logs[0], "dropping")) {
				l.Close()
				t.Fatalf("%s at %d: log lines %q", mode, off, logs)
			}
			appendAll(t, l, "after")
			l.Close()
			l, recs, logs = open(t, dir)
			l.Close()
			if names(recs) != want+",after" || len(logs) != 0 {
				t.Fatalf("%s at %d: after repair %q %q", mode, off, names(recs), logs)
			}
		}
	}
}

func TestDamageInOlderSegmentIsAnError(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	appendAll(t, l, "one", "two")
	p := l.BeginSnapshot()
	appendAll(t, l, "three")
	_ = p // the snapshot is never written: both segments stay
	l.Close()
	// Undamaged, the older segment's preallocated zeros end it cleanly.
	l, recs, logs := open(t, dir)
	l.Close()
	if names(recs) != "one,two,three" || len(logs) != 0 {
		t.Fatalf("two segments replayed %q, logs %q", names(recs), logs)
	}
	seg := filepath.Join(dir, "log-0000000000000001.wal")
	b, _ := os.ReadFile(seg)
	b[headerSize+1] ^= 1
	os.WriteFile(seg, b, 0o644)
	l2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if err := l2.Replay(func(io.Reader, Pos) error { return nil }, func([]byte, Pos) error { return nil }); err == nil {
		t.Fatal("a damaged older segment was replayed without error")
	}
}

func TestSnapshots(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	appendAll(t, l, "a", "b")
	p := l.BeginSnapshot()
	appendAll(t, l, "c") // after the point: not in the snapshot
	if err := l.WriteSnapshot(p, func(w io.Writer, _ Pos) error { _, err := w.Write([]byte("a+b")); return err }); err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, "d")
	st := l.Stats()
	l.Close()
	if st.SnapshotBytes == 0 || st.LogBytes == 0 {
		t.Fatalf("stats %+v", st)
	}
	entries, _ := os.ReadDir(dir)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	if strings.Contains(strings.Join(files, " "), "log-0000000000000001") {
		t.Fatalf("superseded segment kept: %v", files)
	}
	l, recs, _ := open(t, dir)
	l.Close()
	if names(recs) != "SNAP:a+b,c,d" {
		t.Fatalf("replayed %q", names(recs))
	}

	// A damaged snapshot is an error, never misread.
	snap := filepath.Join(dir, "snap-0000000000000002.db")
	b, _ := os.ReadFile(snap)
	b[len(snapshotMagic)] ^= 1
	os.WriteFile(snap, b, 0o644)
	l2, _ := Open(dir, Options{})
	defer l2.Close()
	if err := l2.Replay(func(r io.Reader, _ Pos) error { _, err := io.ReadAll(r); return err }, func([]byte, Pos) error { return nil }); err == nil {
		t.Fatal("damaged snapshot accepted")
	}
}

// TestSnapshotCrashStates copies the directory at each step of a snapshot,
// as a crash there would leave it, and checks that each copy replays to
// the same records.
func TestSnapshotCrashStates(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	appendAll(t, l, "a", "b")
	p := l.BeginSnapshot()
	appendAll(t, l, "c")
	states := map[string]string{}
	states["before the snapshot file"] = copyDir(t, dir)
	// A half-written temp file, as a crash mid-write leaves it.
	os.WriteFile(filepath.Join(dir, "snap-0000000000000002.db.tmp"), []byte("TLSNAPv1garb"), 0o644)
	states["with a torn temp file"] = copyDir(t, dir)
	os.Remove(filepath.Join(dir, "snap-0000000000000002.db.tmp"))
	if err := l.WriteSnapshot(p, func(w io.Writer, _ Pos) error { _, err := w.Write([]byte("a+b")); return err }); err != nil {
		t.Fatal(err)
	}
	l.Close()
	states["after"] = copyDir(t, dir)
	// Renamed, old segment not yet deleted.
	mid := copyDir(t, dir)
	os.WriteFile(filepath.Join(mid, "log-0000000000000001.wal"), []byte("stale, covered by the snapshot"), 0o644)
	states["renamed, old segment not deleted"] = mid
	for name, d := range states {
		l, recs, _ := open(t, d)
		l.Close()
		got := names(recs)
		if got != "a,b,c" && got != "SNAP:a+b,c" {
			t.Errorf("%s: replayed %q", name, got)
		}
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644)
	}
	return dst
}

func TestConcurrentAppends(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				rec := fmt.Sprintf("g%d-%d", g, i)
				mu.Lock() // the caller's commit lock
				c := l.Append([]byte(rec))
				order = append(order, rec)
				mu.Unlock()
				if err := c.Wait(); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	l.Close()
	l, recs, _ := open(t, dir)
	l.Close()
	if names(recs) != strings.Join(order, ",") {
		t.Fatal("replay order differs from append order")
	}
}

func TestRecordLimits(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	appendAll(t, l, "ok")
	l.Close()
	// A frame that claims a huge length is corruption, not an allocation.
	seg := filepath.Join(dir, "log-0000000000000001.wal")
	f, _ := os.OpenFile(seg, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte{0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4})
	f.Close()
	l, recs, logs := open(t, dir)
	l.Close()
	if names(recs) != "ok" || len(logs) != 1 {
		t.Fatalf("%q %q", names(recs), logs)
	}
	_ = bytes.MinRead
}

// TestPositions checks that the places Replay, ReadRecords and Durable
// report hold the bytes they claim, in segments and in a snapshot: a
// reader that keeps only a Pos must read back exactly the payload.
func TestPositions(t *testing.T) {
	dir := t.TempDir()
	l, _, _ := open(t, dir)
	appendAll(t, l, "one", "two2", "")
	p := l.BeginSnapshot()
	appendAll(t, l, "three", "four-four")
	if err := l.WriteSnapshot(p, func(w io.Writer, at Pos) error {
		if at.File != SnapshotID(2) {
			t.Errorf("snapshot written as file %d", at.File)
		}
		_, err := w.Write([]byte("state"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	from := int64(0)
	appendAll(t, l, "five")
	end := l.Durable()
	if end.File != SegmentID(2) {
		t.Fatalf("durable end in file %d", end.File)
	}
	var read []string
	if err := l.ReadRecords(end.File, from, end.Off, func(rec []byte, off int64) error {
		read = append(read, fmt.Sprintf("%s@%d", rec, off))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(read, ","), "three@8,four-four@21,five@38"; got != want {
		t.Fatalf("ReadRecords: %s, want %s", got, want)
	}
	if err := l.ReadRecords(end.File, 0, end.Off-1, func([]byte, int64) error { return nil }); err == nil {
		t.Fatal("ReadRecords read a record cut short")
	}
	l.Close()

	l2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	check := func(b []byte, at Pos) {
		t.Helper()
		f, err := l2.OpenFile(at.File)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		got := make([]byte, len(b))
		if _, err := f.ReadAt(got, at.Off); err != nil || !bytes.Equal(got, b) {
			t.Fatalf("at %+v: read %q (%v), want %q", at, got, err, b)
		}
	}
	n := 0
	if err := l2.Replay(func(r io.Reader, at Pos) error {
		b, err := io.ReadAll(r)
		check(b, at)
		return err
	}, func(rec []byte, at Pos) error {
		check(rec, at)
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("replayed %d records after the snapshot, want 3", n)
	}
}
