package engine

import (
	"errors"
	"strings"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/internal/keyspace"
)

// NewEmpty returns an empty store in memory that keeps s's rules for keys
// and table names and reads s's clock: a place to build tables and check
// every entity of them before ReplaceTables puts them in s.
func (s *Store) NewEmpty() *Store {
	return New(Options{Now: s.now, MaxExamined: s.maxExamined, OpenKeys: s.openKeys, CaseSensitiveTableNames: s.exactNames})
}

// Clone returns a store in memory holding what s holds now: its tables
// and their entities, Timestamps and ETags included. The copy costs next
// to nothing whatever the size of s: the two share the keyspace's nodes
// until either writes to one, which then gets a node of its own, so
// neither ever sees the other's writes.
//
// opts configure the copy as New's do, except that it keeps s's rules
// for keys (OpenKeys), and that it has no Journal or Values: it lives in
// memory. Its table names follow opts.CaseSensitiveTableNames; copying a
// store whose names differ only by case into one that ignores case is
// refused.
func (s *Store) Clone(opts Options) (*Store, error) {
	if opts.Journal != nil || opts.Values != nil {
		return nil, errors.New("engine: a clone lives in memory: no Journal or Values")
	}
	opts.OpenKeys = s.openKeys
	c := New(opts)

	s.mu.Lock()
	tree := s.tree.Copy()
	release := s.pin()
	tables := s.tableList()
	c.nextID, c.lastTicks, c.dataBytes = s.nextID, s.lastTicks, s.dataBytes
	s.mu.Unlock()
	defer release()

	for _, t := range tables {
		if c.lookup(t.name) != nil {
			return nil, errors.New("engine: the tables " + c.lookup(t.name).name + " and " + t.name + " differ only by case, which the copy would not tell apart")
		}
		c.addTable(&table{id: t.id, name: t.name})
	}
	if s.values != nil {
		// The copy cannot read s's files: what lies there comes back
		// into memory.
		if err := inMemory(tree, s.load); err != nil {
			return nil, internal(err)
		}
	}
	c.tree = tree
	return c, nil
}

// tableList returns the tables of s in id order. Callers hold mu.
func (s *Store) tableList() []table {
	tables := make([]table, 0, len(s.byName))
	for _, t := range s.byName {
		tables = append(tables, *t)
	}
	// An insertion sort: a store has few tables, and slices' generic
	// sort would bring its code into the browser build for them.
	for i := 1; i < len(tables); i++ {
		for j := i; j > 0 && tables[j].id < tables[j-1].id; j-- {
			tables[j], tables[j-1] = tables[j-1], tables[j]
		}
	}
	return tables
}

// inMemory puts the whole encoding of every settled item of tree back in
// it.
func inMemory(tree *btree.BTreeG[keyspace.Item], load func(keyspace.Item) (string, error)) error {
	var settled []keyspace.Item
	tree.Scan(func(it keyspace.Item) bool {
		if it.Settled() {
			settled = append(settled, it)
		}
		return true
	})
	for _, it := range settled {
		enc, err := load(it)
		if err != nil {
			return err
		}
		tree.Set(it.InMemory(enc))
	}
	return nil
}

// ReplaceTables makes the tables of s those of src: every table of s is
// deleted, and each of src's created in s with its entities, as one
// mutation. Readers see the tables before or after it, never a mixture,
// and a journal records it as one record, so that a crash leaves one or
// the other. Each entity is written anew, with a Timestamp (and ETag) of
// s's. src is left as it was.
//
// src must have s's rules for keys; table names that differ only by
// case are refused when s ignores case. NewEmpty makes such a store. The
// record holds every entity of src, so a journal must take a record that
// large: the browser's IndexedDB does, the server's log stops at
// wal.MaxRecord.
func (s *Store) ReplaceTables(src *Store) error {
	if src.openKeys && !s.openKeys {
		return errors.New("engine: a store of open keys cannot replace the tables of one with the service's keys")
	}
	src.mu.Lock()
	tree := src.tree.Copy()
	release := src.pin()
	tables := src.tableList()
	src.mu.Unlock()
	defer release()
	if src.values != nil {
		if err := inMemory(tree, src.load); err != nil {
			return internal(err)
		}
	}
	seen := make(map[string]string, len(tables))
	for _, t := range tables {
		key := t.name
		if !s.exactNames {
			key = strings.ToLower(key)
		}
		if other, ok := seen[key]; ok {
			return errors.New("engine: the tables " + other + " and " + t.name + " differ only by case, which the store does not tell apart")
		}
		seen[key] = t.name
	}

	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return err
	}
	// src's tables in id order become new ids of s in the same order, so
	// that its items, walked in key order, arrive in the new tree's
	// order: each is appended at the right edge, a B-tree's cheapest
	// insert.
	images := make([]keyspace.TableImage, len(tables))
	ids := make(map[uint32]int, len(tables))
	for i, t := range tables {
		images[i] = keyspace.TableImage{ID: s.nextID + uint32(i), Name: t.name}
		ids[t.id] = i
	}
	next := btree.NewBTreeGOptions(keyspace.Less, btree.Options{NoLocks: true})
	var data int64
	tree.Scan(func(it keyspace.Item) bool {
		i, ok := ids[it.Table]
		if !ok {
			return true // a table src deleted, not yet swept
		}
		enc := keyspace.Restamp(it.Enc, s.nextTicks())
		_, pk, rk, _ := keyspace.Header(enc)
		img := &images[i]
		img.Changes = append(img.Changes, keyspace.Change{Put: true, PK: pk, RK: rk, Enc: enc})
		next.Load(keyspace.ItemOf(img.ID, enc, pk, rk))
		data += int64(len(enc))
		return true
	})
	s.install(images, next, data)
	w := s.journalAppend(func(b []byte) []byte { return keyspace.AppendReplace(b, images) })
	s.mu.Unlock()
	if err := s.wait(w); err != nil {
		return err
	}
	return nil
}

// install makes images the store's tables, with tree their entities
// (data bytes of them). Callers hold mu for writing.
func (s *Store) install(images []keyspace.TableImage, tree *btree.BTreeG[keyspace.Item], data int64) {
	s.tree, s.dataBytes = tree, data
	s.byName = make(map[string]*table, len(images))
	s.byLower = make(map[string]*table, len(images))
	s.names = nil
	for _, img := range images {
		s.addTable(&table{id: img.ID, name: strings.Clone(img.Name)})
		if img.ID >= s.nextID {
			s.nextID = img.ID + 1
		}
	}
}

// replayReplace applies a Replace record. Callers hold mu for writing.
func (s *Store) replayReplace(m keyspace.Mutation, at Place) {
	tree := btree.NewBTreeGOptions(keyspace.Less, btree.Options{NoLocks: true})
	var data int64
	for _, img := range m.Tables {
		for _, c := range img.Changes {
			it := s.replayed(keyspace.ItemOf(img.ID, c.Enc, c.PK, c.RK), at, at.Off+int64(c.Off))
			tree.Load(it)
			data += it.Size()
			if t := it.Ticks(); t > s.lastTicks {
				s.lastTicks = t
			}
		}
	}
	s.install(m.Tables, tree, data)
}
