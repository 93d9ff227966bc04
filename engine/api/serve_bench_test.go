package api

import (
	"fmt"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

func BenchmarkServeGetEntity(b *testing.B) {
	srv := NewServer(engine.New(engine.Options{}), Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	srv.Serve(&Request{Method: "POST", Target: "/devstoreaccount1/Tables", Host: "127.0.0.1", Body: []byte(`{"TableName":"tbl"}`)})
	srv.Serve(&Request{Method: "POST", Target: "/devstoreaccount1/tbl", Host: "127.0.0.1", Body: []byte(`{"PartitionKey":"p","RowKey":"r","A":1}`)})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := &Request{Method: "GET", Target: "/devstoreaccount1/tbl(PartitionKey='p',RowKey='r')", Host: "127.0.0.1:10002"}
		if resp := srv.Serve(r); resp.Status != 200 {
			b.Fatal(resp.Status)
		}
	}
}

// BenchmarkServeQuery answers a page of a partition scan that a filter
// on a property thins (most entities decided without a visit) and a page
// of a table scan that returns everything (every entity visited): the
// query path Options.Paging adds its checks to.
func BenchmarkServeQuery(b *testing.B) {
	srv := NewServer(engine.New(engine.Options{}), Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	srv.Serve(&Request{Method: "POST", Target: "/devstoreaccount1/Tables", Host: "127.0.0.1", Body: []byte(`{"TableName":"tbl"}`)})
	for i := range 1000 {
		body := fmt.Sprintf(`{"PartitionKey":"p%d","RowKey":"%04d","City":"%s"}`, i%10, i, []string{"Leeds", "York"}[min(i%50, 1)])
		srv.Serve(&Request{Method: "POST", Target: "/devstoreaccount1/tbl", Host: "127.0.0.1", Body: []byte(body)})
	}
	for _, bc := range []struct{ name, target string }{
		{"partition-scan", "/devstoreaccount1/tbl()?$filter=PartitionKey%20eq%20'p0'%20and%20City%20eq%20'Leeds'"},
		{"table-scan", "/devstoreaccount1/tbl()"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if resp := srv.Serve(&Request{Method: "GET", Target: bc.target, Host: "127.0.0.1:10002"}); resp.Status != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
