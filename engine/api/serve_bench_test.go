package api

import (
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
