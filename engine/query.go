package engine

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/internal/keyspace"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Lookup is what Get found.
type Lookup struct {
	// Entity is the entity, shared with the store: read-only. It is nil
	// when no entity has the keys.
	Entity *Entity
	// Table is the table's name as it was created, read under the same
	// lock as the entity.
	Table string
	// Plan is a point lookup's: one entity examined and returned when it
	// exists, none when it does not.
	Plan Plan
}

// Get returns one entity by its keys. When the table has no such entity
// the error is ResourceNotFound and the Lookup still names the table and
// the plan, which a reply reports as for any read.
func (s *Store) Get(tableName, pk, rk string) (Lookup, error) {
	s.mu.RLock()
	t := s.lookup(tableName)
	if t == nil {
		s.mu.RUnlock()
		return Lookup{}, svcerr.New(svcerr.TableNotFound)
	}
	l := Lookup{Table: t.name, Plan: Plan{Class: odata.PointQuery}}
	it, ok := s.tree.Get(keyspace.Key(t.id, pk, rk))
	if !ok {
		s.mu.RUnlock()
		return l, svcerr.New(svcerr.ResourceNotFound)
	}
	// Read under the lock: a snapshot may move the entity to another
	// file, and the old one goes once no lock or pin holds it.
	enc, err := s.load(it)
	s.mu.RUnlock()
	if err != nil {
		return Lookup{}, internal(err)
	}
	if l.Entity, err = decodeEntity(enc); err != nil {
		return Lookup{}, internal(err)
	}
	l.Plan.Examined, l.Plan.Returned = 1, 1
	return l, nil
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
	// Paging says where else the page may end; the zero value ends it
	// only when it is full or the store's budget is spent.
	Paging Paging
}

// Paging says where a query page may end before it is full, as the
// service's pages may: a client that follows continuations sees the same
// entities whatever it says, and one that reads only the first page sees
// fewer.
type Paging struct {
	// MaxExamined, when positive and below the store's budget
	// (Options.MaxExamined), ends a page once it has examined this many
	// entities, matching or not, as the service ends one after a few
	// seconds of work: the page may be short, or empty, and still carry a
	// continuation.
	MaxExamined int
	// PartitionBreaks ends the page of a query that is not confined to
	// one partition where its walk reaches the next partition, as the
	// service may end one where a partition server's range ends: a
	// partition without a match gives an empty page with a continuation.
	PartitionBreaks bool
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
	// Table is the table's name as it was created.
	Table string
	// Mismatches are the filter's comparisons that met their property,
	// on the entities the page examined, only in types their literal
	// cannot be compared with: Age gt '30' where Age is an Edm.Int32.
	Mismatches []odata.Mismatch

	// The entities and their properties are cut from these arrays, a
	// few allocations for the page rather than two for each entity:
	// allocation is dear in WebAssembly, where the collector runs
	// inline on the one thread.
	slab  []Entity
	props []Property
}

func pageSize(top int) (int, error) {
	switch {
	case top == 0:
		return MaxPageSize, nil
	case top < 0 || top > MaxPageSize:
		return 0, svcerr.With(svcerr.InvalidInput, "The value "+strconv.Itoa(top)+" of $top is not in the range 1 to "+strconv.Itoa(MaxPageSize)+".")
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
	// An exclusive lower bound starts the walk just past the bound: no key
	// lies between k and k+"\x00" in byte order. The planner has taken the
	// bound out of the residual filter, so the walk must not show it.
	startPK := b.startPK
	switch {
	case b.partition && rki.HasLo && !rki.LoInclusive:
		startRK += "\x00"
	case !b.partition && pki.HasLo && !pki.LoInclusive:
		startPK += "\x00"
	}
	b.start = keyspace.Key(id, startPK, startRK)
	return b
}

// past reports whether the walk has gone beyond the bounds. It is small
// enough to be inlined into the walk, so that a scan of a whole table
// makes no call for it per item.
func (b *bounds) past(it keyspace.Item) bool {
	return it.Table != b.start.Table || (b.partition || b.hasPKHi) && b.pastKeys(it)
}

// pastKeys is past for a walk that keys bound.
func (b *bounds) pastKeys(it keyspace.Item) bool {
	if b.partition {
		if it.PK() != b.startPK {
			return true
		}
		rk := it.RK()
		return b.hasRKHi && (rk > b.rkHi || rk == b.rkHi && !b.rkHiIncl)
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
	p, err := s.plan(tableName, q)
	if err != nil {
		return Page{}, err
	}
	pg := s.pager(p)
	if !p.bounds.empty {
		s.walk(p, pg)
	}
	if pg.err != nil {
		return Page{}, pg.err
	}
	pg.page.Mismatches = p.filter.Mismatches()
	return pg.page, nil
}

// queryPlan is what planning decided about a query: the table, the
// stretch of it to walk, and what the walk must still test.
type queryPlan struct {
	table  string // as created
	class  odata.Class
	bounds bounds
	// point is set when the walk is one lookup, of bounds.start.
	point bool
	// filter is what the bounds leave to test; nil tests nothing.
	filter *odata.Filter
	top    int
	rng    *KeyRange
	// maxExamined is the page's examination budget.
	maxExamined int
	// breaks ends the page at the next partition: Paging.PartitionBreaks,
	// for a walk that may cross partitions.
	breaks bool
}

// plan parses and plans a query: the key range its filter allows, moved
// up to where a continuation or a shared access signature's range starts.
func (s *Store) plan(tableName string, q Query) (*queryPlan, error) {
	top, err := pageSize(q.Top)
	if err != nil {
		return nil, err
	}
	var f *odata.Filter
	if strings.TrimSpace(q.Filter) != "" {
		if f, err = odata.Parse(q.Filter); err != nil {
			return nil, err
		}
	}
	fp := f.Plan()

	s.mu.RLock()
	t := s.lookup(tableName)
	var id uint32
	var name string
	if t != nil {
		id, name = t.id, t.name
	}
	s.mu.RUnlock()
	if t == nil {
		return nil, svcerr.New(svcerr.TableNotFound)
	}
	p := &queryPlan{
		table:  name,
		class:  fp.Class,
		bounds: boundsOf(id, fp),
		point:  fp.Class == odata.PointQuery && q.After == nil,
		// The walk stays within the plan's bounds, so only the rest of
		// the filter needs evaluating on what it visits.
		filter: f.Residual(fp),
		top:    top,
		rng:    q.Range,

		maxExamined: s.maxExamined,
	}
	if m := q.Paging.MaxExamined; m > 0 && m < p.maxExamined {
		p.maxExamined = m
	}
	if p.point {
		return p, nil
	}
	p.breaks = q.Paging.PartitionBreaks && !p.bounds.partition
	b := &p.bounds
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
	return p, nil
}

// walk shows pg the items of the plan's bounds in key order, until its
// visit returns false. The files settled items lie in stay readable
// while visit runs. The pager is called directly, not through a func
// value: each call is dear in WebAssembly, and a scan makes one per item.
func (s *Store) walk(p *queryPlan, pg *pager) {
	if p.point {
		// One lookup needs no snapshot: the read lock keeps the entity
		// where it is while it is read.
		s.mu.RLock()
		defer s.mu.RUnlock()
		if it, ok := s.tree.Get(p.bounds.start); ok {
			pg.visit(it)
		}
		return
	}
	b := &p.bounds
	var end string // the last PartitionKey a shared access signature grants
	if p.rng != nil {
		end = p.rng.EndPartitionKey
	}
	tree, release := s.snapshot()
	defer release()
	// What a filter turns down of the entities held in memory, the bulk
	// of a scan, is decided here rather than in a call to visit; the
	// rest (matches, settled entities, a full page, and with partition
	// breaks every entity, since visit decides where the page ends) goes
	// to visit.
	f, plain := p.filter, p.filter != nil && p.rng == nil && !p.breaks
	// A range of integers, the commonest filter, is tested here with
	// one direct call to read the property; Match, two calls through
	// interfaces, decides the rest.
	var ir odata.IntRange
	var inline, fit bool // fit: the in-line test met a value of ir.Kind
	if plain {
		ir, inline = f.IntRange()
	}
	tree.Ascend(b.start, func(it keyspace.Item) bool {
		if b.past(it) || end != "" && it.PK() > end {
			return false
		}
		if plain && !it.Settled() && pg.page.Plan.Examined < pg.maxExamined && len(pg.page.Entities) < pg.p.top {
			var match, decided bool
			if inline {
				// A Record of this call's own, on the stack: the
				// pager's, in the heap, or one the func shared, would
				// take a write barrier for every entity pointed at
				// while a collection marks, and under WebAssembly a
				// collection marks for as long as no allocation
				// finishes it. A property the entity lacks matches
				// nothing, as in Match.
				rec := keyspace.Record{Enc: it.Enc, Props: it.HeadLen()}
				if v, ok := rec.Property(ir.Name); !ok {
					decided = true
				} else if v.Kind() == ir.Kind {
					decided, match, fit = true, ir.Holds(v.Int()), true
				}
			}
			if !decided {
				pg.rec.Reset(it.Enc, it.HeadLen())
				match = f.Match(&pg.rec)
			}
			if !match {
				pg.page.Plan.Examined++
				pg.lastMatched = false
				return true
			}
			// Tested once: visit need not test it again, which would
			// also count it twice in what the filter met.
			pg.matched = true
		}
		return pg.visit(it)
	})
	if fit {
		f.Saw(ir.Name, ir.Kind)
	}
}

// pager fills one page from the items a walk visits: it counts what it
// examines, ends the page when it is full or its budget spent, and
// decodes the entities that match.
type pager struct {
	p           *queryPlan
	maxExamined int
	// partition is the PartitionKey the page began in, under breaks.
	partition   string
	page        Page
	err         error
	rec         keyspace.Record
	values      keyspace.ValueReader
	lastMatched bool
	// matched is set when the walk has found that the item it hands to
	// visit matches the filter.
	matched bool
}

func (s *Store) pager(p *queryPlan) *pager {
	return &pager{
		p:           p,
		maxExamined: p.maxExamined,
		page:        Page{Table: p.table, Plan: Plan{Class: p.class}},
		values:      keyspace.ValueReader{Files: s.values},
		// A point lookup reads once, so the page may as well keep the
		// buffer it was read into.
		lastMatched: p.point,
	}
}

// visit examines one item, and reports whether the walk should go on.
func (pg *pager) visit(it keyspace.Item) bool {
	page, f := &pg.page, pg.p.filter
	decided := pg.matched
	pg.matched = false
	if len(page.Entities) == pg.p.top || page.Plan.Examined == pg.maxExamined || pg.p.breaks && pg.crosses(it) {
		page.Next = &Continuation{PartitionKey: it.PK(), RowKey: it.RK()}
		return false
	}
	page.Plan.Examined++
	if rng := pg.p.rng; rng != nil && !rng.Contains(it.PK(), it.RK()) {
		return true
	}
	rec := &pg.rec
	if f != nil && it.Settled() {
		// The residue decides, unless the filter reads a long value
		// it leaves in the file. (When it does not decide, the entity
		// is tested twice, and counted twice in what the filter met.)
		rec.Reset(it.Enc, it.HeadLen())
		m := f.Match(rec)
		if !rec.Deferred {
			if !m {
				pg.lastMatched = false
				return true
			}
			decided = true
		}
	}
	enc := it.Enc
	if it.Settled() {
		var err error
		if enc, err = pg.values.Get(it); err != nil {
			pg.err = internal(err)
			return false
		}
	}
	rec.Reset(enc, it.HeadLen())
	matched := f == nil || decided || f.Match(rec)
	if matched {
		// The returned entity's strings point into the reader's
		// buffer. In a run of matches the page keeps the buffer;
		// a lone match takes a copy, so that a sparse filter does
		// not cost a new buffer per read.
		switch {
		case !it.Settled():
		case pg.lastMatched:
			pg.values.Keep()
		default:
			enc = strings.Clone(enc)
		}
		if pg.err = page.add(enc); pg.err != nil {
			return false
		}
	}
	pg.lastMatched = matched
	return true
}

// crosses reports whether it lies in another partition than the page
// began in; the page's first item sets that partition.
func (pg *pager) crosses(it keyspace.Item) bool {
	if pg.page.Plan.Examined == 0 {
		pg.partition = it.PK()
		return false
	}
	return it.PK() != pg.partition
}

// internal reports a failure to read what the store holds as the
// service's InternalError, keeping the cause in the message.
func internal(err error) error {
	return svcerr.With(svcerr.InternalError, "The server could not read the entity: "+err.Error())
}

func (p *Page) add(enc string) error {
	if len(p.slab) == cap(p.slab) {
		// Each array twice the last, up to a size that wastes little
		// when the page ends early.
		p.slab = make([]Entity, 0, min(max(2*cap(p.slab), 8), 256))
	}
	p.slab = p.slab[:len(p.slab)+1]
	e := &p.slab[len(p.slab)-1]
	if decodeInto(e, enc, p.props[len(p.props):]) != nil {
		return svcerr.New(svcerr.InternalError)
	}
	if n := len(e.Properties); n <= cap(p.props)-len(p.props) {
		p.props = p.props[:len(p.props)+n]
	} else {
		// It did not fit and took an array of its own; the next
		// ones get a new shared one.
		p.props = make([]Property, 0, max(min(2*cap(p.props), 2048), 8*n))
	}
	p.Entities = append(p.Entities, e)
	p.Plan.Returned++
	return nil
}
