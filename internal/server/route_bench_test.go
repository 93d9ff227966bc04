//go:build !js

package server

import (
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// BenchmarkRouter answers a point read of the last of four accounts two
// ways in one run: by its core directly, as a server of one account
// does, and through the router over the four accounts' cores, as a
// server with -accounts does. The difference is what routing costs a
// request (docs/benchmarks.md).
func BenchmarkRouter(b *testing.B) {
	names := []string{auth.DevAccountName, "alice", "bob", "carol"}
	var cores []api.Service
	for _, name := range names {
		core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
		core.Serve(&api.Request{Method: "POST", Target: "/" + name + "/Tables", Host: "127.0.0.1", Body: []byte(`{"TableName":"tbl"}`)})
		core.Serve(&api.Request{Method: "POST", Target: "/" + name + "/tbl", Host: "127.0.0.1", Body: []byte(`{"PartitionKey":"p","RowKey":"r","A":1}`)})
		cores = append(cores, core)
	}
	for _, bc := range []struct {
		name string
		svc  api.Service
	}{{"core", cores[3]}, {"router", route(names, cores)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := &api.Request{Method: "GET", Target: "/carol/tbl(PartitionKey='p',RowKey='r')", Host: "127.0.0.1:10002"}
				if resp := bc.svc.Serve(r); resp.Status != 200 {
					b.Fatal(resp.Status)
				}
			}
		})
	}
}
