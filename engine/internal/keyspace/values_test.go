package keyspace

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// memFiles is Files held in memory.
type memFiles map[uint32][]byte

func (m memFiles) ReadAt(p []byte, file uint32, off int64) (int, error) {
	f, ok := m[file]
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

// TestSettledPlaceRoundTrip settles items with keys of every length class
// at places near the limits of each field, and reads the place back.
func TestSettledPlaceRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 127, 128, 600} {
		pk, rk := strings.Repeat("p", n), strings.Repeat("r", n+1)
		enc := encode(42, pk, rk)
		it := ItemOf(7, enc, pk, rk)
		for _, p := range []struct {
			file uint32
			off  int64
		}{{1, 1}, {1<<32 - 1, 1<<40 + 3}, {9, 1<<62 + 5}} {
			s, ok := SettledAt(it, len(enc), p.file, p.off)
			if !ok || !s.Settled() {
				t.Fatalf("keys of %d: not settled at %+v", n, p)
			}
			file, off, vlen, head := s.Place()
			if file != p.file || off != p.off || vlen != len(enc) || !strings.HasPrefix(enc, head) || len(head) != it.HeadLen() {
				t.Fatalf("keys of %d: place %d %d %d %q, want %+v %d", n, file, off, vlen, head, p, len(enc))
			}
			if s.Size() != int64(len(enc)) || it.Size() != int64(len(enc)) {
				t.Fatalf("keys of %d: sizes %d and %d, want %d", n, s.Size(), it.Size(), len(enc))
			}
			if s.PK() != pk || s.RK() != rk || Less(s, it) || Less(it, s) || s.Ticks() != 42 {
				t.Fatalf("keys of %d: a settled item does not keep its keys", n)
			}
			// Settling a settled item moves it, keeping one place only.
			again, _ := SettledAt(s, len(enc), 3, 99)
			if f, o, _, h := again.Place(); f != 3 || o != 99 || h != head {
				t.Fatalf("keys of %d: moved to %d %d %q", n, f, o, h)
			}
			if back := again.InMemory(enc); back.Settled() || back != it {
				t.Fatalf("keys of %d: back in memory as %+v, want %+v", n, back, it)
			}
		}
	}
}

// TestSettledReadChecksHead checks that an entity whose place points at
// another entity fails to read, rather than answering with the other.
func TestSettledReadChecksHead(t *testing.T) {
	a := encode(1, "p", "a")
	b := encode(1, "p", "b")
	files := memFiles{2: []byte("xxxx" + a + b)}
	good, _ := SettledAt(ItemOf(1, a, "p", "a"), len(a), 2, 4)
	if enc, err := Read(files, good); err != nil || enc != a {
		t.Fatalf("load: %q, %v", enc, err)
	}
	wrong, _ := SettledAt(ItemOf(1, a, "p", "a"), len(b), 2, int64(4+len(a)))
	if _, err := Read(files, wrong); err != ErrValueMismatch {
		t.Fatalf("load of a misplaced entity: %v", err)
	}
	vr := ValueReader{Files: files}
	if _, err := vr.Get(wrong); err != ErrValueMismatch {
		t.Fatalf("window read of a misplaced entity: %v", err)
	}
	past, _ := SettledAt(ItemOf(1, a, "p", "a"), len(a), 2, 1000)
	if _, err := Read(files, past); err == nil {
		t.Fatal("read past the end of a file succeeded")
	}
	if _, err := vr.Get(past); err == nil {
		t.Fatal("window read past the end of a file succeeded")
	}
}

// deferred returns the names of the properties whose values a settled
// item's residue leaves in its file.
func deferred(t *testing.T, it Item) string {
	t.Helper()
	r := reader{s: it.Enc[:len(it.Enc)-placeLen], off: it.HeadLen()}
	var names []string
	for n := r.uvarint(); n > 0 && !r.err; n-- {
		name := r.str()
		kind, _ := splitKind(r.byte1())
		if kind == deferredKind {
			names = append(names, name)
		}
		r.skip(kind)
	}
	if r.err || r.off != len(r.s) {
		t.Fatalf("the residue of %q/%q does not walk", it.PK(), it.RK())
	}
	return strings.Join(names, " ")
}

// TestResidueDefersLongValues checks which values a residue leaves in the
// file: Strings, Binaries and Guids over ResidueMax bytes, and no others.
func TestResidueDefersLongValues(t *testing.T) {
	long := strings.Repeat("x", ResidueMax)
	g, _ := edm.ParseGuid("c9da6455-213d-42c9-9a79-000000000042")
	for _, c := range []struct {
		bin      int
		deferred string
	}{{1, "Note"}, {ResidueMax, "Note"}, {ResidueMax + 1, "Bin Note"}, {40, "Bin Note"}} {
		enc := encode(9, "p", "r",
			prop{"Bin", edm.BinaryValue([]byte(strings.Repeat("b", c.bin)))},
			prop{"Edge", edm.StringValue(long)},
			prop{"Id", g},
			prop{"Note", edm.StringValue(long + "!")},
			prop{"Num", edm.Int64Value(1 << 40)})
		it, ok := SettledAt(ItemOf(1, enc, "p", "r"), len(enc), 1, 8)
		if !ok {
			t.Fatalf("binary of %d: did not settle", c.bin)
		}
		if got := deferred(t, it); got != c.deferred {
			t.Fatalf("binary of %d: the residue defers %q, want %q", c.bin, got, c.deferred)
		}
		rec := &Record{Enc: it.Enc, Props: it.HeadLen()}
		if v, ok := rec.Property("Num"); !ok || v.Int() != 1<<40 || rec.Deferred {
			t.Fatalf("binary of %d: a residue reads Num as %v", c.bin, v)
		}
		if _, ok := rec.Property("Note"); ok || !rec.Deferred {
			t.Fatalf("binary of %d: a deferred value reads as present", c.bin)
		}
	}
}

// TestReadFailure checks that a short read names the file and offset and
// keeps the cause for errors.Is, also when the reader reported none.
func TestReadFailure(t *testing.T) {
	enc := encode(1, "pk", "rk")
	it, _ := SettledAt(ItemOf(1, enc, "pk", "rk"), len(enc), 4, 10)
	_, err := Read(memFiles{4: []byte("tiny")}, it)
	if err == nil || err.Error() != "engine: reading an entity from file 4 at 10: past the end" {
		t.Fatalf("short file: %v", err)
	}
	_, err = Read(silentFiles{}, it)
	if !errors.Is(err, io.ErrUnexpectedEOF) || err.Error() != "engine: reading an entity from file 4 at 10: unexpected EOF" {
		t.Fatalf("a read that returned nothing and no error: %v", err)
	}
	sentinel := errors.New("disk gone")
	_, err = Read(failingFiles{sentinel}, it)
	if !errors.Is(err, sentinel) {
		t.Fatalf("the cause is lost: %v", err)
	}
}

// silentFiles reads nothing and reports no error, which io.ReaderAt
// forbids but a buggy Files may do.
type silentFiles struct{}

func (silentFiles) ReadAt(p []byte, file uint32, off int64) (int, error) { return 0, nil }

type failingFiles struct{ err error }

func (f failingFiles) ReadAt(p []byte, file uint32, off int64) (int, error) { return 0, f.err }
