package keyspace

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// Files reads the files settled items point into.
type Files interface {
	// ReadAt reads len(p) bytes from a file at off, as io.ReaderAt does.
	ReadAt(p []byte, file uint32, off int64) (int, error)
}

// ErrValueMismatch is the failure to find, at a settled item's place, the
// entity the item is the head of.
var ErrValueMismatch = errors.New("engine: an entity read back from its file is not the one the keyspace holds")

// readError is the failure to read a settled entity back from its file.
type readError struct {
	file   uint32
	offset int64
	err    error // what the read returned; io.ErrUnexpectedEOF when it returned nothing
}

func (e *readError) Error() string {
	return "engine: reading an entity from file " + strconv.FormatUint(uint64(e.file), 10) +
		" at " + strconv.FormatInt(e.offset, 10) + ": " + e.cause().Error()
}

// Unwrap returns the read's own error, so errors.Is sees through it.
func (e *readError) Unwrap() error { return e.cause() }

// cause is never nil: a short read that reported no error still failed.
func (e *readError) cause() error {
	if e.err == nil {
		return io.ErrUnexpectedEOF
	}
	return e.err
}

// Read returns the whole encoding of it, read from files when it is
// settled. The caller keeps the files readable while it reads.
func Read(files Files, it Item) (string, error) {
	// A reader of its own: the buffer it reads into is never reused.
	vr := ValueReader{Files: files}
	return vr.Get(it)
}

// ValueReader reads the encodings of the items a walk meets in key order.
// Entities written in key order — by a snapshot, or by a load that went
// partition by partition — lie side by side in their file, so after two
// neighbours it reads ahead in a window that doubles up to maxWindow: a
// thousand-entity partition costs a handful of reads, not a thousand.
type ValueReader struct {
	Files  Files
	buf    []byte
	kept   bool // buf holds an encoding handed out to keep: do not reuse it
	file   uint32
	start  int64 // the file offset of buf[0]
	end    int64 // where the last item read ended
	window int
}

const (
	minWindow = 8 << 10
	maxWindow = 64 << 10
	// maxGap is how far apart neighbours may lie and still count as side
	// by side: a snapshot puts a table ID and a length between two
	// entities, a log record a change's kind and length, and a new record
	// its frame and header.
	maxGap = 64
)

// Keep makes the encoding Get returned last valid for good, at the cost
// of a new buffer for the next read. A page's entities share the windows
// they were read in, rather than each taking a copy.
func (r *ValueReader) Keep() { r.kept = true }

// Get returns the whole encoding of it. A settled item's encoding is
// valid only until the next call, unless kept.
func (r *ValueReader) Get(it Item) (string, error) {
	if !it.Settled() {
		return it.Enc, nil
	}
	file, off, vlen, head := it.Place()
	n := int64(vlen)
	if file != r.file || off < r.start || off+n > r.start+int64(len(r.buf)) {
		size := int(n)
		if file == r.file && off >= r.end && off-r.end <= maxGap {
			r.window = min(max(2*r.window, minWindow), maxWindow)
			size = max(size, r.window)
		} else {
			r.window = 0
		}
		if cap(r.buf) < size || r.kept {
			r.buf, r.kept = make([]byte, size), false
		}
		r.buf = r.buf[:size]
		got, err := r.Files.ReadAt(r.buf, file, off)
		// A window may run past the end of the file; the entity may not.
		if int64(got) < n {
			r.file, r.buf = 0, r.buf[:0]
			return "", &readError{file: file, offset: off, err: err}
		}
		r.buf = r.buf[:got]
		r.file, r.start = file, off
	}
	r.end = off + n
	b := r.buf[off-r.start : off-r.start+n]
	enc := unsafe.String(unsafe.SliceData(b), len(b))
	if !strings.HasPrefix(enc, head) {
		return "", ErrValueMismatch
	}
	return enc, nil
}
