package keyspace

import (
	"encoding/binary"
	"unsafe"

	"github.com/tablelab/tablelab/engine/edm"
)

// placeLen is the length of the place a settled item's encoding ends
// with: the file (u32), the offset (u64) and the length (u32) of the
// whole encoding, little-endian.
const placeLen = 16

// A settled item's encoding is its head, its residue, then its place.
// The residue is the entity's properties as the whole encoding has them,
// except that a String, Binary or Guid longer than ResidueMax bytes keeps
// only its name and the kind deferredKind: the value is in the file. A
// filter on the short properties — numbers, dates, flags, names, codes —
// then decides from memory, and a scan reads back from the file only the
// entities it returns, or the few whose long text the filter reads. The
// residue costs a small fraction of an entity of ~1 KiB of text. The
// bound keeps a Guid (36 bytes of text), a common key to look things up
// by.
const ResidueMax = 36

// deferredKind, in a residue, is a property whose value is in the file.
// It is no Edm kind, so a whole encoding holding it reads as damaged.
const deferredKind = 0x7f

// residueOf returns the residue of the properties of a whole encoding,
// props being the encoding from its property count on.
func residueOf(props string) (string, bool) {
	r := reader{s: props}
	n := r.uvarint()
	if r.err || n > uint64(len(props)) {
		return "", false
	}
	b := make([]byte, 0, min(len(props), 16+int(n)*(ResidueMax+8)))
	b = binary.AppendUvarint(b, n)
	for i := uint64(0); i < n && !r.err; i++ {
		start := r.off
		r.str() // name
		nameEnd := r.off
		kind, _ := splitKind(r.byte1())
		valueStart := r.off
		r.skip(kind)
		if r.err {
			return "", false
		}
		switch kind {
		case edm.String, edm.Binary, edm.Guid:
			// The value is its length, then its bytes: one byte of
			// length for any value ResidueMax could keep.
			if r.off-valueStart > 1+ResidueMax {
				b = append(b, props[start:nameEnd]...)
				b = append(b, deferredKind)
				continue
			}
		}
		b = append(b, props[start:r.off]...)
	}
	if r.err || r.off != len(props) {
		return "", false
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true
}

// SettledAt returns it settled at off in file, holding only the head of
// its encoding, its residue and that place; vlen is the length of the
// whole encoding there. An item in memory must hold its whole encoding.
// It reports false, and returns it as it was, when the place or the
// encoding cannot be settled.
func SettledAt(it Item, vlen int, file uint32, off int64) (Item, bool) {
	if file == 0 || off <= 0 || vlen <= 0 || vlen > 1<<31 {
		return it, false
	}
	hl := it.HeadLen()
	head, residue := it.Enc[:hl], ""
	if it.Settled() {
		residue = it.Enc[hl : len(it.Enc)-placeLen]
	} else {
		var ok bool
		if residue, ok = residueOf(it.Enc[hl:]); !ok {
			return it, false
		}
	}
	// A new string either way, so the whole encoding it was cut from can
	// be freed.
	b := make([]byte, hl+len(residue)+placeLen)
	copy(b, head)
	copy(b[hl:], residue)
	p := b[hl+len(residue):]
	binary.LittleEndian.PutUint32(p, file)
	binary.LittleEndian.PutUint64(p[4:], uint64(off))
	binary.LittleEndian.PutUint32(p[12:], uint32(vlen))
	it.Enc = unsafe.String(unsafe.SliceData(b), len(b))
	it.rkLen |= settledBit
	return it, true
}

// Place returns where a settled item's whole encoding lies, and its head.
func (it Item) Place() (file uint32, off int64, vlen int, head string) {
	p := it.Enc[len(it.Enc)-placeLen:]
	return le32(p), int64(le32(p[4:])) | int64(le32(p[8:]))<<32, int(le32(p[12:])), it.Enc[:it.HeadLen()]
}
