// Command bench runs the wasm benchmark's workload inside Go: the same
// program built natively and for GOOS=js (run under Node) gives the two
// columns that say what WebAssembly costs the engine, and
// build/wasm/js/bench.mjs runs the same requests through the JavaScript
// bridge for the third. `go run ./build wasm -bench` runs all three.
//
// Every request is raw HTTP/1.1 text answered by wasm/stores, as in the
// browser: the lines are inserts, point reads, partition scans (a
// partition of 1,000 entities), filtered table scans (every entity
// examined, 10 returned) and 100-operation batches. It prints one line per
// workload line: name, operations, nanoseconds of CPU time per operation
// (the process's, so that the other work of a shared machine counts
// less).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/wasm/bench/cpuclock"
	"github.com/tablelab/tablelab/wasm/stores"
)

func main() {
	n := flag.Int("n", 10000, "entities inserted one by one, and as many again in batches")
	flag.Parse()
	if err := run(*n); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(n int) error {
	set := stores.New(stores.Options{})
	// A first pass over a smaller store of its own lets the runtime warm
	// up (V8 compiles hot wasm functions again, optimised, in the
	// background, on the process's CPU time) before the measured pass.
	if err := pass(set, "warm-up", max(n/5, 1000), io.Discard); err != nil {
		return err
	}
	return pass(set, "bench", n, os.Stdout)
}

// pass runs the workload for n entities on the named store and prints
// its lines to out.
func pass(set *stores.Set, store string, n int, out io.Writer) error {
	sas := stores.SAS()
	serve := func(method, target, body, contentType string) (string, error) {
		resp := set.Serve(store, Request(method, target, sas, body, contentType))
		if !strings.HasPrefix(resp, "HTTP/1.1 2") {
			line, _, _ := strings.Cut(resp, "\r\n")
			return "", fmt.Errorf("%s %s: %s", method, target, line)
		}
		return resp, nil
	}
	for _, t := range []string{"Bench", "Batch"} {
		if _, err := serve("POST", "Tables", `{"TableName":"`+t+`"}`, "application/json"); err != nil {
			return err
		}
	}
	for _, line := range Lines(n) {
		// The requests are made before the clock starts, here and in
		// bench.mjs: the columns compare serving them.
		reqs := make([]string, line.Ops)
		for i := range reqs {
			method, target, body, ct := line.Request(i)
			reqs[i] = Request(method, target, sas, body, ct)
		}
		want := "\r\nX-Tablelab-Returned: " + strconv.Itoa(line.Returned) + "\r\n"
		start := cpuclock.Now()
		for _, req := range reqs {
			resp := set.Serve(store, req)
			if !strings.HasPrefix(resp, "HTTP/1.1 2") {
				status, _, _ := strings.Cut(resp, "\r\n")
				return fmt.Errorf("%s: %s", line.Name, status)
			}
			if line.Returned > 0 && !strings.Contains(resp, want) {
				return fmt.Errorf("%s: not %d entities returned", line.Name, line.Returned)
			}
		}
		elapsed := cpuclock.Now() - start
		fmt.Fprintf(out, "%s\t%d\t%d\n", line.Name, line.Ops, elapsed.Nanoseconds()/int64(line.Ops))
	}
	return nil
}

// A Line is one workload line: Ops requests, the i-th made by Request.
type Line struct {
	Name     string
	Ops      int
	Returned int // entities each query must return; 0 for writes
	Request  func(i int) (method, target, body, contentType string)
}

// partitionSize is the entities of one partition in the Bench table.
const partitionSize = 1000

// Lines is the workload for n entities. build/wasm/js/bench.mjs makes the
// same requests.
func Lines(n int) []Line {
	repeat := max(n/100, 4)
	return []Line{
		{Name: "insert", Ops: n, Request: func(i int) (string, string, string, string) {
			return "POST", "Bench", entity(i), "application/json"
		}},
		{Name: "point read", Ops: n, Returned: 1, Request: func(i int) (string, string, string, string) {
			j := i * 7919 % n
			return "GET", "Bench(PartitionKey='" + pk(j) + "',RowKey='" + rk(j) + "')", "", ""
		}},
		{Name: "partition scan (1,000)", Ops: repeat, Returned: min(n, partitionSize), Request: func(i int) (string, string, string, string) {
			return "GET", "Bench()?$filter=" + escape("PartitionKey eq '"+pk(i%max(n/partitionSize, 1)*partitionSize)+"'"), "", ""
		}},
		{Name: "filtered table scan", Ops: repeat, Returned: 10, Request: func(i int) (string, string, string, string) {
			lo := i * 37 % (n - 10)
			return "GET", "Bench()?$filter=" + escape("N ge "+strconv.Itoa(lo)+" and N lt "+strconv.Itoa(lo+10)), "", ""
		}},
		{Name: "batch of 100 inserts", Ops: n / 100, Request: func(i int) (string, string, string, string) {
			return "POST", "$batch", batch(i), "multipart/mixed; boundary=batch_b"
		}},
	}
}

func pk(i int) string { return fmt.Sprintf("p%04d", i/partitionSize) }
func rk(i int) string { return fmt.Sprintf("%07d", i) }

func entity(i int) string {
	return fmt.Sprintf(`{"PartitionKey":"%s","RowKey":"%s","N":%d,"Name":"customer %d","Amount":%d.5,"Active":true}`, pk(i), rk(i), i, i, i)
}

// batch is the body of the i-th batch: 100 inserts into one partition of
// the Batch table.
func batch(i int) string {
	var b strings.Builder
	b.WriteString("--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n")
	for j := range 100 {
		b.WriteString("--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString("POST http://127.0.0.1:10002/devstoreaccount1/Batch HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n\r\n")
		b.WriteString(entity(i*100 + j))
		b.WriteString("\r\n")
	}
	b.WriteString("--changeset_c--\r\n--batch_b--\r\n")
	return b.String()
}

// escape percent-encodes a $filter for a request target.
func escape(s string) string {
	return strings.NewReplacer(" ", "%20", "'", "%27").Replace(s)
}

// Request is the raw text of a request to the development account, signed
// with sas.
func Request(method, target, sas, body, contentType string) string {
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	var b strings.Builder
	b.WriteString(method + " /devstoreaccount1/" + target + sep + sas + " HTTP/1.1\r\n")
	b.WriteString("Host: 127.0.0.1:10002\r\nAccept: application/json;odata=nometadata\r\nx-ms-version: 2019-02-02\r\n")
	if contentType != "" {
		b.WriteString("Content-Type: " + contentType + "\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	return b.String()
}
