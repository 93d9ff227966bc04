package api

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// newCosmosClient is newClient under the Cosmos DB for Table profile, on
// a store whose table names are case-sensitive, as the hosts make it.
func newCosmosClient(t *testing.T) *client {
	t.Helper()
	store := engine.New(engine.Options{CaseSensitiveTableNames: true})
	srv := NewServer(store, Options{Verifier: &auth.Verifier{AllowAnonymous: true}, Cosmos: true})
	c := &client{t: t, srv: srv}
	c.want(c.do("POST", "/Tables", `{"TableName":"people"}`), 201)
	return c
}

// rowKeys reads the RowKeys of a query's answer, in the order sent.
func rowKeys(t *testing.T, resp *Response) []string {
	t.Helper()
	var body struct{ Value []struct{ RowKey string } }
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		t.Fatalf("%s: %v", resp.Body, err)
	}
	var out []string
	for _, e := range body.Value {
		out = append(out, e.RowKey)
	}
	return out
}

func planOf(resp *Response) string {
	h := resp.Header
	return h.Get("X-Tablelab-Plan") + " " + h.Get("X-Tablelab-Examined") + "/" + h.Get("X-Tablelab-Returned")
}

// Each entity of the order tests is written in this order, and b again
// last: key order is a b c d, last-written order c a d b.
func writeOutOfOrder(c *client) {
	for _, rk := range []string{"c", "b", "a", "d"} {
		c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"`+rk+`","Color":"red"}`), 201)
	}
	c.want(c.do("PUT", "/people(PartitionKey='p',RowKey='b')", `{"Color":"blue"}`), 204)
}

func TestCosmosOrderIsLastWritten(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    *client
		want string
	}{
		{"Table storage", newClient(t), "a b c d"},
		{"Cosmos DB for Table", newCosmosClient(t), "c a d b"},
	} {
		writeOutOfOrder(tc.c)
		for _, target := range []string{"/people()", "/people()?$filter=PartitionKey%20eq%20'p'"} {
			got := strings.Join(rowKeys(t, tc.c.want(tc.c.do("GET", target, ""), 200)), " ")
			if got != tc.want {
				t.Errorf("%s: %s returned %s, want %s", tc.name, target, got, tc.want)
			}
		}
	}
	// A page is chosen by key, as the continuation needs, and then
	// ordered: the first page of two holds a and b, last written b.
	c := newCosmosClient(t)
	writeOutOfOrder(c)
	resp := c.want(c.do("GET", "/people()?$top=2", ""), 200)
	if got := strings.Join(rowKeys(t, resp), " "); got != "a b" {
		t.Errorf("first page of two: %s, want a b", got)
	}
	if next := resp.Header.Get("x-ms-continuation-NextRowKey"); next == "" {
		t.Error("first page of two: no continuation")
	}
}

func TestCosmosIndexAnswersFilters(t *testing.T) {
	table, cosmos := newClient(t), newCosmosClient(t)
	for _, c := range []*client{table, cosmos} {
		writeOutOfOrder(c)
		c.want(c.do("POST", "/people", `{"PartitionKey":"q","RowKey":"a","Color":"red"}`), 201)
	}
	for _, tc := range []struct{ filter, table, cosmos string }{
		// A filter on a property that is not a key: a scan there, the
		// index here.
		{"Color eq 'blue'", "table-scan 5/1", "index 1/1"},
		{"PartitionKey eq 'p' and Color eq 'red'", "partition-scan 4/3", "index 3/3"},
		// RowKey across partitions: indexed like any property.
		{"RowKey eq 'a'", "table-scan 5/2", "index 2/2"},
		// What the keys answer stays as it was.
		{"PartitionKey eq 'p' and RowKey eq 'b'", "point 1/1", "point 1/1"},
		{"PartitionKey eq 'p' and RowKey ge 'b'", "range 3/3", "range 3/3"},
		{"PartitionKey eq 'q'", "partition-scan 1/1", "partition-scan 1/1"},
		{"PartitionKey ge 'q'", "table-scan 1/1", "table-scan 1/1"},
		{"", "table-scan 5/5", "table-scan 5/5"},
	} {
		target := "/people()"
		if tc.filter != "" {
			target += "?$filter=" + strings.ReplaceAll(tc.filter, " ", "%20")
		}
		if got := planOf(table.want(table.do("GET", target, ""), 200)); got != tc.table {
			t.Errorf("Table storage, %q: %s, want %s", tc.filter, got, tc.table)
		}
		if got := planOf(cosmos.want(cosmos.do("GET", target, ""), 200)); got != tc.cosmos {
			t.Errorf("Cosmos DB for Table, %q: %s, want %s", tc.filter, got, tc.cosmos)
		}
	}
}

func TestCosmosRowKeyLimit(t *testing.T) {
	table, cosmos := newClient(t), newCosmosClient(t)
	at, over := strings.Repeat("k", MaxCosmosRowKeyBytes), strings.Repeat("k", MaxCosmosRowKeyBytes+1)
	// Bytes of UTF-8, not characters: 128 two-byte letters are 256 bytes.
	wide := strings.Repeat("é", 128)
	for _, rk := range []string{at, over, wide} {
		table.want(table.do("POST", "/people", `{"PartitionKey":"p","RowKey":"`+rk+`"}`), 201)
	}
	cosmos.want(cosmos.do("POST", "/people", `{"PartitionKey":"p","RowKey":"`+at+`"}`), 201)
	for _, rk := range []string{over, wide} {
		cosmos.wantError(cosmos.do("POST", "/people", `{"PartitionKey":"p","RowKey":"`+rk+`"}`), 400, "PropertyValueTooLarge")
	}
	cosmos.wantError(cosmos.do("PUT", "/people(PartitionKey='p',RowKey='"+over+"')", `{}`), 400, "PropertyValueTooLarge")
	cosmos.wantError(cosmos.do("MERGE", "/people(PartitionKey='p',RowKey='"+over+"')", `{}`), 400, "PropertyValueTooLarge")
	resp := cosmos.want(cosmos.do("POST", "/$batch", batchRaw("POST http://127.0.0.1:10002/devstoreaccount1/people HTTP/1.1\r\nContent-Type: application/json\r\n\r\n"+
		`{"PartitionKey":"p","RowKey":"`+over+`"}`), "Content-Type", "multipart/mixed; boundary=b"), 202)
	if body := string(resp.Body); !strings.Contains(body, "HTTP/1.1 400") || !strings.Contains(body, "PropertyValueTooLarge") || !strings.Contains(body, "at most 255 bytes") {
		t.Errorf("a batch insert with a long RowKey:\n%s", body)
	}
	if got := planOf(cosmos.want(cosmos.do("GET", "/people()", ""), 200)); got != "table-scan 1/1" {
		t.Errorf("after the refusals the table holds %s, want the one entity at the limit", got)
	}
}

// bigBatch is a batch of n inserts into partition p, each with a string
// property of size characters.
func bigBatch(n, size int) string {
	var b strings.Builder
	b.WriteString("--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n")
	for i := range n {
		b.WriteString("--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString("POST http://127.0.0.1:10002/devstoreaccount1/people HTTP/1.1\r\nContent-Type: application/json\r\n\r\n")
		b.WriteString(`{"PartitionKey":"p","RowKey":"` + strconv.Itoa(i) + `","A":"` + strings.Repeat("x", size) + `","B":"` + strings.Repeat("y", size) + `"}` + "\r\n")
	}
	b.WriteString("--cs--\r\n--b--\r\n")
	return b.String()
}

func TestCosmosBatchLimit(t *testing.T) {
	small, big := bigBatch(30, 30000), bigBatch(40, 30000) // about 1.8 and 2.4 MB
	if len(small) > MaxCosmosBatchBytes || len(big) <= MaxCosmosBatchBytes || len(big) > MaxBodyBytes {
		t.Fatalf("batch sizes %d and %d do not straddle the limit", len(small), len(big))
	}
	table, cosmos := newClient(t), newCosmosClient(t)
	resp := table.want(table.do("POST", "/$batch", big, "Content-Type", "multipart/mixed; boundary=b"), 202)
	if strings.Count(string(resp.Body), "HTTP/1.1 201") != 40 {
		t.Fatal("Table storage refused the 2.4 MB batch")
	}
	cosmos.wantError(cosmos.do("POST", "/$batch", big, "Content-Type", "multipart/mixed; boundary=b"), 400, "InvalidInput")
	resp = cosmos.want(cosmos.do("POST", "/$batch", small, "Content-Type", "multipart/mixed; boundary=b"), 202)
	if strings.Count(string(resp.Body), "HTTP/1.1 201") != 30 {
		t.Fatalf("the 1.8 MB batch under Cosmos: %.300s", resp.Body)
	}
}

func TestCosmosTableNamesAreCaseSensitive(t *testing.T) {
	c := newCosmosClient(t)
	c.want(c.do("POST", "/Tables", `{"TableName":"People"}`), 201)
	c.want(c.do("POST", "/People", `{"PartitionKey":"p","RowKey":"upper"}`), 201)
	c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"lower"}`), 201)
	if got := rowKeys(t, c.want(c.do("GET", "/People()", ""), 200)); len(got) != 1 || got[0] != "upper" {
		t.Errorf("People holds %v", got)
	}
	c.wantError(c.do("GET", "/PEOPLE()", ""), 404, "TableNotFound")
	c.want(c.do("GET", "/Tables('People')", ""), 200)
	c.wantError(c.do("GET", "/Tables('PEOPLE')", ""), 404, "ResourceNotFound")
	// One batch, two tables that differ only by case: refused.
	two := "--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n" +
		"--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"POST http://127.0.0.1:10002/devstoreaccount1/people HTTP/1.1\r\nContent-Type: application/json\r\n\r\n" +
		`{"PartitionKey":"p","RowKey":"1"}` + "\r\n" +
		"--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"POST http://127.0.0.1:10002/devstoreaccount1/People HTTP/1.1\r\nContent-Type: application/json\r\n\r\n" +
		`{"PartitionKey":"p","RowKey":"2"}` + "\r\n" +
		"--cs--\r\n--b--\r\n"
	resp := c.want(c.do("POST", "/$batch", two, "Content-Type", "multipart/mixed; boundary=b"), 202)
	if body := string(resp.Body); !strings.Contains(body, "HTTP/1.1 400") || !strings.Contains(body, "same table") {
		t.Errorf("a batch over People and people:\n%s", body)
	}
	// Table storage: the same batch addresses one table.
	ts := newClient(t)
	resp = ts.want(ts.do("POST", "/$batch", two, "Content-Type", "multipart/mixed; boundary=b"), 202)
	if strings.Count(string(resp.Body), "HTTP/1.1 201") != 2 {
		t.Errorf("Table storage, a batch over People and people:\n%s", resp.Body)
	}
}
