package engine

import (
	"strings"
	"sync"
	"time"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/edm"
)

// item is one entity in the keyspace. The keys are kept beside the
// encoding (sharing its memory) so that comparisons during a B-tree
// descent touch no other cache lines than the keys' bytes.
type item struct {
	pk, rk string
	enc    string
	table  uint32
}

// less orders the keyspace: table, then PartitionKey, then RowKey, each by
// ordinal bytes — the order the service returns query results in.
func less(a, b item) bool {
	if a.table != b.table {
		return a.table < b.table
	}
	// One three-way comparison per key: != followed by < would read
	// equal-length keys twice.
	if c := strings.Compare(a.pk, b.pk); c != 0 {
		return c < 0
	}
	return a.rk < b.rk
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
	maxExamined int

	mu        sync.RWMutex
	tree      *btree.BTreeG[item]
	byName    map[string]*table // exact name as created
	byLower   map[string]*table // lower-cased name
	names     []string          // table names in listing order
	nextID    uint32
	lastTicks int64
	failed    error // a journal failure: the store refuses further writes
}

// New returns an empty store.
func New(opts Options) *Store {
	s := &Store{
		now:         opts.Now,
		journal:     opts.Journal,
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

// snapshot returns a copy of the keyspace that later writes do not touch.
// Copying is O(1): the tree's nodes are shared until a writer changes one.
func (s *Store) snapshot() *btree.BTreeG[item] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tree.Copy()
}

// Len returns the number of entities in all tables.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.tree.Len()
}
