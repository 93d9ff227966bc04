package apifasthttp

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/valyala/fasthttp"
)

// benchEntity is an entity the size of the load benchmark's (build/bench):
// about 1 KiB, nine properties.
func benchEntity(pk, rk string) string {
	return fmt.Sprintf(`{"PartitionKey":%q,"RowKey":%q,"Name":"Customer 1234","Email":"customer1234@example.com","Cat":34,"Score":234.5,"Active":true,"Big":"1234003702","Big@odata.type":"Edm.Int64","Notes":%q}`,
		pk, rk, strings.Repeat("lorem ipsum dolor ", 45))
}

// signedRequest sets up ctx's request as the load benchmark's client
// sends it: signed with SharedKeyLite by the development account.
func signedRequest(ctx *fasthttp.RequestCtx, method, target, body string, extra ...string) {
	path, _, _ := strings.Cut(target, "?")
	date := time.Now().UTC().Format(http.TimeFormat)
	r := &ctx.Request
	r.Header.DisableNormalizing()
	r.Header.SetMethod(method)
	r.SetRequestURI(target)
	r.Header.SetHost("127.0.0.1:10002")
	r.Header.Set("x-ms-date", date)
	r.Header.Set("x-ms-version", "2019-02-02")
	r.Header.Set("DataServiceVersion", "3.0")
	r.Header.Set("Accept", "application/json;odata=nometadata")
	r.Header.Set("Authorization", auth.SignSharedKeyLite(auth.DevAccountName, auth.DevAccount().Keys[0], date, path, ""))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(extra); i += 2 {
		r.Header.Set(extra[i], extra[i+1])
	}
	r.SetBodyString(body)
}

// BenchmarkFrontEnd is the local server's request path in process, from a
// parsed fasthttp request to the response fasthttp writes, for the two
// requests the load benchmark holds to the floor server (point read and
// insert at one connection): what tablelab's server does beyond the
// HTTP round trip. The store is in memory; the load benchmark's insert
// also waits for its write to be durable.
func BenchmarkFrontEnd(b *testing.B) {
	store := engine.New(engine.Options{})
	core := api.NewServer(store, api.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}})
	srv := NewServer(core, Config{}, nil)
	var ctx fasthttp.RequestCtx
	signedRequest(&ctx, "POST", "/devstoreaccount1/Tables", `{"TableName":"bench"}`)
	srv.Handler(&ctx)
	if got := ctx.Response.StatusCode(); got != 201 {
		b.Fatalf("create table: %d %s", got, ctx.Response.Body())
	}
	for i := range 1000 {
		ctx.Request.Reset()
		reset(&ctx)
		signedRequest(&ctx, "POST", "/devstoreaccount1/bench", benchEntity("p0001", fmt.Sprintf("r%07d", i)))
		srv.Handler(&ctx)
		if got := ctx.Response.StatusCode(); got != 201 {
			b.Fatalf("insert: %d %s", got, ctx.Response.Body())
		}
	}
	b.Run("point-read", func(b *testing.B) {
		var ctx fasthttp.RequestCtx
		signedRequest(&ctx, "GET", "/devstoreaccount1/bench(PartitionKey='p0001',RowKey='r0000500')", "")
		b.ReportAllocs()
		for b.Loop() {
			reset(&ctx)
			srv.Handler(&ctx)
			if got := ctx.Response.StatusCode(); got != 200 {
				b.Fatalf("point read: %d %s", got, ctx.Response.Body())
			}
		}
	})
	n := 0 // the last RowKey inserted, over every run of the sub-benchmark
	b.Run("insert", func(b *testing.B) {
		// One request, its body's RowKey rewritten in place: building a
		// request per insert would be the client's work.
		var ctx fasthttp.RequestCtx
		signedRequest(&ctx, "POST", "/devstoreaccount1/bench", benchEntity("ins", "k000000000"), "Prefer", "return-no-content")
		body := ctx.Request.Body()
		at := strings.Index(string(body), "k000000000") + 1
		b.ReportAllocs()
		for b.Loop() {
			n++
			copy(body[at:at+9], fmt.Appendf(nil, "%09d", n))
			reset(&ctx)
			srv.Handler(&ctx)
			if got := ctx.Response.StatusCode(); got != 204 {
				b.Fatalf("insert: %d %s", got, ctx.Response.Body())
			}
		}
	})
}

// reset readies ctx's response for the next request, as the server does
// (NewServer's keeps header names as the core spells them).
func reset(ctx *fasthttp.RequestCtx) {
	ctx.Response.Reset()
	ctx.Response.Header.DisableNormalizing()
}
