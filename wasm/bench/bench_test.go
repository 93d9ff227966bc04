package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/wasm/stores"
)

// The workload's lines as Go benchmarks, so that the native side can be
// profiled (go test -bench . -cpuprofile … ./wasm/bench): each runs its
// line's requests, in turn, against a store that the inserts and batches
// have filled as the command's pass fills it.

const benchN = 10000

// filled returns a set whose store "bench" holds the Bench table of n
// entities and an empty Batch table, and the SAS to sign requests with.
func filled(b *testing.B, n int) (*stores.Set, string) {
	b.Helper()
	set := stores.New(stores.Options{})
	sas := stores.SAS()
	for _, t := range []string{"Bench", "Batch"} {
		serveOK(b, set, Request("POST", "Tables", sas, `{"TableName":"`+t+`"}`, "application/json"))
	}
	insert := Lines(n)[0]
	for i := range n {
		method, target, body, ct := insert.Request(i)
		serveOK(b, set, Request(method, target, sas, body, ct))
	}
	return set, sas
}

func serveOK(b *testing.B, set *stores.Set, req string) string {
	resp := set.Serve("bench", req)
	if !strings.HasPrefix(resp, "HTTP/1.1 2") {
		status, _, _ := strings.Cut(resp, "\r\n")
		b.Fatalf("%.60q: %s", req, status)
	}
	return resp
}

// benchLine runs the named line's requests, cycling through them, b.N
// times in all. Writes get fresh keys: the insert line continues after
// the n entities filled, and the batches use the Batch table, which
// nothing else fills.
func benchLine(b *testing.B, name string) {
	set, sas := filled(b, benchN)
	var line Line
	for _, l := range Lines(benchN) {
		if l.Name == name {
			line = l
		}
	}
	ops := line.Ops
	if name == "insert" || name == "batch of 100 inserts" {
		ops = b.N
	}
	reqs := make([]string, min(ops, b.N))
	for i := range reqs {
		j := i
		if name == "insert" {
			j += benchN
		}
		method, target, body, ct := line.Request(j)
		reqs[i] = Request(method, target, sas, body, ct)
	}
	want := "\r\nX-Tablelab-Returned: " + strconv.Itoa(line.Returned) + "\r\n"
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		resp := serveOK(b, set, reqs[i%len(reqs)])
		if line.Returned > 0 && !strings.Contains(resp, want) {
			b.Fatalf("%s: not %d entities returned", name, line.Returned)
		}
	}
}

func BenchmarkInsert(b *testing.B)        { benchLine(b, "insert") }
func BenchmarkPointRead(b *testing.B)     { benchLine(b, "point read") }
func BenchmarkPartitionScan(b *testing.B) { benchLine(b, "partition scan (1,000)") }
func BenchmarkTableScan(b *testing.B)     { benchLine(b, "filtered table scan") }
func BenchmarkBatch(b *testing.B)         { benchLine(b, "batch of 100 inserts") }
