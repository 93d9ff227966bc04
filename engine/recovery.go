package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unsafe"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/internal/keyspace"
)

// Recovery is a durable host's hold on a store: what restores the store
// from its journal and snapshots, captures it for the next snapshot, and
// tells it where in the files its entities lie. The store's own API is
// the data model and its operations; all that a journal's owner needs
// besides is here, on a handle only the owner gets.
type Recovery struct{ s *Store }

// NewDurable returns an empty store and the Recovery handle of the host
// that makes it durable, with opts.Journal and, when entities may live in
// files, opts.Values.
func NewDurable(opts Options) (*Store, *Recovery) {
	s := New(opts)
	return s, &Recovery{s: s}
}

// Replay applies one journal record to the store, as recovery does before
// the store serves requests. Records must come in the order they were
// appended. A record that does not decode is an error and changes nothing.
// When the record lies at a place the store's Values can read, the
// entities it wrote are settled there rather than held in memory.
func (r *Recovery) Replay(rec []byte, at Place) error {
	m, err := keyspace.DecodeMutation(rec)
	if err != nil {
		return err
	}
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	switch m.Kind {
	case keyspace.CreateTable:
		s.addTable(&table{id: m.Table, name: strings.Clone(m.Name)})
		if m.Table >= s.nextID {
			s.nextID = m.Table + 1
		}
	case keyspace.DeleteTable:
		for _, t := range s.byName {
			if t.id == m.Table {
				s.dropTable(t)
			}
		}
	case keyspace.Replace:
		s.replayReplace(m, at)
	case keyspace.Write:
		for _, c := range m.Changes {
			if !c.Put {
				s.remove(keyspace.Key(m.Table, c.PK, c.RK))
				continue
			}
			it := s.replayed(keyspace.ItemOf(m.Table, c.Enc, c.PK, c.RK), at, at.Off+int64(c.Off))
			s.set(it)
			if t := it.Ticks(); t > s.lastTicks {
				s.lastTicks = t
			}
		}
	}
	return nil
}

// replayed returns it, replayed from a buffer that will be reused:
// settled at off in at's file when the store can read it back from
// there, and otherwise holding a copy of its encoding.
func (s *Store) replayed(it keyspace.Item, at Place, off int64) keyspace.Item {
	if s.values != nil && at.File != 0 {
		if settled, ok := keyspace.SettledAt(it, len(it.Enc), at.File, off); ok {
			return settled
		}
	}
	it.Enc = strings.Clone(it.Enc)
	return it
}

// Checkpoint captures the store's state for a snapshot. begin is called
// with the write lock held, so the caller can mark its journal at exactly
// this point (every record before it is in the snapshot, none after). The
// returned Checkpoint writes the state out later without holding any lock.
func (r *Recovery) Checkpoint(begin func()) *Checkpoint {
	s := r.s
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
	tree      *btree.BTreeG[keyspace.Item]
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
		scratch = binary.AppendUvarint(scratch, uint64(len(t.name)))
		scratch = append(scratch, t.name...)
	}
	ok := put(scratch)
	vr := keyspace.ValueReader{Files: c.s.values}
	var readErr error
	c.offs = make([]int64, 0, c.tree.Len())
	c.tree.Scan(func(it keyspace.Item) bool {
		enc, err := vr.Get(it)
		if err != nil {
			readErr, ok = err, false
			return false
		}
		scratch = binary.AppendUvarint(scratch[:0], uint64(it.Table))
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
func (r *Recovery) Load(rd io.Reader, at Place) error {
	s := r.s
	br := &countingReader{r: bufio.NewReaderSize(rd, 1<<20)}
	magic := make([]byte, len(snapshotMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != snapshotMagic {
		return errors.New("engine: not a snapshot")
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
			return nil, keyspace.ErrCorrupt
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
		return keyspace.ErrCorrupt
	}
	tree := btree.NewBTreeGOptions(keyspace.Less, btree.Options{NoLocks: true})
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
		_, pk, rk, ok := keyspace.Header(enc)
		if !ok || !keyspace.Valid(enc) {
			return keyspace.ErrCorrupt
		}
		it := s.replayed(keyspace.ItemOf(uint32(id), enc, pk, rk), at, at.Off+br.n-int64(len(enc)))
		// A snapshot is written in key order, so Load appends at the
		// right edge of the tree, the B-tree's fastest insert.
		tree.Load(it)
		data += it.Size()
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
