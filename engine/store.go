package engine

import (
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/edm"
)

// item is one entity in the keyspace: its encoding, which begins with its
// keys (codec.go), and the keys' lengths, so that a comparison finds the
// keys without decoding anything and touches no memory but theirs.
//
// An item holds one pointer. It held three (the keys as strings of their
// own, into the same memory), and at a million entities the collector's
// marking, which follows every pointer of every item, took close to a third of the
// server's CPU under a point-read load.
//
// A settled item holds only the head of its encoding — Timestamp and
// keys — followed by where the whole encoding lies in a file the store's
// Values reads (values.go). The place rides in the string, not in fields
// of the item, so that an item stays four words: the tree's nodes are
// arrays of items, and an item of five made every lookup slower by a
// fifth.
type item struct {
	enc          string
	table        uint32
	pkLen, rkLen uint32 // rkLen carries settledBit
}

// keyItem returns a search key: the item an entity with these keys would
// be, its encoding no more than the keys.
func keyItem(table uint32, pk, rk string) item {
	b := make([]byte, 8, 8+2*binary.MaxVarintLen32+len(pk)+len(rk))
	b = appendString(b, pk)
	b = appendString(b, rk)
	return item{enc: string(b), table: table, pkLen: uint32(len(pk)), rkLen: uint32(len(rk))}
}

// entityItem returns the item of an entity whose encoding is enc and
// whose keys are pk and rk (as enc holds them).
func entityItem(table uint32, enc, pk, rk string) item {
	return item{enc: enc, table: table, pkLen: uint32(len(pk)), rkLen: uint32(len(rk))}
}

// pk returns the item's PartitionKey: a slice of its encoding. Every item,
// search keys included, has the encoding's header, so there is no empty
// case to test on this path, which every comparison takes.
func (it item) pk() string {
	o := 9 // eight bytes of timestamp, one of length: keys under 128 bytes
	if it.pkLen >= 1<<7 {
		o = 8 + uvarintLen(it.pkLen)
	}
	return it.enc[o : o+int(it.pkLen)]
}

// rk returns the item's RowKey.
func (it item) rk() string {
	o := 10 + int(it.pkLen) // timestamp, length, PartitionKey, length
	n := it.rkLen &^ settledBit
	if it.pkLen >= 1<<7 || n >= 1<<7 {
		o = 8 + uvarintLen(it.pkLen) + int(it.pkLen) + uvarintLen(n)
	}
	return it.enc[o : o+int(n)]
}

// uvarintLen is the length of n written as a uvarint.
func uvarintLen(n uint32) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	case n < 1<<21:
		return 3
	case n < 1<<28:
		return 4
	}
	return 5
}

// less orders the keyspace: table, then PartitionKey, then RowKey, each by
// ordinal bytes — the order the service returns query results in.
func less(a, b item) bool {
	if a.table != b.table {
		return a.table < b.table
	}
	// One three-way comparison per key: != followed by < would read
	// equal-length keys twice.
	if c := strings.Compare(a.pk(), b.pk()); c != 0 {
		return c < 0
	}
	return a.rk() < b.rk()
}

// table is one entry of the catalogue.
type table struct {
	id   uint32
	name string // as created; lookups ignore case
}

// Options configure a Store. The zero value is a memory-only store on the
// system clock.
type Options struct {
	// Now is the clock; nil means time.Now. Tests and examples inject one
	// to make Timestamps and ETags reproducible.
	Now func() time.Time
	// Journal, when set, receives every committed mutation (see Journal).
	Journal Journal
	// Values, when set, lets the store keep settled entities in files
	// instead of memory (see Values).
	Values Values
	// MaxExamined bounds the entities one query page may examine before it
	// returns what it has with a continuation, as the service ends a page
	// after a few seconds of work. Zero means DefaultMaxExamined.
	MaxExamined int
}

// DefaultMaxExamined is the examination budget of a query page.
const DefaultMaxExamined = 1_000_000

// Store is a set of tables over one ordered keyspace. It is safe for
// concurrent use: writers serialize on a lock, point reads share it, and
// scans read a copy-on-write snapshot of the keyspace so that a long scan
// never holds writers back.
type Store struct {
	now         func() time.Time
	journal     Journal
	values      Values
	maxExamined int

	mu        sync.RWMutex
	tree      *btree.BTreeG[item]
	byName    map[string]*table // exact name as created
	byLower   map[string]*table // lower-cased name
	names     []string          // table names in listing order
	nextID    uint32
	lastTicks int64
	failed    error // a journal failure: the store refuses further writes

	settledSince int   // entities settled since the tree's nodes were last refreshed
	dataBytes    int64 // the whole encodings of every entity, in memory or not
}

// New returns an empty store.
func New(opts Options) *Store {
	s := &Store{
		now:         opts.Now,
		journal:     opts.Journal,
		values:      opts.Values,
		maxExamined: opts.MaxExamined,
		tree:        btree.NewBTreeGOptions(less, btree.Options{NoLocks: true}),
		byName:      make(map[string]*table),
		byLower:     make(map[string]*table),
		nextID:      1,
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.maxExamined <= 0 {
		s.maxExamined = DefaultMaxExamined
	}
	return s
}

// lookup finds a table by name, ignoring case. Callers hold mu.
func (s *Store) lookup(name string) *table {
	if t, ok := s.byName[name]; ok {
		return t
	}
	return s.byLower[strings.ToLower(name)]
}

// nextTicks returns a Timestamp for a write made now: the clock's time in
// 100 ns ticks, moved past the previous write's when the clock has not
// advanced, so every write gets a Timestamp — and an ETag — of its own.
// Callers hold mu for writing.
func (s *Store) nextTicks() int64 {
	t := edm.TicksOf(s.now())
	if t <= s.lastTicks {
		t = s.lastTicks + 1
	}
	s.lastTicks = t
	return t
}

// snapshot returns a copy of the keyspace that later writes do not touch,
// and a release to call when done with it, which lets go of the files its
// settled items point into. Copying is O(1): the tree's nodes are shared
// until a writer changes one.
func (s *Store) snapshot() (*btree.BTreeG[item], func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.Copy(), s.pin()
}

// pin keeps the files the keyspace points into readable until the
// returned release is called. Callers hold mu.
func (s *Store) pin() func() {
	if s.values == nil {
		return func() {}
	}
	return s.values.Pin()
}

// Len returns the number of entities in all tables.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tree.Len()
}
