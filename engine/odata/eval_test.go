package odata

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// countingRec counts the property reads a filter makes.
type countingRec struct {
	rec
	reads map[string]int
}

func (r *countingRec) Property(name string) (edm.Value, bool) {
	r.reads[name]++
	return r.rec.Property(name)
}

// TestEvalFormMatchesTree checks that the form a filter is evaluated in
// answers as the parsed tree does, over random filters of ands, ors, nots
// and comparisons (runs of one property among them) and random records
// whose properties may be missing or of another type.
func TestEvalFormMatchesTree(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 3))
	names := []string{"A", "B", "Cat"}
	lits := []string{"3", "7", "3L", "7L", "5.5", "'m'", "'x'", "true", "datetime'2020-01-01T00:00:00Z'"}
	ops := []string{"eq", "ne", "gt", "ge", "lt", "le"}
	var expr func(depth int) string
	expr = func(depth int) string {
		cmp := func() string {
			return names[rnd.IntN(len(names))] + " " + ops[rnd.IntN(len(ops))] + " " + lits[rnd.IntN(len(lits))]
		}
		switch k := rnd.IntN(8); {
		case depth > 3 || k < 3:
			return cmp()
		case k == 3:
			// A run of comparisons of one property, as a range is.
			n := names[rnd.IntN(len(names))]
			return n + " ge " + lits[rnd.IntN(len(lits))] + " and " + n + " lt " + lits[rnd.IntN(len(lits))]
		case k == 4:
			return "not (" + expr(depth+1) + ")"
		case k == 5:
			return "(" + expr(depth+1) + ") or (" + expr(depth+1) + ")"
		}
		return expr(depth+1) + " and " + expr(depth+1)
	}
	values := []edm.Value{edm.Int32Value(3), edm.Int32Value(5), edm.Int64Value(3), edm.Int64Value(8),
		edm.DoubleValue(5.5), edm.StringValue("m"), edm.StringValue("q"), edm.BoolValue(true)}
	records := make([]rec, 40)
	for i := range records {
		records[i] = rec{}
		for _, n := range names {
			if rnd.IntN(4) > 0 {
				records[i][n] = values[rnd.IntN(len(values))]
			}
		}
	}
	matched := 0
	for range 500 {
		src := expr(0)
		f, err := Parse(src)
		if err != nil {
			if strings.Contains(err.Error(), "comparisons") {
				continue
			}
			t.Fatalf("%s: %v", src, err)
		}
		for _, r := range records {
			want := f.root.match(r)
			if got := f.Match(r); got != want {
				t.Fatalf("%s on %v: %v, the tree says %v", src, r, got, want)
			}
			if want {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Fatal("no filter matched any record: the test checks nothing")
	}
}

// TestRangeReadsOnce checks that a range on one property reads it once
// per entity, and that other conjuncts still read theirs.
func TestRangeReadsOnce(t *testing.T) {
	for filter, want := range map[string]map[string]int{
		"N ge 10 and N lt 20":                 {"N": 1},
		"N ge 10 and N lt 20 and N ne 15":     {"N": 2},
		"N ge 10 and Cat eq 'a' and N lt 20":  {"N": 2, "Cat": 1},
		"(N ge 10 and N lt 20) or N eq 99":    {"N": 1},
		"(N ge 30 and N lt 40) or N eq 99":    {"N": 2},
		"Cat eq 'a' and N gt 10 and N le 100": {"Cat": 1, "N": 1},
	} {
		f, err := Parse(filter)
		if err != nil {
			t.Fatal(err)
		}
		r := &countingRec{rec: rec{"N": edm.Int32Value(12), "Cat": edm.StringValue("a")}, reads: map[string]int{}}
		f.Match(r)
		for name, n := range want {
			if r.reads[name] != n {
				t.Errorf("%s: %s read %d times, want %d", filter, name, r.reads[name], n)
			}
		}
	}
	// The filter's text is the tree's, whatever form it is evaluated in.
	f, _ := Parse("N ge 10 and N lt 20")
	if got, want := f.String(), "(N ge 10 and N lt 20)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestIntRangeAgreesWithMatch checks that a filter IntRange accepts
// answers as Match does on every value of the range's kind, at and
// around the literals and the ends of both integer kinds, and that the
// shapes it must refuse are refused.
func TestIntRangeAgreesWithMatch(t *testing.T) {
	ops := []string{"eq", "ne", "gt", "ge", "lt", "le"}
	int32s := []string{"-2147483648", "-1", "0", "7", "2147483647"}
	int64s := []string{"-9223372036854775808L", "-1L", "0L", "7L", "9223372036854775807L"}
	// Each filter, and whether IntRange must take it: not when it has ne
	// (two intervals) or literals of two kinds.
	filters := map[string]bool{}
	for _, o1 := range ops {
		for _, l1 := range append(int32s, int64s...) {
			filters["N "+o1+" "+l1] = o1 != "ne"
			for _, o2 := range ops {
				for _, l2 := range int32s {
					filters["N "+o1+" "+l1+" and N "+o2+" "+l2] = o1 != "ne" && o2 != "ne" && !strings.HasSuffix(l1, "L")
				}
			}
		}
	}
	var values []edm.Value
	for _, x := range []int64{-2147483648, -2147483647, -2, -1, 0, 1, 6, 7, 8, 2147483646, 2147483647} {
		values = append(values, edm.Int32Value(int32(x)), edm.Int64Value(x))
	}
	for _, x := range []int64{-9223372036854775808, -9223372036854775807, 9223372036854775806, 9223372036854775807} {
		values = append(values, edm.Int64Value(x))
	}
	for src, want := range filters {
		f, err := Parse(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		r, ok := f.IntRange()
		if ok != want {
			t.Fatalf("%s: IntRange reports %v, want %v", src, ok, want)
		}
		if !ok {
			continue
		}
		for _, v := range values {
			if v.Kind() != r.Kind {
				continue
			}
			if got, want := r.Holds(v.Int()), f.Match(rec{"N": v}); got != want {
				t.Errorf("%s on %s %d: Holds says %v, Match %v", src, v.Kind(), v.Int(), got, want)
			}
		}
	}
	for _, src := range []string{"N ge 5 or N lt 2", "N ge 5 and M lt 9", "N ge 5.5", "N eq 'a'", "not (N eq 5)", "PartitionKey eq 'a'"} {
		f, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := f.IntRange(); ok {
			t.Errorf("%s: accepted as %+v", src, r)
		}
	}
}
