package keyspace

import (
	"slices"
	"strings"
	"testing"
)

// TestOrder checks Less against the order of the keys themselves, for
// keys of every length class of their length prefix, settled or not.
func TestOrder(t *testing.T) {
	var keys []string
	for _, n := range []int{0, 1, 127, 128, 200} {
		keys = append(keys, strings.Repeat("k", n), strings.Repeat("k", n)+"a")
	}
	slices.Sort(keys)
	var items []Item
	for _, table := range []uint32{1, 2} {
		for _, pk := range keys {
			for _, rk := range keys {
				it := ItemOf(table, encode(1, pk, rk), pk, rk)
				if len(rk)%2 == 0 {
					it, _ = SettledAt(it, len(it.Enc), 1, 10)
				}
				items = append(items, it)
			}
		}
	}
	for i := range items {
		a := items[i]
		if i+1 < len(items) && !Less(a, items[i+1]) {
			t.Fatalf("%d: %d/%q/%q is not before the next", i, a.Table, a.PK(), a.RK())
		}
		if Less(a, a) {
			t.Fatalf("%d: an item is before itself", i)
		}
		if k := Key(a.Table, a.PK(), a.RK()); Less(k, a) || Less(a, k) {
			t.Fatalf("%d: the search key of %q/%q is not equal to it", i, a.PK(), a.RK())
		}
	}
}
