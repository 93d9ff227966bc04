package blob

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/digest"
	"github.com/tablelab/tablelab/engine/svcerr"
)

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func readString(b []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return "", nil, false
	}
	return string(b[k : k+int(n)]), b[k+int(n):], true
}

// partName names the i-th Binary part of a packed value: "D00", "D01", …,
// which the store's sorting by name keeps in order.
func partName(prefix byte, i int) string {
	return string([]byte{prefix, byte('0' + i/10), byte('0' + i%10)})
}

// packParts splits b into Binary properties of at most 64 KiB each.
func packParts(props []engine.Property, prefix byte, b []byte) []engine.Property {
	for i := 0; len(b) > 0; i++ {
		n := min(len(b), engine.MaxBinaryLen)
		props = append(props, engine.Property{Name: partName(prefix, i), Value: edm.BinaryValue(b[:n])})
		b = b[n:]
	}
	return props
}

// unpackParts joins what packParts split, appending to dst.
func unpackParts(dst []byte, e *engine.Entity, prefix byte) []byte {
	for _, p := range e.Properties {
		if len(p.Name) == 3 && p.Name[0] == prefix && p.Name[1] >= '0' && p.Name[1] <= '9' && p.Value.Kind() == edm.Binary {
			dst = append(dst, p.Value.Str()...)
		}
	}
	return dst
}

// chunkKey is the RowKey of a data id's i-th chunk: fixed width, so that
// key order is chunk order.
func chunkKey(i int64) string {
	s := strconv.FormatInt(i, 10)
	const width = 8
	if len(s) < width {
		s = "00000000"[:width-len(s)] + s
	}
	return s
}

// upload is the data of one body written to the store.
type upload struct {
	gen  string // the container generation whose partition records it
	id   string
	size int64
	md5  [digest.MD5Size]byte
}

// errBodyTooShort is what a body that ends before its Content-Length
// gives; the client has gone, and no answer reaches it.
var errBodyTooShort = svcerr.With(svcerr.InvalidInput, "The request body is shorter than its Content-Length.")

// write stores a body of n bytes under a fresh data id, recording the
// upload in the container's partition first so that a crash part-way
// leaves nothing New cannot find. It reads and writes one chunk at a time,
// so a body of any size holds one chunk of memory. On failure it removes
// what it wrote.
func (s *Service) write(gen string, r io.Reader, n int64) (*upload, error) {
	u := &upload{gen: gen, id: newID(), size: n}
	rec := &engine.Entity{PartitionKey: gen, RowKey: "p/" + u.id}
	if _, err := s.store.Write(blobsTable, engine.Op{Kind: engine.Insert, Entity: rec}); err != nil {
		return nil, err
	}
	h := digest.NewMD5()
	buf := make([]byte, min(n, ChunkSize))
	for i, left := int64(0), n; left > 0; i++ {
		b := buf[:min(left, ChunkSize)]
		if _, err := io.ReadFull(r, b); err != nil {
			s.discard(u)
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, errBodyTooShort
			}
			return nil, err
		}
		h.Write(b)
		e := &engine.Entity{PartitionKey: u.id, RowKey: chunkKey(i)}
		e.Properties = packParts(make([]engine.Property, 0, chunkParts), 'D', b)
		if _, err := s.store.Write(dataTable, engine.Op{Kind: engine.InsertOrReplace, Entity: e}); err != nil {
			s.discard(u)
			return nil, err
		}
		left -= int64(len(b))
	}
	h.Sum(u.md5[:0])
	return u, nil
}

// discard removes an upload that will not be committed: its chunks, then
// its record.
func (s *Service) discard(u *upload) {
	s.deleteData(u.id)
	s.deleteKeys(blobsTable, u.gen, []string{"p/" + u.id})
}

// deleteData removes every chunk of a data id. It is idempotent.
func (s *Service) deleteData(id string) error {
	var keys []string
	err := s.scan(dataTable, id, "", "", func(e *engine.Entity) (bool, error) {
		keys = append(keys, e.RowKey)
		return true, nil
	})
	if err != nil {
		return err
	}
	return s.deleteKeys(dataTable, id, keys)
}

// segment is one piece of a blob's content: a committed block, or the
// whole body of a Put Blob (with an empty block id).
type segment struct {
	block string // the block id as sent, base64
	size  int64
	data  string // the data id
}

func appendSegments(b []byte, segs []segment) []byte {
	for _, sg := range segs {
		b = appendString(b, sg.block)
		b = binary.AppendUvarint(b, uint64(sg.size))
		b = append(b, sg.data...)
	}
	return b
}

func decodeSegments(b []byte) ([]segment, error) {
	var segs []segment
	for len(b) > 0 {
		var sg segment
		var ok bool
		if sg.block, b, ok = readString(b); !ok {
			return nil, errCorrupt
		}
		n, k := binary.Uvarint(b)
		if k <= 0 || len(b)-k < idLen {
			return nil, errCorrupt
		}
		sg.size = int64(n)
		sg.data = string(b[k : k+idLen])
		b = b[k+idLen:]
		segs = append(segs, sg)
	}
	return segs, nil
}

var errCorrupt = svcerr.With(svcerr.InternalError, "A blob's block list is corrupt.")

// reader streams a byte range of a blob's segments, one chunk at a time,
// reading each chunk from the store when it gets there.
type reader struct {
	s      *Service
	segs   []segment
	off    int64  // within the current segment
	left   int64  // bytes still to return
	buf    []byte // what is left of the current chunk
	mem    []byte // the chunk buffer, reused
	closed bool
}

// newReader returns a reader of length bytes from offset off of segs.
func (s *Service) newReader(segs []segment, off, length int64) *reader {
	for len(segs) > 0 && off >= segs[0].size {
		off -= segs[0].size
		segs = segs[1:]
	}
	return &reader{s: s, segs: segs, off: off, left: length}
}

func (r *reader) Read(p []byte) (int, error) {
	if r.closed {
		return 0, errors.New("blob: read after close")
	}
	if r.left <= 0 {
		return 0, io.EOF
	}
	if len(r.buf) == 0 {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	if int64(len(p)) > r.left {
		p = p[:r.left]
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	r.left -= int64(n)
	return n, nil
}

// fill reads the chunk holding the next byte into buf, from that byte on.
func (r *reader) fill() error {
	for len(r.segs) > 0 && r.off >= r.segs[0].size {
		r.off -= r.segs[0].size
		r.segs = r.segs[1:]
	}
	if len(r.segs) == 0 {
		return io.ErrUnexpectedEOF
	}
	sg := r.segs[0]
	i := r.off / ChunkSize
	e, err := r.s.get(dataTable, sg.data, chunkKey(i))
	if err != nil {
		return err
	}
	if e == nil {
		// The blob was replaced or deleted while it was being read, and
		// its data collected.
		return svcerr.New(svcerr.BlobNotFound)
	}
	r.mem = unpackParts(r.mem[:0], e, 'D')
	chunk := r.mem
	start := r.off - i*ChunkSize
	end := min(int64(len(chunk)), sg.size-i*ChunkSize)
	if start >= end {
		return errCorrupt
	}
	r.buf = chunk[start:end]
	r.off += end - start
	return nil
}

// Close lets go of the reader's buffer.
func (r *reader) Close() error {
	r.closed = true
	r.buf, r.mem = nil, nil
	return nil
}
