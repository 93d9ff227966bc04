// Package odata reads the OData $filter expressions Azure Table storage
// accepts, evaluates them against entities, and plans them: it finds the
// PartitionKey and RowKey bounds a filter implies, so a query walks only
// that stretch of the keyspace.
//
// Grammar (keywords are lower-case, as the service requires):
//
//	filter     = or
//	or         = and { "or" and }
//	and        = unary { "and" unary }
//	unary      = "not" unary | primary
//	primary    = "(" or ")" | comparison | property | "true" | "false"
//	comparison = property op literal | literal op property
//	op         = eq | ne | gt | ge | lt | le
//
// Literals are those of edm.ParseLiteral. A comparison needs a property on
// one side and a constant on the other, and a filter may hold at most 15
// comparisons, as in the service.
//
// Plan classes, as the table design guide names them: point (one
// PartitionKey and one RowKey), range (one PartitionKey and a bounded run
// of RowKeys), partition-scan (one PartitionKey, anything else) and
// table-scan (no single PartitionKey).
package odata

import (
	"math"
	"strings"

	"github.com/tablelab/tablelab/engine/edm"
)

// Record is what a filter reads: an entity's properties by name,
// PartitionKey, RowKey and Timestamp included.
type Record interface {
	Property(name string) (edm.Value, bool)
}

// MaxComparisons is the most comparisons the service allows in a $filter.
const MaxComparisons = 15

// maxDepth bounds nesting so that a hostile filter cannot exhaust the
// stack of the recursive-descent parser.
const maxDepth = 100

// Filter is a parsed $filter.
type Filter struct {
	root        node
	comparisons int
	// eval is root arranged for evaluation (see evalForm).
	eval node
}

func newFilter(root node, comparisons int) *Filter {
	return &Filter{root: root, comparisons: comparisons, eval: evalForm(root)}
}

// Match reports whether r satisfies the filter. It records what the
// filter's comparisons met (see Mismatches), so a Filter must not be
// matched from several goroutines at once; each query parses its own.
func (f *Filter) Match(r Record) bool { return f.eval.match(r) }

// Comparisons returns the number of comparisons in the filter.
func (f *Filter) Comparisons() int { return f.comparisons }

// String returns the filter in canonical form: fully parenthesized
// binary operators, single spaces, literals as edm.Value.Literal writes
// them. Parse(f.String()) is the same filter.
func (f *Filter) String() string {
	var b strings.Builder
	f.root.write(&b)
	return b.String()
}

// Op is a comparison operator.
type Op uint8

// The comparison operators.
const (
	Eq Op = iota
	Ne
	Gt
	Ge
	Lt
	Le
)

var opNames = [...]string{"eq", "ne", "gt", "ge", "lt", "le"}

// String returns the operator as written in a filter: "eq", "lt", ….
func (o Op) String() string { return opNames[o] }

// mirror returns the operator that keeps the meaning when the operands
// swap sides: 5 lt X is X gt 5.
func (o Op) mirror() Op {
	switch o {
	case Gt:
		return Lt
	case Ge:
		return Le
	case Lt:
		return Gt
	case Le:
		return Ge
	}
	return o
}

type node interface {
	match(r Record) bool
	write(b *strings.Builder)
}

type andNode struct{ l, r node }
type orNode struct{ l, r node }
type notNode struct{ x node }
type constNode struct{ v bool }

// propNode is a bare property used as a predicate: true when the entity
// has it as an Edm.Boolean true.
type propNode struct{ name string }

type cmpNode struct {
	name string
	op   Op
	lit  edm.Value
	met  met
}

func (n *andNode) match(r Record) bool { return n.l.match(r) && n.r.match(r) }
func (n *orNode) match(r Record) bool  { return n.l.match(r) || n.r.match(r) }
func (n *notNode) match(r Record) bool { return !n.x.match(r) }
func (n *constNode) match(Record) bool { return n.v }

func (n *propNode) match(r Record) bool {
	v, ok := r.Property(n.name)
	return ok && v.Kind() == edm.Boolean && v.Bool()
}

func (n *cmpNode) match(r Record) bool {
	v, ok := r.Property(n.name)
	if !ok {
		// A property the entity lacks matches nothing, ne included.
		return false
	}
	n.met.meet(v.Kind(), n.lit.Kind())
	return compare(v, n.op, n.lit)
}

// compare applies op to a property value and a literal with the service's
// typing rules. Same kinds compare by value. An Int64 property against an
// Int32 literal, and a Double property against an Int32 or Int64 literal,
// compare as numbers. Every other pairing is "not comparable", which the
// service answers oddly but consistently: eq false, ne true, lt and le
// true, gt and ge false. A NaN equals nothing and orders against nothing.
func compare(v edm.Value, op Op, lit edm.Value) bool {
	var c int
	switch {
	case v.Kind() == lit.Kind():
		var ok bool
		if c, ok = edm.Compare(v, lit); !ok {
			return op == Ne // NaN
		}
	case v.Kind() == edm.Int64 && lit.Kind() == edm.Int32:
		c = cmpInt(v.Int(), lit.Int())
	case v.Kind() == edm.Double && (lit.Kind() == edm.Int32 || lit.Kind() == edm.Int64):
		x, y := v.Float(), float64(lit.Int())
		if x != x {
			return op == Ne
		}
		c = cmpFloat(x, y)
	default:
		return op == Ne || op == Lt || op == Le
	}
	return op.holds(c)
}

// holds reports whether a three-way comparison's result c satisfies op.
func (op Op) holds(c int) bool {
	switch op {
	case Eq:
		return c == 0
	case Ne:
		return c != 0
	case Gt:
		return c > 0
	case Ge:
		return c >= 0
	case Lt:
		return c < 0
	}
	return c <= 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (n *andNode) write(b *strings.Builder) { writeBinary(b, n.l, "and", n.r) }
func (n *orNode) write(b *strings.Builder)  { writeBinary(b, n.l, "or", n.r) }

func writeBinary(b *strings.Builder, l node, op string, r node) {
	b.WriteByte('(')
	l.write(b)
	b.WriteString(" " + op + " ")
	r.write(b)
	b.WriteByte(')')
}

func (n *notNode) write(b *strings.Builder) {
	b.WriteString("not (")
	n.x.write(b)
	b.WriteByte(')')
}

func (n *constNode) write(b *strings.Builder) {
	if n.v {
		b.WriteString("true")
	} else {
		b.WriteString("false")
	}
}

func (n *propNode) write(b *strings.Builder) { b.WriteString(n.name) }

func (n *cmpNode) write(b *strings.Builder) {
	b.WriteString(n.name + " " + n.op.String() + " " + n.lit.Literal())
}

// evalForm returns n arranged for evaluation, meaning the same: two
// comparisons of one property that follow each other in a chain of ands
// (a range: N ge 10 and N lt 20) become one test that reads the property
// once. A scan evaluates the filter on every entity it examines, each
// node is a call through an interface (dear in WebAssembly), and each
// property read walks an entity's encoding. What not applies to is left
// as parsed, a rare shape not worth the code.
func evalForm(n node) node {
	switch n := n.(type) {
	case *orNode:
		return &orNode{evalForm(n.l), evalForm(n.r)}
	case *andNode:
		l := evalForm(n.l)
		r, ok := n.r.(*cmpNode)
		if !ok {
			return &andNode{l, evalForm(n.r)}
		}
		// The chain leans left: ((a and b) and c). The comparison to
		// join is l itself or the last one of its chain.
		last, chain := l, (*andNode)(nil)
		if a, ok := l.(*andNode); ok {
			last, chain = a.r, a
		}
		if c, ok := last.(*cmpNode); ok && c.name == r.name {
			var rn node = &rangeNode{name: c.name, tests: [2]cmpTest{{c.op, c.lit}, {r.op, r.lit}}}
			if chain == nil {
				return rn
			}
			return &andNode{chain.l, rn}
		}
		return &andNode{l, r}
	}
	return n
}

// rangeNode is two comparisons of one property that must both hold.
type rangeNode struct {
	name  string
	tests [2]cmpTest
	met   [2]met // each test's
}

type cmpTest struct {
	op  Op
	lit edm.Value
}

func (n *rangeNode) match(r Record) bool {
	v, ok := r.Property(n.name)
	if !ok {
		return false
	}
	for i := range n.tests {
		t := &n.tests[i]
		n.met[i].meet(v.Kind(), t.lit.Kind())
		// Integers of one kind, the commonest range, are compared in
		// line: in WebAssembly a call costs more than the comparison.
		if k := v.Kind(); k == t.lit.Kind() && (k == edm.Int32 || k == edm.Int64) {
			if !t.op.holds(cmpInt(v.Int(), t.lit.Int())) {
				return false
			}
		} else if !compare(v, t.op, t.lit) {
			return false
		}
	}
	return true
}

// IntRange is a filter that is one or two comparisons of one property
// with integer literals of one kind (N ge 10 and N lt 20, N eq 5), as an
// interval: the shape of filter a scan meets most. A scan tests it in
// line on an entity whose property has the literals' kind, without the
// calls through interfaces Match makes (dear in WebAssembly); any other
// entity, a property of another kind among them, Match must decide.
type IntRange struct {
	Name   string
	Kind   edm.Kind // edm.Int32 or edm.Int64
	Lo, Hi int64    // both included; Lo > Hi holds nothing
}

// Holds reports whether v, a value of r's Kind, lies in the range.
func (r *IntRange) Holds(v int64) bool { return r.Lo <= v && v <= r.Hi }

// IntRange returns the filter as an IntRange, when it is one.
func (f *Filter) IntRange() (IntRange, bool) {
	var tests [2]cmpTest
	var name string
	n := 1
	switch e := f.eval.(type) {
	case *cmpNode:
		name, tests[0] = e.name, cmpTest{e.op, e.lit}
	case *rangeNode:
		name, tests, n = e.name, e.tests, 2
	default:
		return IntRange{}, false
	}
	r := IntRange{Name: name, Kind: tests[0].lit.Kind(), Lo: math.MinInt64, Hi: math.MaxInt64}
	if r.Kind != edm.Int32 && r.Kind != edm.Int64 {
		return IntRange{}, false
	}
	for _, t := range tests[:n] {
		if t.lit.Kind() != r.Kind {
			return IntRange{}, false
		}
		x := t.lit.Int()
		switch t.op {
		case Eq:
			r.Lo, r.Hi = max(r.Lo, x), min(r.Hi, x)
		case Ge:
			r.Lo = max(r.Lo, x)
		case Le:
			r.Hi = min(r.Hi, x)
		case Gt:
			if x == math.MaxInt64 {
				r.Lo, r.Hi = 1, 0 // nothing is greater
				continue
			}
			r.Lo = max(r.Lo, x+1)
		case Lt:
			if x == math.MinInt64 {
				r.Lo, r.Hi = 1, 0 // nothing is less
				continue
			}
			r.Hi = min(r.Hi, x-1)
		default: // ne: two intervals
			return IntRange{}, false
		}
	}
	return r, true
}

func (n *rangeNode) write(b *strings.Builder) {
	t := n.tests
	writeBinary(b, &cmpNode{name: n.name, op: t[0].op, lit: t[0].lit}, "and", &cmpNode{name: n.name, op: t[1].op, lit: t[1].lit})
}
