package engine

import (
	"strings"
	"sync"
	"time"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/keyspace"
)

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
	// OpenKeys lets keys hold any valid UTF-8 of up to MaxOpenKeyBytes
	// bytes, for the stores behind the Queue and Blob services: a blob's
	// name may hold '/', '?' and '#' and run to 1,024 characters, which a
	// PartitionKey or RowKey may not. Every other limit still holds.
	OpenKeys bool
	// CaseSensitiveTableNames makes table names differ by case, as Azure
	// Cosmos DB for Table's do: "Orders" and "orders" are two tables. The
	// service's (and the default) ignore case.
	CaseSensitiveTableNames bool
}

// MaxOpenKeyBytes is the longest key of a store with OpenKeys.
const MaxOpenKeyBytes = 4096

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
	openKeys    bool
	exactNames  bool // table names are case-sensitive

	mu        sync.RWMutex
	tree      *btree.BTreeG[keyspace.Item]
	byName    map[string]*table // exact name as created
	byLower   map[string]*table // lower-cased name
	names     []string          // table names in listing order
	nextID    uint32
	lastTicks int64
	failed    error  // a journal failure: the store refuses further writes
	rec       []byte // where journal records are built, under mu

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
		openKeys:    opts.OpenKeys,
		exactNames:  opts.CaseSensitiveTableNames,
		tree:        btree.NewBTreeGOptions(keyspace.Less, btree.Options{NoLocks: true}),
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

// lookup finds a table by name, ignoring case unless the store's names
// are case-sensitive. Callers hold mu.
func (s *Store) lookup(name string) *table {
	if t, ok := s.byName[name]; ok || s.exactNames {
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
func (s *Store) snapshot() (*btree.BTreeG[keyspace.Item], func()) {
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

// Now returns the time on the store's clock. Hosts hand it down to
// everything else that reads a clock (the protocol's Date headers, the
// authentication's clock skew and SAS expiry), so that a test or an
// example that moves the store's clock moves them all.
func (s *Store) Now() time.Time { return s.now() }

// set puts it in the tree, keeping the count of data bytes. Callers hold
// mu for writing.
func (s *Store) set(it keyspace.Item) (keyspace.Item, bool) {
	prev, replaced := s.tree.Set(it)
	s.dataBytes += it.Size()
	if replaced {
		s.dataBytes -= prev.Size()
	}
	return prev, replaced
}

// remove deletes the item with it's keys from the tree, keeping the count
// of data bytes. Callers hold mu for writing.
func (s *Store) remove(it keyspace.Item) {
	if prev, ok := s.tree.Delete(it); ok {
		s.dataBytes -= prev.Size()
	}
}

// load returns the whole encoding of it, read from its file when it is
// settled. Callers hold mu or a pin.
func (s *Store) load(it keyspace.Item) (string, error) {
	return keyspace.Read(s.values, it)
}

// Len returns the number of entities in all tables.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tree.Len()
}
