package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/tidwall/btree"
)

// Journal makes a store durable. The store hands it one record per
// committed mutation — a table created or deleted, or the entities one
// write or one batch changed — and does not acknowledge the mutation until
// the journal says it is durable. A batch is one record, so it survives a
// crash whole or not at all.
type Journal interface {
	// Append is called with the store's write lock held, in commit order.
	// It must not wait for the disk; the Waiter it returns does.
	Append(rec []byte) Waiter
}

// Waiter blocks until a journal record is durable.
type Waiter interface {
	Wait() error
}

// Record kinds of the journal.
const (
	recCreateTable byte = 1
	recDeleteTable byte = 2
	recWrite       byte = 3

	changePut    byte = 1
	changeDelete byte = 2
)

// change is one entity written or removed by a committed write.
type change struct {
	put    bool
	pk, rk string
	enc    string // the new encoding when put
}

func encodeCreateTable(t *table) []byte {
	b := []byte{recCreateTable}
	b = binary.AppendUvarint(b, uint64(t.id))
	return appendString(b, t.name)
}

func encodeDeleteTable(t *table) []byte {
	b := []byte{recDeleteTable}
	return binary.AppendUvarint(b, uint64(t.id))
}

func encodeWrite(id uint32, changes []change) []byte {
	n := 16
	for _, c := range changes {
		n += 12 + len(c.enc) + len(c.pk) + len(c.rk)
	}
	b := make([]byte, 0, n)
	b = append(b, recWrite)
	b = binary.AppendUvarint(b, uint64(id))
	b = binary.AppendUvarint(b, uint64(len(changes)))
	for _, c := range changes {
		if c.put {
			b = append(b, changePut)
			b = appendString(b, c.enc)
		} else {
			b = append(b, changeDelete)
			b = appendString(b, c.pk)
			b = appendString(b, c.rk)
		}
	}
	return b
}

// Replay applies one journal record to the store, as recovery does before
// the store serves requests. Records must come in the order they were
// appended. A record that does not decode is an error and changes nothing.
// When the record lies at a place the store's Values can read, the
// entities it wrote are settled there rather than held in memory.
func (s *Store) Replay(rec []byte, at Place) error {
	r := reader{s: unsafe.String(unsafe.SliceData(rec), len(rec))}
	kind := r.byte1()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch kind {
	case recCreateTable:
		id := r.uvarint()
		name := r.str()
		if r.err || r.off != len(r.s) || id == 0 || id > 1<<32-1 {
			return errCorrupt
		}
		s.addTable(&table{id: uint32(id), name: strings.Clone(name)})
		if uint32(id) >= s.nextID {
			s.nextID = uint32(id) + 1
		}
	case recDeleteTable:
		id := r.uvarint()
		if r.err || r.off != len(r.s) {
			return errCorrupt
		}
		for _, t := range s.byName {
			if uint64(t.id) == id {
				s.dropTable(t)
			}
		}
	case recWrite:
		id := r.uvarint()
		n := r.uvarint()
		if r.err || n > uint64(len(rec)) {
			return errCorrupt
		}
		items := make([]item, 0, n)
		dels := make([]item, 0)
		for i := uint64(0); i < n && !r.err; i++ {
			switch r.byte1() {
			case changePut:
				enc := r.str()
				it, err := itemOf(uint32(id), enc)
				if err != nil {
					return err
				}
				items = append(items, s.replayed(it, enc, at, at.Off+int64(r.off-len(enc))))
			case changeDelete:
				pk, rk := r.str(), r.str()
				dels = append(dels, keyItem(uint32(id), pk, rk))
			default:
				return errCorrupt
			}
		}
		if r.err || r.off != len(r.s) {
			return errCorrupt
		}
		for _, it := range items {
			s.set(it)
			s.observeTicks(it.enc)
		}
		for _, it := range dels {
			s.remove(it)
		}
	default:
		return errCorrupt
	}
	return nil
}

// itemOf builds the keyspace item of a stored encoding, checking that the
// encoding is whole.
func itemOf(id uint32, enc string) (item, error) {
	if _, err := decodeEntity(enc); err != nil {
		return item{}, err
	}
	r := reader{s: enc}
	_, pk, rk, _ := r.header()
	return entityItem(id, enc, pk, rk), nil
}

func (s *Store) observeTicks(enc string) {
	r := reader{s: enc}
	if t := int64(r.u64()); t > s.lastTicks {
		s.lastTicks = t
	}
}

// Checkpoint captures the store's state for a snapshot. begin is called
// with the write lock held, so the caller can mark its journal at exactly
// this point (every record before it is in the snapshot, none after). The
// returned Checkpoint writes the state out later without holding any lock.
func (s *Store) Checkpoint(begin func()) *Checkpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	if begin != nil {
		begin()
	}
	c := &Checkpoint{s: s, tree: s.tree.Copy(), release: s.pin(), nextID: s.nextID, lastTicks: s.lastTicks}
	for _, t := range s.byName {
		c.tables = append(c.tables, *t)
	}
	return c
}

// Checkpoint is a consistent copy of a store's state. Close it when done.
type Checkpoint struct {
	s         *Store
	tree      *btree.BTreeG[item]
	release   func()
	tables    []table
	nextID    uint32
	lastTicks int64
	offs      []int64 // where WriteTo put each entity's encoding
}

// Close lets go of the files the checkpoint's entities lie in.
func (c *Checkpoint) Close() {
	if c.release != nil {
		c.release()
		c.release = nil
	}
}

const snapshotMagic = "tablelab-snapshot-1\n"

// Len returns the number of entities in the checkpoint.
func (c *Checkpoint) Len() int { return c.tree.Len() }

// WriteTo writes the checkpoint in the snapshot format that Load reads.
func (c *Checkpoint) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	var n int64
	var scratch []byte
	put := func(b []byte) bool {
		m, err := bw.Write(b)
		n += int64(m)
		return err == nil
	}
	scratch = append(scratch, snapshotMagic...)
	scratch = binary.AppendUvarint(scratch, uint64(c.nextID))
	scratch = binary.LittleEndian.AppendUint64(scratch, uint64(c.lastTicks))
	scratch = binary.AppendUvarint(scratch, uint64(len(c.tables)))
	for _, t := range c.tables {
		scratch = binary.AppendUvarint(scratch, uint64(t.id))
		scratch = appendString(scratch, t.name)
	}
	ok := put(scratch)
	vr := valueReader{s: c.s}
	var readErr error
	c.offs = make([]int64, 0, c.tree.Len())
	c.tree.Scan(func(it item) bool {
		enc, err := vr.get(it)
		if err != nil {
			readErr, ok = err, false
			return false
		}
		scratch = binary.AppendUvarint(scratch[:0], uint64(it.table))
		scratch = binary.AppendUvarint(scratch, uint64(len(enc)))
		c.offs = append(c.offs, n+int64(len(scratch)))
		ok = put(scratch) && put(unsafe.Slice(unsafe.StringData(enc), len(enc)))
		return ok
	})
	if readErr != nil {
		return n, readErr
	}
	if ok {
		ok = put([]byte{0}) // table id 0 is never used: the end
	}
	if err := bw.Flush(); err != nil {
		return n, err
	}
	if !ok {
		return n, errors.New("engine: snapshot write failed")
	}
	return n, nil
}

// Load replaces the store's state with a snapshot written by
// Checkpoint.WriteTo. It is meant for an empty store at start-up. When the
// snapshot lies at a place the store's Values can read, its entities are
// settled there rather than held in memory.
func (s *Store) Load(r io.Reader, at Place) error {
	br := &countingReader{r: bufio.NewReaderSize(r, 1<<20)}
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return fmt.Errorf("engine: not a snapshot")
	}
	uv := func() (uint64, error) { return binary.ReadUvarint(br) }
	var buf []byte
	// bytes reads a length-prefixed string into buf, which the next call
	// reuses.
	bytes := func() ([]byte, error) {
		n, err := uv()
		if err != nil {
			return nil, err
		}
		if n > 1<<30 {
			return nil, errCorrupt
		}
		if uint64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	str := func() (string, error) {
		b, err := bytes()
		return string(b), err
	}
	next, err := uv()
	if err != nil {
		return err
	}
	var tb [8]byte
	if _, err := io.ReadFull(br, tb[:]); err != nil {
		return err
	}
	ntables, err := uv()
	if err != nil || ntables > 1<<32 {
		return errCorrupt
	}
	tree := btree.NewBTreeGOptions(less, btree.Options{NoLocks: true})
	var data int64
	tables := make([]*table, 0, ntables)
	for i := uint64(0); i < ntables; i++ {
		id, err := uv()
		if err != nil {
			return err
		}
		name, err := str()
		if err != nil {
			return err
		}
		tables = append(tables, &table{id: uint32(id), name: name})
	}
	for {
		id, err := uv()
		if err != nil {
			return err
		}
		if id == 0 {
			break
		}
		b, err := bytes()
		if err != nil {
			return err
		}
		enc := unsafe.String(unsafe.SliceData(b), len(b))
		it, err := itemOf(uint32(id), enc)
		if err != nil {
			return err
		}
		it = s.replayed(it, enc, at, at.Off+br.n-int64(len(enc)))
		// A snapshot is written in key order, so Load appends at the
		// right edge of the tree, the B-tree's fastest insert.
		tree.Load(it)
		data += it.size()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tree = tree
	s.dataBytes = data
	s.byName = make(map[string]*table)
	s.byLower = make(map[string]*table)
	s.names = nil
	for _, t := range tables {
		s.addTable(t)
	}
	s.nextID = uint32(next)
	s.lastTicks = int64(binary.LittleEndian.Uint64(tb[:]))
	return nil
}

// countingReader counts the bytes read through it, so that Load knows
// where in the file each entity lies.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
