package engine

import (
	"strconv"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// TestPageEntitiesStandAlone checks a page whose entities and properties
// are cut from shared arrays: over a thousand entities of 0 to 40
// properties, crossing every array's end, each comes back as written,
// sorted, and growing one entity's properties leaves its neighbours as
// they were.
func TestPageEntitiesStandAlone(t *testing.T) {
	s := newStore(t)
	want := map[string]*Entity{}
	for i := range 1000 {
		rk := strconv.Itoa(10000 + i)
		e := &Entity{PartitionKey: "p", RowKey: rk}
		for j := range i % 41 {
			e.Properties = append(e.Properties, Property{Name: "P" + strconv.Itoa(100+j), Value: edm.Int32Value(int32(i*100 + j))})
		}
		if _, err := s.Write("People", Op{Kind: Insert, Entity: e}); err != nil {
			t.Fatal(err)
		}
		want[rk] = e
	}
	pg, err := s.Query("People", Query{Filter: "PartitionKey eq 'p'"})
	if err != nil || len(pg.Entities) != 1000 {
		t.Fatalf("%d entities, %v", len(pg.Entities), err)
	}
	check := func() {
		t.Helper()
		for _, got := range pg.Entities {
			w := want[got.RowKey]
			if got.PartitionKey != "p" || got.Timestamp != w.Timestamp || len(got.Properties) != len(w.Properties) {
				t.Fatalf("%s: %+v, want %+v", got.RowKey, got, w)
			}
			for j, p := range got.Properties {
				if p.Name != w.Properties[j].Name || !edm.Equal(p.Value, w.Properties[j].Value) {
					t.Fatalf("%s: property %d is %v, want %v", got.RowKey, j, p, w.Properties[j])
				}
			}
		}
	}
	check()
	for _, e := range pg.Entities {
		e.Properties = append(e.Properties, Property{Name: "Z", Value: edm.BoolValue(true)})
	}
	for _, e := range pg.Entities {
		e.Properties = e.Properties[:len(e.Properties)-1]
	}
	check()
}
