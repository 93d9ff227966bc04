package stores

import (
	"strings"
	"testing"
)

// TestCosmosStores: a store named with CosmosPrefix answers under the
// Cosmos DB for Table profile, any other as Table storage.
func TestCosmosStores(t *testing.T) {
	s := New(Options{Now: clock()})
	for _, tc := range []struct {
		store, plan string
		first       string // the RowKey answered first: by key, or last written
		upper       string // the status of creating "SHELF" beside "shelf"
	}{
		{"ex", "table-scan", "a", "409"},
		{CosmosPrefix + "ex", "index", "b", "201"},
	} {
		want(t, do(t, s, tc.store, "POST", "Tables", `{"TableName":"shelf"}`), "201")
		want(t, do(t, s, tc.store, "POST", "Tables", `{"TableName":"SHELF"}`), tc.upper)
		want(t, do(t, s, tc.store, "POST", "shelf", `{"PartitionKey":"p","RowKey":"b","N":1}`), "201")
		want(t, do(t, s, tc.store, "POST", "shelf", `{"PartitionKey":"p","RowKey":"a","N":1}`), "201")
		r := want(t, do(t, s, tc.store, "GET", "shelf()?$filter=N%20eq%201", ""), "200")
		if got := r.header("X-Tablelab-Plan"); got != tc.plan {
			t.Errorf("%s: plan %s, want %s", tc.store, got, tc.plan)
		}
		if !strings.HasPrefix(r.body, `{"value":[{"PartitionKey":"p","RowKey":"`+tc.first+`"`) {
			t.Errorf("%s: %s, want %s first", tc.store, r.body, tc.first)
		}
	}
}
