package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/tablelab/tablelab/engine/edm"
)

// Values lets a durable store keep entities on disk instead of in memory.
//
// Every entity a durable store holds is already in a file: the journal
// record that wrote it, or the snapshot that compacted the journal. Once
// that record is durable the store can drop the entity's encoding from
// memory, keep its head (Timestamp and keys, which the keyspace orders by)
// and where the rest lies, and read it back when asked. The operating
// system's page cache then holds the data, which it can share, page out
// and refill; the store's heap holds only keys.
type Values interface {
	// ReadAt reads len(p) bytes from a file at off, as io.ReaderAt does.
	ReadAt(p []byte, file uint32, off int64) (int, error)
	// Pin keeps every file the store points into now readable, even
	// when the files are later replaced, until release is called. The
	// store pins for as long as it reads a copy of its keyspace.
	Pin() (release func())
}

// Place is where a journal record or a snapshot's first byte lies in a
// file Values can read. The zero Place is nowhere: what is replayed from
// it stays in memory.
type Place struct {
	File uint32
	Off  int64
}

// settledBit marks a settled item, in its rkLen: keys are far shorter
// than 2 GiB.
const settledBit = 1 << 31

// placeLen is the length of the place a settled item's encoding ends
// with: the file (u32), the offset (u64) and the length (u32) of the
// whole encoding, little-endian.
const placeLen = 16

// A settled item's encoding is its head, its residue, then its place.
// The residue is the entity's properties as the whole encoding has them,
// except that a String, Binary or Guid longer than residueMax bytes keeps
// only its name and the kind deferredKind: the value is in the file. A
// filter on the short properties — numbers, dates, flags, names, codes —
// then decides from memory, and a scan reads back from the file only the
// entities it returns, or the few whose long text the filter reads. The
// residue costs about a tenth of an entity of ~1 KiB of text. The bound
// keeps a Guid (36 bytes of text), a common key to look things up by.
const residueMax = 36

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
	b := make([]byte, 0, min(len(props), 16+int(n)*(residueMax+8)))
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
			// length for any value residueMax could keep.
			if r.off-valueStart > 1+residueMax {
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

// settledAt returns it settled at off in file, holding only the head of
// its encoding, its residue and that place. An item in memory must hold
// its whole encoding.
func settledAt(it item, vlen int, file uint32, off int64) (item, bool) {
	if file == 0 || off <= 0 || vlen <= 0 || vlen > 1<<31 {
		return it, false
	}
	hl := headLen(it)
	head, residue := it.enc[:hl], ""
	if it.settled() {
		residue = it.enc[hl : len(it.enc)-placeLen]
	} else {
		var ok bool
		if residue, ok = residueOf(it.enc[hl:]); !ok {
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
	it.enc = unsafe.String(unsafe.SliceData(b), len(b))
	it.rkLen |= settledBit
	return it, true
}

// headLen is the length of the head of an item's encoding: the
// Timestamp, then each key with its length. The properties, or a settled
// item's residue, start there.
func headLen(it item) int {
	rk := it.rkLen &^ settledBit
	return 8 + uvarintLen(it.pkLen) + int(it.pkLen) + uvarintLen(rk) + int(rk)
}

func (it item) settled() bool { return it.rkLen&settledBit != 0 }

// place returns where a settled item's whole encoding lies, and its head.
func (it item) place() (file uint32, off int64, vlen int, head string) {
	p := it.enc[len(it.enc)-placeLen:]
	return le32(p), int64(le32(p[4:])) | int64(le32(p[8:]))<<32, int(le32(p[12:])), it.enc[:headLen(it)]
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// size is the length of it's whole encoding, wherever it lies.
func (it item) size() int64 {
	if it.settled() {
		return int64(le32(it.enc[len(it.enc)-4:]))
	}
	return int64(len(it.enc))
}

// DataBytes returns the size of every entity the store holds, in memory
// or in files: what memory would need to hold them all.
func (s *Store) DataBytes() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dataBytes
}

// set puts it in the tree, keeping the count of data bytes. Callers hold
// mu for writing.
func (s *Store) set(it item) (item, bool) {
	prev, replaced := s.tree.Set(it)
	s.dataBytes += it.size()
	if replaced {
		s.dataBytes -= prev.size()
	}
	return prev, replaced
}

// remove deletes the item with it's keys from the tree, keeping the count
// of data bytes. Callers hold mu for writing.
func (s *Store) remove(it item) {
	if prev, ok := s.tree.Delete(it); ok {
		s.dataBytes -= prev.size()
	}
}

// replayed returns the item of enc, replayed from a buffer that will be
// reused: settled at off in at's file when the store can read it back
// from there, and otherwise holding a copy of enc.
func (s *Store) replayed(it item, enc string, at Place, off int64) item {
	if s.values != nil && at.File != 0 {
		if settled, ok := settledAt(it, len(enc), at.File, off); ok {
			return settled
		}
	}
	it.enc = strings.Clone(enc)
	return it
}

// inMemory returns it holding its whole encoding again.
func (it item) inMemory(enc string) item {
	it.enc = enc
	it.rkLen &^= settledBit
	return it
}

var errValueMismatch = errors.New("engine: an entity read back from its file is not the one the keyspace holds")

// load returns the whole encoding of it, read from its file when it is
// settled. Callers hold mu or a pin.
func (s *Store) load(it item) (string, error) {
	// A reader of its own: the buffer it reads into is never reused.
	vr := valueReader{s: s}
	return vr.get(it)
}

// valueReader reads the encodings of the items a walk meets in key order.
// Entities written in key order — by a snapshot, or by a load that went
// partition by partition — lie side by side in their file, so after two
// neighbours it reads ahead in a window that doubles up to maxWindow: a
// thousand-entity partition costs a handful of reads, not a thousand.
type valueReader struct {
	s      *Store
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

// keep makes the encoding get returned last valid for good, at the cost
// of a new buffer for the next read. A page's entities share the windows
// they were read in, rather than each taking a copy.
func (r *valueReader) keep() { r.kept = true }

// get returns the whole encoding of it. A settled item's encoding is valid
// only until the next call, unless kept.
func (r *valueReader) get(it item) (string, error) {
	if !it.settled() {
		return it.enc, nil
	}
	file, off, vlen, head := it.place()
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
		got, err := r.s.values.ReadAt(r.buf, file, off)
		// A window may run past the end of the file; the entity may not.
		if int64(got) < n {
			r.file, r.buf = 0, r.buf[:0]
			return "", fmt.Errorf("engine: reading an entity from file %d at %d: %w", file, off, err)
		}
		r.buf = r.buf[:got]
		r.file, r.start = file, off
	}
	r.end = off + n
	b := r.buf[off-r.start : off-r.start+n]
	enc := unsafe.String(unsafe.SliceData(b), len(b))
	if !strings.HasPrefix(enc, head) {
		return "", errValueMismatch
	}
	return enc, nil
}

// Settle settles the entities of journal records that are durable at
// places the store's Values can read. read calls settle with each record
// and its place; the entities a record wrote that are still current, and
// still held in memory, are settled there: the store keeps only their
// heads. A store without Values ignores them. A read that finds no
// record tells the store its writes have all settled, a quiet moment to
// tidy its memory.
func (s *Store) Settle(read func(settle func(rec []byte, at Place) error) error) error {
	if s.values == nil {
		return nil
	}
	// The tree's nodes share arrays after a split, and an array dropped
	// by one half stays alive through the other, still holding copies of
	// the items it had — whole encodings, for entities written moments
	// before. A copy of the tree makes the next change to each node copy
	// it afresh, and settling changes exactly the nodes that hold recent
	// writes, so their old arrays, and the encodings in them, go. Without
	// it, a million-entity load kept a third of its encodings alive.
	s.mu.Lock()
	s.tree.Copy()
	s.mu.Unlock()
	records := 0
	err := read(func(rec []byte, at Place) error {
		records++
		return s.settleRecord(rec, at)
	})
	// Settling does not reach a node whose items were all settled
	// before it split, and its array may hold the encodings its sibling
	// had then. Now and then, and whenever writes pause, copy every leaf
	// afresh: cheap, because one change per leaf is enough.
	s.mu.Lock()
	due := s.settledSince >= max(refreshMin, s.tree.Len()/16) || records == 0 && s.settledSince > 0
	if due {
		s.settledSince = 0
	}
	s.mu.Unlock()
	if due {
		s.refreshNodes()
	}
	return err
}

// refreshMin is the fewest entities settled between two refreshes.
const refreshMin = 8 << 10

// refreshNodes makes every node of the tree copy its arrays afresh, so
// that the arrays it shared, and whatever stale items they held, can go.
// After a copy of the tree, the next change to a node copies it; a leaf
// holds at least refreshStep items, so changing every refreshStep-th item
// changes every leaf, and every node above one.
func (s *Store) refreshNodes() {
	s.mu.Lock()
	cp := s.tree.Copy()
	s.mu.Unlock()
	iter := cp.Iter()
	defer iter.Release()
	more, n := iter.First(), 0
	for more {
		s.mu.Lock()
		for k := 0; more && k < settleChunk/refreshStep; n++ {
			if n%refreshStep == 0 {
				if cur, ok := s.tree.Get(iter.Item()); ok {
					s.tree.Set(cur)
				}
				k++
			}
			more = iter.Next()
		}
		s.mu.Unlock()
	}
}

// refreshStep is less than the fewest items a leaf holds: the tree's
// default degree of 32 makes that 31.
const refreshStep = 25

// settleRecord settles the entities one record wrote.
func (s *Store) settleRecord(rec []byte, at Place) error {
	if at.File == 0 {
		return nil
	}
	var targets []settleTarget
	r := reader{s: unsafe.String(unsafe.SliceData(rec), len(rec))}
	if r.byte1() != recWrite {
		return nil
	}
	id := r.uvarint()
	n := r.uvarint()
	if r.err || n > uint64(len(rec)) {
		return errCorrupt
	}
	for i := uint64(0); i < n && !r.err; i++ {
		switch r.byte1() {
		case changePut:
			enc := r.str()
			hr := reader{s: enc}
			ticks, pk, rk, _ := hr.header()
			if r.err || hr.err {
				return errCorrupt
			}
			targets = append(targets, settleTarget{key: keyItem(uint32(id), pk, rk), ticks: ticks, vlen: len(enc), off: at.Off + int64(r.off-len(enc))})
		case changeDelete:
			r.str()
			r.str()
		default:
			return errCorrupt
		}
	}
	if r.err {
		return errCorrupt
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range targets {
		cur, ok := s.tree.Get(t.key)
		// Settle only what memory still holds: an item already settled
		// may have moved on to a newer file, by a snapshot.
		if !ok || cur.settled() || encodedTicks(cur.enc) != t.ticks {
			continue
		}
		if it, ok := settledAt(cur, t.vlen, at.File, t.off); ok {
			s.tree.Set(it)
			s.settledSince++
		}
	}
	return nil
}

// settleTarget is an entity a record wrote: its search key, its version
// (every write has a Timestamp of its own) and where it lies.
type settleTarget struct {
	key   item
	ticks int64
	vlen  int
	off   int64
}

// settleChunk bounds how many entities one hold of the write lock moves,
// so settling a whole snapshot never stalls writers for long.
const settleChunk = 1024

// SettleCheckpoint moves the settled entities of a checkpoint to the
// places its WriteTo gave them in the snapshot that starts at at, and
// settles there those it held in memory too, if hot is false. Entities
// written since the checkpoint are left as they are. After it returns, no
// entity of the store points into a file the snapshot replaced.
func (s *Store) SettleCheckpoint(c *Checkpoint, at Place, hot bool) {
	if s.values == nil || at.File == 0 || len(c.offs) != c.tree.Len() {
		return
	}
	i := 0
	iter := c.tree.Iter()
	more := iter.First()
	for more {
		s.mu.Lock()
		for n := 0; more && n < settleChunk; n++ {
			old := iter.Item()
			if cur, ok := s.tree.Get(old); ok && (cur.settled() || !hot) && encodedTicks(cur.enc) == encodedTicks(old.enc) {
				vlen := len(cur.enc)
				if cur.settled() {
					_, _, vlen, _ = cur.place()
				}
				if it, ok := settledAt(cur, vlen, at.File, at.Off+c.offs[i]); ok {
					s.tree.Set(it)
				} else if cur.settled() {
					// It cannot point into the snapshot, and the file it
					// points into is about to go: back into memory.
					if enc, err := s.load(cur); err == nil {
						s.tree.Set(cur.inMemory(enc))
					}
				}
			}
			i++
			more = iter.Next()
		}
		s.mu.Unlock()
	}
	iter.Release()
}

// Residency says how much of a store memory holds.
type Residency struct {
	// Entities counts every entity; Settled those whose encodings are
	// in files, not memory.
	Entities, Settled int
	// HeldBytes sums the encodings memory holds: whole ones, and the
	// heads of the settled.
	HeldBytes int64
}

// Residency walks the keyspace to say how much of it memory holds. It
// costs a pass over every entity.
func (s *Store) Residency() Residency {
	tree, release := s.snapshot()
	defer release()
	var r Residency
	tree.Scan(func(it item) bool {
		r.Entities++
		if it.settled() {
			r.Settled++
		}
		r.HeldBytes += int64(len(it.enc))
		return true
	})
	return r
}

// Unsettle reads every settled entity back into memory.
func (s *Store) Unsettle() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var settled []item
	s.tree.Scan(func(it item) bool {
		if it.settled() {
			settled = append(settled, it)
		}
		return true
	})
	for _, it := range settled {
		enc, err := s.load(it)
		if err != nil {
			return err
		}
		s.tree.Set(it.inMemory(enc))
	}
	return nil
}
