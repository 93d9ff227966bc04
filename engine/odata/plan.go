package odata

import "github.com/tablelab/tablelab/engine/edm"

// Class is the access pattern a query uses.
type Class uint8

// The plan classes, cheapest first.
const (
	PointQuery Class = iota + 1
	RangeQuery
	PartitionScan
	TableScan
)

var classNames = [...]string{"", "point", "range", "partition-scan", "table-scan"}

// String returns "point", "range", "partition-scan" or "table-scan".
func (c Class) String() string {
	if int(c) < len(classNames) && c > 0 {
		return classNames[c]
	}
	return "unknown"
}

// Interval is a set of key values: from Lo to Hi, each end open when its
// Has flag is false, included when its Inclusive flag is set. Empty marks
// constraints that contradict each other.
type Interval struct {
	Lo, Hi                   string
	HasLo, HasHi             bool
	LoInclusive, HiInclusive bool
	Empty                    bool
}

// Point reports whether the interval holds exactly one value.
func (iv Interval) Point() bool {
	return !iv.Empty && iv.HasLo && iv.HasHi && iv.Lo == iv.Hi && iv.LoInclusive && iv.HiInclusive
}

// Bounded reports whether either end is closed.
func (iv Interval) Bounded() bool { return iv.HasLo || iv.HasHi || iv.Empty }

// Contains reports whether s lies in the interval.
func (iv Interval) Contains(s string) bool {
	if iv.Empty {
		return false
	}
	if iv.HasLo && (s < iv.Lo || s == iv.Lo && !iv.LoInclusive) {
		return false
	}
	if iv.HasHi && (s > iv.Hi || s == iv.Hi && !iv.HiInclusive) {
		return false
	}
	return true
}

// intersect returns the values in both intervals.
func intersect(a, b Interval) Interval {
	if a.Empty || b.Empty {
		return Interval{Empty: true}
	}
	out := a
	if b.HasLo && (!out.HasLo || b.Lo > out.Lo || b.Lo == out.Lo && !b.LoInclusive) {
		out.Lo, out.HasLo, out.LoInclusive = b.Lo, true, b.LoInclusive
	}
	if b.HasHi && (!out.HasHi || b.Hi < out.Hi || b.Hi == out.Hi && !b.HiInclusive) {
		out.Hi, out.HasHi, out.HiInclusive = b.Hi, true, b.HiInclusive
	}
	if out.HasLo && out.HasHi && (out.Lo > out.Hi || out.Lo == out.Hi && !(out.LoInclusive && out.HiInclusive)) {
		return Interval{Empty: true}
	}
	return out
}

// Plan says where in the keyspace a filter's matches can lie. The
// RowKey interval means something only when PartitionKey is one point.
type Plan struct {
	Class        Class
	PartitionKey Interval
	RowKey       Interval
}

// keyBounds are the constraints a subtree puts on the two keys.
type keyBounds struct{ pk, rk Interval }

// Plan extracts the key bounds of the filter and classifies it. The
// bounds hold every entity the filter can match, so a query may walk only
// them and still evaluate the whole filter on each entity. A nil filter
// plans as an unbounded table scan.
func (f *Filter) Plan() Plan {
	if f == nil {
		return Plan{Class: TableScan}
	}
	kb := bounds(f.root)
	p := Plan{PartitionKey: kb.pk, RowKey: kb.rk}
	switch {
	case kb.pk.Empty:
		p.Class = TableScan
		p.RowKey = Interval{}
	case !kb.pk.Point():
		p.Class = TableScan
		p.RowKey = Interval{}
	case kb.rk.Point():
		p.Class = PointQuery
	case kb.rk.Bounded():
		p.Class = RangeQuery
	default:
		p.Class = PartitionScan
	}
	return p
}

func bounds(n node) keyBounds {
	switch n := n.(type) {
	case *andNode:
		l, r := bounds(n.l), bounds(n.r)
		return keyBounds{intersect(l.pk, r.pk), intersect(l.rk, r.rk)}
	case *orNode:
		// A disjunction keeps a bound only when both sides stay in one
		// and the same partition; a union of RowKey runs is not a range.
		l, r := bounds(n.l), bounds(n.r)
		if l.pk.Point() && r.pk.Point() && l.pk.Lo == r.pk.Lo {
			return keyBounds{pk: l.pk}
		}
		if l.pk.Empty && l.rk.Empty {
			return r
		}
		if r.pk.Empty && r.rk.Empty {
			return l
		}
	case *constNode:
		if !n.v {
			return keyBounds{pk: Interval{Empty: true}, rk: Interval{Empty: true}}
		}
	case *cmpNode:
		if n.lit.Kind() != edm.String || n.name != "PartitionKey" && n.name != "RowKey" {
			break
		}
		iv := interval(n.op, n.lit.Str())
		if n.name == "PartitionKey" {
			return keyBounds{pk: iv}
		}
		return keyBounds{rk: iv}
	}
	return keyBounds{}
}

func interval(op Op, v string) Interval {
	switch op {
	case Eq:
		return Interval{Lo: v, Hi: v, HasLo: true, HasHi: true, LoInclusive: true, HiInclusive: true}
	case Gt:
		return Interval{Lo: v, HasLo: true}
	case Ge:
		return Interval{Lo: v, HasLo: true, LoInclusive: true}
	case Lt:
		return Interval{Hi: v, HasHi: true}
	case Le:
		return Interval{Hi: v, HasHi: true, HiInclusive: true}
	}
	return Interval{}
}

// Residual returns what of the filter remains to be checked on the
// entities a walk of p's bounds visits: the top-level conjuncts that
// compare PartitionKey with a string, and RowKey too when p keeps to one
// partition, hold for every such entity, since p's bounds are their
// intersection. A scan then skips two key comparisons per entity on the
// most common shape of query. It returns nil when nothing remains.
func (f *Filter) Residual(p Plan) *Filter {
	if f == nil {
		return nil
	}
	var keep []node
	dropped := false
	var walk func(n node)
	walk = func(n node) {
		if a, ok := n.(*andNode); ok {
			walk(a.l)
			walk(a.r)
			return
		}
		if c, ok := n.(*cmpNode); ok && c.lit.Kind() == edm.String && interval(c.op, "") != (Interval{}) {
			if c.name == "PartitionKey" || c.name == "RowKey" && p.PartitionKey.Point() {
				dropped = true
				return
			}
		}
		keep = append(keep, n)
	}
	walk(f.root)
	if len(keep) == 0 {
		return nil
	}
	if !dropped {
		return f // all of it remains, evaluation form included
	}
	root := keep[0]
	for _, n := range keep[1:] {
		root = &andNode{root, n}
	}
	return newFilter(root, f.comparisons)
}
