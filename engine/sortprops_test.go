package engine

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestSortProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 7, 12, 13, 50, MaxProperties} {
		for round := range 20 {
			props := make([]Property, n)
			for i := range props {
				// Few distinct names in some rounds, so duplicates occur.
				name := "P" + strconv.Itoa(r.IntN(max(1, n*(round%3))+1))
				props[i] = Property{Name: name, Value: edm.Int32Value(int32(i))}
			}
			if round%5 == 0 {
				slices.SortFunc(props, func(a, b Property) int { return strings.Compare(b.Name, a.Name) })
			}
			want := slices.Clone(props)
			slices.SortStableFunc(want, func(a, b Property) int { return strings.Compare(a.Name, b.Name) })
			sortProperties(props)
			// Equal names keep the order they came in.
			if !slices.Equal(props, want) {
				t.Fatalf("%d properties, round %d: sorted to %v, want %v", n, round, props, want)
			}
		}
	}
}

func TestSortPropertiesLeavesTooManyAsTheyAre(t *testing.T) {
	props := make([]Property, MaxProperties+1)
	for i := range props {
		props[i] = Property{Name: "P" + strconv.Itoa(len(props)-i), Value: edm.BoolValue(true)}
	}
	want := slices.Clone(props)
	sortProperties(props)
	if !slices.Equal(props, want) {
		t.Fatal("an entity over the property limit was sorted")
	}
	s := newStore(t)
	e := &Entity{PartitionKey: "p", RowKey: "r", Properties: props}
	if _, err := s.Write("People", Op{Kind: Insert, Entity: e}); !svcerr.Is(err, svcerr.TooManyProperties) {
		t.Fatalf("got %v, want %s", err, svcerr.TooManyProperties)
	}
}
