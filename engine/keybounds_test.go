package engine

import (
	"slices"
	"testing"
)

// Every comparison on the keys, inclusive or not, returns exactly the
// entities a scan of the whole table would: the planner takes key
// conjuncts out of the residual filter, so the walk's bounds carry them.
func TestKeyBoundsMatchAFullScan(t *testing.T) {
	s := New(Options{})
	if err := s.CreateTable("bounds"); err != nil {
		t.Fatal(err)
	}
	keys := [][2]string{{"o", "z"}, {"p", "a"}, {"p", "b"}, {"p", "b0"}, {"p", "c"}, {"p0", "a"}, {"q", "a"}, {"q", "b"}}
	for _, k := range keys {
		if _, err := s.Write("bounds", Op{Kind: Insert, Entity: &Entity{PartitionKey: k[0], RowKey: k[1]}}); err != nil {
			t.Fatal(err)
		}
	}
	cmp := map[string]func(a, b string) bool{
		"eq": func(a, b string) bool { return a == b },
		"gt": func(a, b string) bool { return a > b },
		"ge": func(a, b string) bool { return a >= b },
		"lt": func(a, b string) bool { return a < b },
		"le": func(a, b string) bool { return a <= b },
	}
	for pop, pf := range cmp {
		for rop, rf := range cmp {
			for _, pv := range []string{"p", "q"} {
				for _, rv := range []string{"b", "a"} {
					for _, both := range []bool{false, true} {
						filter := "PartitionKey " + pop + " '" + pv + "'"
						if both {
							filter += " and RowKey " + rop + " '" + rv + "'"
						}
						var want, got []string
						for _, k := range keys {
							if pf(k[0], pv) && (!both || rf(k[1], rv)) {
								want = append(want, k[0]+"/"+k[1])
							}
						}
						page, err := s.Query("bounds", Query{Filter: filter})
						if err != nil {
							t.Fatal(filter, err)
						}
						for _, e := range page.Entities {
							got = append(got, e.PartitionKey+"/"+e.RowKey)
						}
						if !slices.Equal(got, want) {
							t.Errorf("%s: got %v, want %v (plan %s)", filter, got, want, page.Plan.Class)
						}
					}
				}
			}
		}
	}
}
