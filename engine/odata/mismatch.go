package odata

import (
	"strconv"

	"github.com/tablelab/tablelab/engine/edm"
)

// A comparison of a property with a literal of a type the property's
// values never have is the commonest silent mistake in a filter: Age gt
// '30' where Age is an Edm.Int32, Timestamp ge '2026-01-01' where a date
// needs datetime'…'. The service answers as if nothing matched (or, for
// ne, lt and le, as if everything did), and says nothing. A filter here
// records, as it is evaluated, what kinds of value each comparison met,
// so that a query can say so beside its result.

// met is what a comparison of one property with one literal met as it
// was evaluated: whether it met a value it could compare with the
// literal, and, of those it could not, their kinds (a bit each) and how
// many.
type met struct {
	fit   bool
	kinds uint16
	count int
}

// meet records a value of kind k, met by a comparison with a literal of
// kind lit. The path of every entity a scan tests goes through it, and a
// value of the literal's own kind, by far the commonest, costs a load and
// a branch, with a store only the first time.
func (m *met) meet(k, lit edm.Kind) {
	if k == lit {
		if !m.fit {
			m.fit = true
		}
		return
	}
	m.other(k, lit)
}

// other is meet for a value of another kind than the literal's.
func (m *met) other(k, lit edm.Kind) {
	if comparable(k, lit) {
		m.fit = true
		return
	}
	m.kinds |= 1 << k
	m.count++
}

// comparable reports whether a property of kind k is compared with a
// literal of kind lit by value, as compare does; every other pairing is
// "not comparable", false or true whatever the values.
func comparable(k, lit edm.Kind) bool {
	return k == lit || k == edm.Int64 && lit == edm.Int32 || k == edm.Double && (lit == edm.Int32 || lit == edm.Int64)
}

// A Mismatch is a comparison whose property had, on every entity the
// filter tested it on, a type that the comparison's literal cannot be
// compared with: the comparison decided nothing, and the filter likely
// does not say what was meant.
type Mismatch struct {
	// Property, Op and Literal are the comparison's, with the property
	// on the left (5 lt Age is Age gt 5).
	Property string
	Op       Op
	Literal  edm.Value
	// Kinds are the types the property had, in the Edm order.
	Kinds []edm.Kind
	// Count is how many entities the comparison was tested on that had
	// the property.
	Count int
}

// Mismatches returns the comparisons of the filter that were evaluated
// on entities having their property, but only ever on values of types
// their literal cannot be compared with, in the order they are written.
// It reports on the Match calls made so far.
func (f *Filter) Mismatches() []Mismatch {
	if f == nil {
		return nil
	}
	var out []Mismatch
	eachTest(f.eval, func(name string, m *met, t cmpTest) {
		out = m.mismatch(out, name, t)
	})
	return out
}

// eachTest calls fn for every comparison of a property with a literal
// under n, in the order they are written, with what it has met.
func eachTest(n node, fn func(name string, m *met, t cmpTest)) {
	switch n := n.(type) {
	case *andNode:
		eachTest(n.l, fn)
		eachTest(n.r, fn)
	case *orNode:
		eachTest(n.l, fn)
		eachTest(n.r, fn)
	case *notNode:
		eachTest(n.x, fn)
	case *cmpNode:
		fn(n.name, &n.met, cmpTest{n.op, n.lit})
	case *rangeNode:
		for i, t := range n.tests {
			fn(n.name, &n.met[i], t)
		}
	}
}

// mismatch appends the Mismatch of test t of property name, if what m
// met makes it one.
func (m *met) mismatch(out []Mismatch, name string, t cmpTest) []Mismatch {
	if m.fit || m.count == 0 {
		return out
	}
	var kinds []edm.Kind
	for k := edm.String; k <= edm.Binary; k++ {
		if m.kinds&(1<<k) != 0 {
			kinds = append(kinds, k)
		}
	}
	return append(out, Mismatch{Property: name, Op: t.op, Literal: t.lit, Kinds: kinds, Count: m.count})
}

// Saw records that the property name had a value of kind k on an entity
// tested without Match, as a scan tests an IntRange in line, so that
// Mismatches does not report a comparison that met a value it could
// compare.
func (f *Filter) Saw(name string, k edm.Kind) {
	eachTest(f.eval, func(n string, m *met, t cmpTest) {
		if n == name && comparable(k, t.lit.Kind()) {
			m.fit = true
		}
	})
}

// String says what the mismatch is, what the service made of it, and
// how the literal may be written instead, in one sentence without its
// period: "Age is Edm.Int32 on all 40 entities where the filter tested
// it, but Age gt 'x' compares it with an Edm.String literal: values of
// different types never compare, so the test was false for every one".
func (m Mismatch) String() string {
	b := make([]byte, 0, 200)
	b = append(b, m.Property...)
	b = append(b, " is "...)
	for i, k := range m.Kinds {
		switch {
		case i == 0:
		case i == len(m.Kinds)-1:
			b = append(b, " or "...)
		default:
			b = append(b, ", "...)
		}
		b = append(b, k.String()...)
	}
	if m.Count == 1 {
		b = append(b, " on the one entity where the filter tested it, but "...)
	} else {
		b = append(b, " on all "...)
		b = strconv.AppendInt(b, int64(m.Count), 10)
		b = append(b, " entities where the filter tested it, but "...)
	}
	lit := m.Literal.Literal()
	if len(lit) > 40 {
		lit = lit[:36] + "..." + lit[len(lit)-1:]
	}
	b = append(b, m.Property...)
	b = append(b, ' ')
	b = append(b, m.Op.String()...)
	b = append(b, ' ')
	b = append(b, lit...)
	b = append(b, " compares it with an "...)
	b = append(b, m.Literal.Kind().String()...)
	b = append(b, " literal: values of different types never compare, so the test was "...)
	if m.Op == Ne || m.Op == Lt || m.Op == Le {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	if m.Count == 1 {
		b = append(b, " for it"...)
	} else {
		b = append(b, " for every one"...)
	}
	if hint := m.hint(); hint != "" {
		b = append(b, " ("...)
		b = append(b, hint...)
		b = append(b, ')')
	}
	return string(b)
}

// hint says how the literal is written for the property's type, for the
// mistakes a learner makes most.
func (m Mismatch) hint() string {
	if len(m.Kinds) != 1 {
		return ""
	}
	k, lit := m.Kinds[0], m.Literal.Kind()
	switch {
	case lit == edm.String && k == edm.DateTime:
		return "a date is written datetime'2026-01-02T03:04:05Z'"
	case lit == edm.String && k == edm.Guid:
		return "a Guid is written guid'...'"
	case lit == edm.String && (k == edm.Int32 || k == edm.Int64 || k == edm.Double || k == edm.Boolean):
		return "a number or a Boolean is written without quotes"
	case k == edm.String && lit != edm.String:
		return "text is written in single quotes"
	case k == edm.Int32 && lit == edm.Int64:
		return "an Edm.Int32 is compared with a literal without the L"
	case (k == edm.Int32 || k == edm.Int64) && lit == edm.Double:
		return "a number with a decimal point or an exponent is an Edm.Double"
	}
	return ""
}
