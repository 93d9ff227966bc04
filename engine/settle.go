package engine

import "github.com/tablelab/tablelab/engine/internal/keyspace"

// DataBytes returns the size of every entity the store holds, in memory
// or in files: what memory would need to hold them all.
func (r *Recovery) DataBytes() int64 {
	s := r.s
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.dataBytes
}

// Settle settles the entities of journal records that are durable at
// places the store's Values can read. read calls settle with each record
// and its place; the entities a record wrote that are still current, and
// still held in memory, are settled there: the store keeps only their
// heads. A store without Values ignores them. A read that finds no
// record tells the store its writes have all settled, a quiet moment to
// tidy its memory.
func (r *Recovery) Settle(read func(settle func(rec []byte, at Place) error) error) error {
	s := r.s
	if s.values == nil {
		return nil
	}
	// The tree's nodes share arrays after a split, and an array dropped
	// by one half stays alive through the other, still holding copies of
	// the items it had — whole encodings, for entities written moments
	// before. A copy of the tree makes the next change to each node copy
	// it afresh, and settling changes exactly the nodes that hold recent
	// writes, so their old arrays, and the encodings in them, go. Without
	// it, a large load kept many of its encodings alive.
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
	m, err := keyspace.DecodeMutation(rec)
	if err != nil || m.Kind != keyspace.Write {
		return err
	}
	// The search keys are made before the lock is taken, so that
	// writers wait only for the lookups.
	keys := make([]keyspace.Item, len(m.Changes))
	for i, c := range m.Changes {
		if c.Put {
			keys[i] = keyspace.Key(m.Table, c.PK, c.RK)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, c := range m.Changes {
		if !c.Put {
			continue
		}
		cur, ok := s.tree.Get(keys[i])
		// Settle only what memory still holds, and only the version this
		// record wrote: an item already settled may have moved on to a
		// newer file, by a snapshot.
		if !ok || cur.Settled() || cur.Ticks() != keyspace.Ticks(c.Enc) {
			continue
		}
		if it, ok := keyspace.SettledAt(cur, len(c.Enc), at.File, at.Off+int64(c.Off)); ok {
			s.tree.Set(it)
			s.settledSince++
		}
	}
	return nil
}

// settleChunk bounds how many entities one hold of the write lock moves,
// so settling a whole snapshot never stalls writers for long.
const settleChunk = 1024

// SettleCheckpoint moves the settled entities of a checkpoint to the
// places its WriteTo gave them in the snapshot that starts at at, and
// settles there those it held in memory too, if hot is false. Entities
// written since the checkpoint are left as they are. After it returns, no
// entity of the store points into a file the snapshot replaced.
func (r *Recovery) SettleCheckpoint(c *Checkpoint, at Place, hot bool) {
	s := r.s
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
			if cur, ok := s.tree.Get(old); ok && (cur.Settled() || !hot) && cur.Ticks() == old.Ticks() {
				vlen := len(cur.Enc)
				if cur.Settled() {
					_, _, vlen, _ = cur.Place()
				}
				if it, ok := keyspace.SettledAt(cur, vlen, at.File, at.Off+c.offs[i]); ok {
					s.tree.Set(it)
				} else if cur.Settled() {
					// It cannot point into the snapshot, and the file it
					// points into is about to go: back into memory.
					if enc, err := s.load(cur); err == nil {
						s.tree.Set(cur.InMemory(enc))
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
	// heads and residues of the settled.
	HeldBytes int64
}

// Residency walks the keyspace to say how much of it memory holds. It
// costs a pass over every entity.
func (r *Recovery) Residency() Residency {
	tree, release := r.s.snapshot()
	defer release()
	var res Residency
	tree.Scan(func(it keyspace.Item) bool {
		res.Entities++
		if it.Settled() {
			res.Settled++
		}
		res.HeldBytes += int64(len(it.Enc))
		return true
	})
	return res
}

// Unsettle reads every settled entity back into memory.
func (r *Recovery) Unsettle() error {
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	var settled []keyspace.Item
	s.tree.Scan(func(it keyspace.Item) bool {
		if it.Settled() {
			settled = append(settled, it)
		}
		return true
	})
	for _, it := range settled {
		enc, err := s.load(it)
		if err != nil {
			return err
		}
		s.tree.Set(it.InMemory(enc))
	}
	return nil
}
