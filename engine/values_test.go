package engine

import (
	"fmt"
	"strings"
	"testing"
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
