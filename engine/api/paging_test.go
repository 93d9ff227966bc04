package api

import (
	"net/url"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// TestOptionsPaging checks that Options.Paging reaches every query the
// server answers: a table scan's first page holds its first partition
// alone, an empty page still carries the continuation headers, and the
// pages together hold every match; without it one page holds them all.
func TestOptionsPaging(t *testing.T) {
	for _, paging := range []engine.Paging{{}, {PartitionBreaks: true}} {
		srv := NewServer(engine.New(engine.Options{}), Options{Verifier: &auth.Verifier{AllowAnonymous: true}, Paging: paging})
		c := &client{t: t, srv: srv}
		c.want(c.do("POST", "/Tables", `{"TableName":"people"}`), 201)
		for _, e := range []string{`"a","RowKey":"1","N":1`, `"a","RowKey":"2","N":2`, `"b","RowKey":"1","N":0`, `"c","RowKey":"1","N":3`} {
			c.want(c.do("POST", "/people", `{"PartitionKey":`+e+`}`, "Prefer", "return-no-content"), 204)
		}
		var bodies []string
		query := "/people()?$filter=" + url.QueryEscape("N gt 0")
		for range 10 {
			resp := c.want(c.do("GET", query, ""), 200)
			bodies = append(bodies, string(resp.Body))
			npk := resp.Header.Get("x-ms-continuation-NextPartitionKey")
			if npk == "" {
				break
			}
			query = "/people()?$filter=" + url.QueryEscape("N gt 0") + "&NextPartitionKey=" + url.QueryEscape(npk) + "&NextRowKey=" + url.QueryEscape(resp.Header.Get("x-ms-continuation-NextRowKey"))
		}
		all := strings.Join(bodies, "")
		if n := strings.Count(all, `"RowKey"`); n != 3 {
			t.Errorf("%+v: %d entities over the pages, want 3: %s", paging, n, all)
		}
		want := 1
		if paging.PartitionBreaks {
			want = 3 // a, then b with no match, then c
		}
		if len(bodies) != want {
			t.Errorf("%+v: %d pages, want %d: %q", paging, len(bodies), want, bodies)
		}
		if paging.PartitionBreaks && len(bodies) == 3 && (strings.Count(bodies[0], `"RowKey"`) != 2 || strings.Count(bodies[1], `"RowKey"`) != 0) {
			t.Errorf("pages %q: want a's two, then an empty one", bodies)
		}
	}
}
