package engine

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/internal/keyspace"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// OpKind is the kind of a write operation.
type OpKind uint8

// The write operations of the service.
const (
	// Insert adds an entity; it fails with EntityAlreadyExists if one with
	// the same keys exists.
	Insert OpKind = iota + 1
	// Replace (the service's Update Entity) replaces an existing entity's
	// properties; it needs IfMatch.
	Replace
	// Merge updates the given properties of an existing entity and keeps
	// the rest; it needs IfMatch.
	Merge
	// InsertOrReplace replaces the entity, creating it if missing.
	InsertOrReplace
	// InsertOrMerge merges into the entity, creating it if missing.
	InsertOrMerge
	// Delete removes an entity; IfMatch is "*" or its ETag.
	Delete
)

var opNames = [...]string{"", "Insert", "Replace", "Merge", "InsertOrReplace", "InsertOrMerge", "Delete"}

// String returns the operation's name, such as "InsertOrMerge".
func (k OpKind) String() string {
	if int(k) < len(opNames) {
		return opNames[k]
	}
	return "OpKind(?)"
}

// Op is one write. For Delete only the Entity's keys are read.
type Op struct {
	Kind   OpKind
	Entity *Entity
	// IfMatch is the condition of Replace, Merge and Delete: "*" for any
	// existing entity, or an ETag the entity must still have. Empty means
	// "*". Insert and the upserts ignore it.
	IfMatch string
}

// Result is the outcome of one successful write.
type Result struct {
	// Entity is the entity as stored after the write (nil after Delete).
	// It is shared with the store: read-only.
	Entity *Entity
	// Table is the table's name as it was created, which a request may
	// have named in another case. It is read under the same lock as the
	// write, so a table deleted a moment later cannot change it.
	Table string
}

// ETag returns the entity's new ETag, or "" after a Delete. It is made
// on demand: formatting it costs more than some writes.
func (r Result) ETag() string {
	if r.Entity == nil {
		return ""
	}
	return r.Entity.ETag()
}

// Write applies one operation to a table.
//
// The store takes ownership of op.Entity: it sorts the properties in place
// and keeps the entity as the Result. Every write gets a new Timestamp and
// ETag, unique within the store.
func (s *Store) Write(tableName string, op Op) (Result, error) {
	// The result goes in an array of the caller's: one allocation less
	// per write.
	var one [1]Result
	rs, err := s.apply(tableName, []Op{op}, false, one[:0])
	if err != nil {
		return Result{}, err
	}
	return rs[0], nil
}

// Batch applies an entity group transaction: up to 100 operations on
// distinct entities of one partition, all or none. Concurrent readers see
// either none of it or all of it. A failure is a *svcerr.Error whose Index
// names the failing operation.
func (s *Store) Batch(tableName string, ops []Op) ([]Result, error) {
	return s.apply(tableName, ops, true, nil)
}

// apply makes the writes, and returns their results in buf when it has
// room for them.
func (s *Store) apply(tableName string, ops []Op, batch bool, buf []Result) ([]Result, error) {
	fail := func(i int, err error) ([]Result, error) {
		e := svcerr.From(err)
		if batch {
			e = e.AtIndex(i)
		}
		return nil, e
	}
	if batch {
		if len(ops) == 0 {
			return nil, svcerr.With(svcerr.InvalidInput, "The batch request contains no operations.")
		}
		if len(ops) > MaxBatchOperations {
			return fail(MaxBatchOperations, svcerr.With(svcerr.InvalidInput, "The batch request operation exceeds the maximum "+strconv.Itoa(MaxBatchOperations)+" changes per change set."))
		}
	}
	// Everything that depends only on the request is checked before the
	// lock is taken.
	for i, op := range ops {
		if op.Entity == nil || op.Kind < Insert || op.Kind > Delete {
			return fail(i, svcerr.With(svcerr.InvalidInput, "The operation is not valid."))
		}
		e := op.Entity
		if op.Kind == Delete {
			if err := s.checkKeys(e.PartitionKey, e.RowKey); err != nil {
				return fail(i, err)
			}
		} else {
			sortProperties(e.Properties)
			if err := s.validateEntity(e); err != nil {
				return fail(i, err)
			}
		}
		if err := validIfMatch(op.IfMatch); err != nil {
			return fail(i, err)
		}
		if batch && i > 0 {
			if e.PartitionKey != ops[0].Entity.PartitionKey {
				return fail(i, svcerr.New(svcerr.CommandsInBatchActOnDifferentPartitions))
			}
			for j := 0; j < i; j++ {
				if ops[j].Entity.RowKey == e.RowKey {
					return fail(i, svcerr.New(svcerr.InvalidDuplicateRow))
				}
			}
		}
	}

	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	t := s.lookup(tableName)
	if t == nil {
		s.mu.Unlock()
		return fail(0, svcerr.New(svcerr.TableNotFound))
	}
	if !batch && (ops[0].Kind == Insert || ops[0].Kind == InsertOrReplace) {
		return s.put(t, ops[0], buf)
	}
	results := buf[:0]
	if cap(results) < len(ops) {
		results = make([]Result, 0, len(ops))
	}
	results = results[:len(ops)]
	changes := make([]keyspace.Change, len(ops))
	// Each operation touches a different entity, so each can be decided
	// against the tree as it is; nothing changes until all have passed.
	for i, op := range ops {
		c, r, err := s.decide(t, op)
		if err != nil {
			s.mu.Unlock()
			return fail(i, err)
		}
		r.Table = t.name
		changes[i], results[i] = c, r
	}
	for _, c := range changes {
		if c.Put {
			s.set(keyspace.ItemOf(t.id, c.Enc, c.PK, c.RK))
		} else {
			s.remove(keyspace.Key(t.id, c.PK, c.RK))
		}
	}
	w := s.journalAppend(func(b []byte) []byte { return keyspace.AppendWrite(b, t.id, changes) })
	s.mu.Unlock()
	if err := s.wait(w); err != nil {
		return nil, err
	}
	return results, nil
}

// put writes one entity that does not depend on what it replaces, in a
// single descent of the tree: an insert that finds the key taken puts
// the old entity back, which is rare, instead of looking first, which is
// every time. It is called with mu held for writing and releases it. The
// result goes in buf.
func (s *Store) put(t *table, op Op, buf []Result) ([]Result, error) {
	e := op.Entity
	ticks := s.nextTicks()
	e.Timestamp = ticks
	enc := encodeEntity(e, ticks)
	_, pk, rk, _ := keyspace.Header(enc)
	it := keyspace.ItemOf(t.id, enc, pk, rk)
	if prev, replaced := s.set(it); replaced && op.Kind == Insert {
		s.set(prev)
		s.mu.Unlock()
		return nil, svcerr.New(svcerr.EntityAlreadyExists)
	}
	w := s.journalAppend(func(b []byte) []byte {
		return keyspace.AppendWrite(b, t.id, []keyspace.Change{{Put: true, PK: pk, RK: rk, Enc: enc}})
	})
	s.mu.Unlock()
	if err := s.wait(w); err != nil {
		return nil, err
	}
	return append(buf[:0], Result{Entity: e, Table: t.name}), nil
}

// decide works out what one operation changes, checking its preconditions
// against the current state. Callers hold mu for writing.
func (s *Store) decide(t *table, op Op) (keyspace.Change, Result, error) {
	e := op.Entity
	key := keyspace.Key(t.id, e.PartitionKey, e.RowKey)
	cur, exists := s.tree.Get(key)
	switch op.Kind {
	case Insert:
		if exists {
			return keyspace.Change{}, Result{}, svcerr.New(svcerr.EntityAlreadyExists)
		}
	case Replace, Merge, Delete:
		if !exists {
			return keyspace.Change{}, Result{}, svcerr.New(svcerr.ResourceNotFound)
		}
		if op.IfMatch != "" && op.IfMatch != "*" && op.IfMatch != ETagOf(cur.Ticks()) {
			return keyspace.Change{}, Result{}, svcerr.New(svcerr.UpdateConditionNotSatisfied)
		}
	}
	if op.Kind == Delete {
		return keyspace.Change{PK: cur.PK(), RK: cur.RK()}, Result{}, nil
	}
	next := e
	if exists && (op.Kind == Merge || op.Kind == InsertOrMerge) {
		enc, err := s.load(cur)
		if err != nil {
			return keyspace.Change{}, Result{}, internal(err)
		}
		old, err := decodeEntity(enc)
		if err != nil {
			return keyspace.Change{}, Result{}, internal(err)
		}
		next = &Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: mergeProperties(old.Properties, e.Properties)}
		if err := s.validateEntity(next); err != nil {
			return keyspace.Change{}, Result{}, err
		}
	}
	// The keys of a new encoding are cloned so the tree never holds on to
	// a caller's larger buffer through a substring.
	ticks := s.nextTicks()
	next.Timestamp = ticks
	enc := encodeEntity(next, ticks)
	_, pk, rk, _ := keyspace.Header(enc)
	return keyspace.Change{Put: true, PK: pk, RK: rk, Enc: enc}, Result{Entity: next}, nil
}

// mergeProperties merges two name-sorted property lists; upd wins.
func mergeProperties(old, upd []Property) []Property {
	out := make([]Property, 0, len(old)+len(upd))
	i, j := 0, 0
	for i < len(old) || j < len(upd) {
		switch {
		case j == len(upd) || i < len(old) && old[i].Name < upd[j].Name:
			out = append(out, old[i])
			i++
		case i == len(old) || upd[j].Name < old[i].Name:
			out = append(out, upd[j])
			j++
		default:
			out = append(out, upd[j])
			i++
			j++
		}
	}
	return out
}

// validIfMatch checks the form of an If-Match condition: "*", or an ETag
// as the service issues them (W/"datetime'…'").
func validIfMatch(v string) error {
	if v == "" || v == "*" {
		return nil
	}
	if strings.HasPrefix(v, `W/"`) && strings.HasSuffix(v, `"`) && len(v) > 4 || strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) && len(v) > 1 {
		return nil
	}
	return svcerr.With(svcerr.InvalidInput, "The etag value '"+v+"' specified in one of the request headers is not valid. Please make sure only one etag value is specified and is valid.")
}

// writable reports the journal failure that stopped the store, if any.
// Callers hold mu.
func (s *Store) writable() error {
	if s.failed != nil {
		return svcerr.With(svcerr.InternalError, "The store is not accepting writes after a storage failure: "+s.failed.Error())
	}
	return nil
}

// journalAppend hands a committed mutation to the journal, the record
// built by rec appending to the store's buffer: the journal copies what it
// keeps, so a write allocates no record of its own. Callers hold mu for
// writing, which keeps the journal in commit order.
func (s *Store) journalAppend(rec func(b []byte) []byte) Waiter {
	if s.journal == nil {
		return nil
	}
	s.rec = rec(s.rec[:0])
	w := s.journal.Append(s.rec)
	if cap(s.rec) > maxKeptRecord {
		s.rec = nil // a large batch or a replace: not held for later
	}
	return w
}

// maxKeptRecord is the largest record buffer the store keeps for the
// next write.
const maxKeptRecord = 64 << 10

// wait blocks until a mutation is durable. A journal failure stops all
// later writes: a store that cannot persist must not acknowledge.
func (s *Store) wait(w Waiter) error {
	if w == nil {
		return nil
	}
	if err := w.Wait(); err != nil {
		s.mu.Lock()
		if s.failed == nil {
			s.failed = err
		}
		s.mu.Unlock()
		return svcerr.With(svcerr.InternalError, "The write could not be made durable: "+err.Error())
	}
	return nil
}
