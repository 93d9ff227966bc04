package engine

import (
	"strings"

	"github.com/tablelab/tablelab/engine/internal/keyspace"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Get returns one entity by its keys.
func (s *Store) Get(tableName, pk, rk string) (*Entity, error) {
	s.mu.RLock()
	t := s.lookup(tableName)
	if t == nil {
		s.mu.RUnlock()
		return nil, svcerr.New(svcerr.TableNotFound)
	}
	it, ok := s.tree.Get(keyspace.Key(t.id, pk, rk))
	if !ok {
		s.mu.RUnlock()
		return nil, svcerr.New(svcerr.ResourceNotFound)
	}
	// Read under the lock: a snapshot may move the entity to another
	// file, and the old one goes once no lock or pin holds it.
	enc, err := s.load(it)
	s.mu.RUnlock()
	if err != nil {
		return nil, internal(err)
	}
	e, err := decodeEntity(enc)
	if err != nil {
		return nil, internal(err)
	}
	return e, nil
}

// Continuation marks where a query's next page starts: the keys of the
// next entity to examine.
type Continuation struct {
	PartitionKey string
	RowKey       string
}

// KeyRange confines a query to the entities whose keys lie between Start
// and End, both inclusive, ordered by PartitionKey and then RowKey. A
// shared access signature with a key range grants exactly such a range.
// An empty StartPartitionKey or EndPartitionKey leaves that side open; an
// empty row key leaves the row open within its partition.
type KeyRange struct {
	StartPartitionKey, StartRowKey string
	EndPartitionKey, EndRowKey     string
}

// Contains reports whether the keys pk, rk lie in the range.
func (kr *KeyRange) Contains(pk, rk string) bool {
	if kr == nil {
		return true
	}
	if kr.StartPartitionKey != "" {
		if pk < kr.StartPartitionKey || pk == kr.StartPartitionKey && kr.StartRowKey != "" && rk < kr.StartRowKey {
			return false
		}
	}
	if kr.EndPartitionKey != "" {
		if pk > kr.EndPartitionKey || pk == kr.EndPartitionKey && kr.EndRowKey != "" && rk > kr.EndRowKey {
			return false
		}
	}
	return true
}

// Query selects entities of one table.
type Query struct {
	// Filter is an OData $filter expression; empty selects every entity.
	Filter string
	// Top is the page size, 1 to 1000; zero means 1000.
	Top int
	// After, when set, resumes a query where a previous page ended.
	After *Continuation
	// Range, when set, hides every entity outside it.
	Range *KeyRange
}

// Plan says how a query page was executed and what it cost.
type Plan struct {
	// Class is the access pattern: point, range, partition-scan or
	// table-scan, as the table design guide names them.
	Class odata.Class
	// Examined counts the entities the page looked at; Returned those it
	// returned.
	Examined, Returned int
}

// Page is one page of query results.
type Page struct {
	Entities []*Entity
	// Next is where the following page starts, or nil on the last page.
	Next *Continuation
	Plan Plan
}

func pageSize(top int) (int, error) {
	switch {
	case top == 0:
		return MaxPageSize, nil
	case top < 0 || top > MaxPageSize:
		return 0, svcerr.Newf(svcerr.InvalidInput, "The value %d of $top is not in the range 1 to %d.", top, MaxPageSize)
	}
	return top, nil
}

// bounds is the stretch of one table's keyspace a query walks.
type bounds struct {
	start      keyspace.Item // first key that may match
	startPK    string
	partition  bool // the walk stays in startPK
	pkHi, rkHi string
	hasPKHi    bool
	pkHiIncl   bool
	hasRKHi    bool
	rkHiIncl   bool
	empty      bool
	// inside is the last PartitionKey found within pkHi: the rest of its
	// partition is too, and equality costs less than ordering.
	inside string
}

func boundsOf(id uint32, p odata.Plan) bounds {
	b := bounds{}
	pki, rki := p.PartitionKey, p.RowKey
	var startRK string
	if pki.Empty {
		b.empty = true
		b.start = keyspace.Key(id, "", "")
		return b
	}
	if pki.HasLo {
		b.startPK = pki.Lo
	}
	if pki.HasHi {
		b.hasPKHi, b.pkHi, b.pkHiIncl = true, pki.Hi, pki.HiInclusive
	}
	if p.Class == odata.PointQuery || p.Class == odata.RangeQuery || p.Class == odata.PartitionScan {
		b.partition = true
		if rki.Empty {
			b.empty = true
			return b
		}
		if rki.HasLo {
			startRK = rki.Lo
		}
		if rki.HasHi {
			b.hasRKHi, b.rkHi, b.rkHiIncl = true, rki.Hi, rki.HiInclusive
		}
	}
	b.start = keyspace.Key(id, b.startPK, startRK)
	return b
}

// past reports whether the walk has gone beyond the bounds.
func (b *bounds) past(it keyspace.Item) bool {
	if it.Table != b.start.Table {
		return true
	}
	if b.partition {
		if it.PK() != b.startPK {
			return true
		}
		rk := it.RK()
		return b.hasRKHi && (rk > b.rkHi || rk == b.rkHi && !b.rkHiIncl)
	}
	if !b.hasPKHi {
		return false
	}
	pk := it.PK()
	if pk == b.inside {
		return false
	}
	if pk > b.pkHi || pk == b.pkHi && !b.pkHiIncl {
		return true
	}
	b.inside = pk
	return false
}

// Query returns one page of the entities of a table that match q.Filter,
// in PartitionKey, RowKey order, with the plan that produced it.
//
// The planner reads the key range the filter constrains and walks only
// that stretch of the keyspace, on a snapshot: a page reflects the table
// as it was when the page began, and writers never wait for it.
func (s *Store) Query(tableName string, q Query) (Page, error) {
	top, err := pageSize(q.Top)
	if err != nil {
		return Page{}, err
	}
	var f *odata.Filter
	if strings.TrimSpace(q.Filter) != "" {
		if f, err = odata.Parse(q.Filter); err != nil {
			return Page{}, err
		}
	}
	plan := f.Plan()
	// The walk below stays within the plan's bounds, so only the rest of
	// the filter needs evaluating on what it visits.
	f = f.Residual(plan)

	s.mu.RLock()
	t := s.lookup(tableName)
	var id uint32
	if t != nil {
		id = t.id
	}
	s.mu.RUnlock()
	if t == nil {
		return Page{}, svcerr.New(svcerr.TableNotFound)
	}
	b := boundsOf(id, plan)
	page := Page{Plan: Plan{Class: plan.Class}}
	if b.empty {
		return page, nil
	}
	point := b.start
	if q.After != nil {
		after := keyspace.Key(id, q.After.PartitionKey, q.After.RowKey)
		if keyspace.Less(b.start, after) {
			b.start = after
		}
	}
	if r := q.Range; r != nil && r.StartPartitionKey != "" {
		rs := keyspace.Key(id, r.StartPartitionKey, r.StartRowKey)
		if keyspace.Less(b.start, rs) {
			b.start = rs
		}
	}

	if plan.Class == odata.PointQuery && q.After == nil {
		// A point query needs no snapshot: one lookup under the read lock.
		s.mu.RLock()
		it, ok := s.tree.Get(point)
		var enc string
		if ok {
			enc, err = s.load(it)
		}
		s.mu.RUnlock()
		if err != nil {
			return Page{}, internal(err)
		}
		if ok {
			page.Plan.Examined = 1
			if q.Range.Contains(it.PK(), it.RK()) && (f == nil || f.Match(&keyspace.Record{Enc: enc, Props: it.HeadLen()})) {
				if err := page.add(enc); err != nil {
					return Page{}, err
				}
			}
		}
		return page, nil
	}

	tree, release := s.snapshot()
	defer release()
	var walkErr error
	rec := &keyspace.Record{}
	vr := keyspace.ValueReader{Files: s.values}
	lastMatched := false
	tree.Ascend(b.start, func(it keyspace.Item) bool {
		if b.past(it) || q.Range != nil && q.Range.EndPartitionKey != "" && it.PK() > q.Range.EndPartitionKey {
			return false
		}
		if len(page.Entities) == top || page.Plan.Examined == s.maxExamined {
			page.Next = &Continuation{PartitionKey: it.PK(), RowKey: it.RK()}
			return false
		}
		page.Plan.Examined++
		if !q.Range.Contains(it.PK(), it.RK()) {
			return true
		}
		if f != nil && it.Settled() {
			// The residue decides, unless the filter reads a long value
			// it leaves in the file.
			rec.Enc, rec.Props, rec.Deferred = it.Enc, it.HeadLen(), false
			if !f.Match(rec) && !rec.Deferred {
				lastMatched = false
				return true
			}
		}
		enc, err := vr.Get(it)
		if err != nil {
			walkErr = internal(err)
			return false
		}
		rec.Enc, rec.Props = enc, it.HeadLen()
		matched := f == nil || f.Match(rec)
		if matched {
			// The returned entity's strings point into the reader's
			// buffer. In a run of matches the page keeps the buffer;
			// a lone match takes a copy, so that a sparse filter does
			// not cost a new buffer per read.
			switch {
			case !it.Settled():
			case lastMatched:
				vr.Keep()
			default:
				enc = strings.Clone(enc)
			}
			if walkErr = page.add(enc); walkErr != nil {
				return false
			}
		}
		lastMatched = matched
		return true
	})
	if walkErr != nil {
		return Page{}, walkErr
	}
	return page, nil
}

// internal reports a failure to read what the store holds as the
// service's InternalError, keeping the cause in the message.
func internal(err error) error {
	return svcerr.Newf(svcerr.InternalError, "The server could not read the entity: %v", err)
}

func (p *Page) add(enc string) error {
	e, err := decodeEntity(enc)
	if err != nil {
		return svcerr.New(svcerr.InternalError)
	}
	p.Entities = append(p.Entities, e)
	p.Plan.Returned++
	return nil
}

// Project returns a copy of e holding only the named properties, for
// $select. PartitionKey, RowKey and Timestamp stay on the copy (callers
// that write the wire form decide whether to show them); names the entity
// lacks are simply absent.
func (e *Entity) Project(names []string) *Entity {
	p := &Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Timestamp: e.Timestamp}
	for _, n := range names {
		if v, ok := e.Property(n); ok && n != PartitionKeyName && n != RowKeyName && n != TimestampName {
			p.Properties = append(p.Properties, Property{Name: n, Value: v})
		}
	}
	sortProperties(p.Properties)
	return p
}
