package faults

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/api/internal/apitest"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/queue"
)

// tables is a Table service with table People behind in, and the
// latencies in waited.
func tables(t *testing.T, rules []Rule, seed uint64) (api.Service, *[]time.Duration) {
	t.Helper()
	var waited []time.Duration
	in, err := New(rules, Options{Seed: seed, Sleep: func(d time.Duration) { waited = append(waited, d) }})
	if err != nil {
		t.Fatal(err)
	}
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: apitest.Anonymous()})
	apitest.Do(core, "POST", "/Tables", `{"TableName":"People"}`)
	return in.Wrap("table", core), &waited
}

func insert(s api.Service, rk int) *api.Response {
	return apitest.Do(s, "POST", "/People", fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%03d"}`, rk), "Prefer", "return-no-content")
}

// outcomes inserts n entities one after another and writes each answer's
// status as a letter: . for success, B busy, I internal, T timed out.
func outcomes(s api.Service, n int) string {
	var b strings.Builder
	for i := range n {
		switch r := insert(s, i); r.Status {
		case 204:
			b.WriteByte('.')
		case 503:
			b.WriteByte('B')
		default:
			if strings.Contains(string(r.Body), "OperationTimedOut") {
				b.WriteByte('T')
			} else {
				b.WriteByte('I')
			}
		}
	}
	return b.String()
}

// TestSeededAndReproducible checks that a seed decides which requests
// meet a fault, the same on every run, that the share follows the
// probability, and that another seed chooses others.
func TestSeededAndReproducible(t *testing.T) {
	rules := []Rule{{Service: "table", Operation: "InsertEntity", P: 0.3, Error: ServerBusy}}
	a, _ := tables(t, rules, 7)
	b, _ := tables(t, rules, 7)
	c, _ := tables(t, rules, 8)
	first, again, other := outcomes(a, 200), outcomes(b, 200), outcomes(c, 200)
	if first != again {
		t.Fatalf("seed 7 twice:\n%s\n%s", first, again)
	}
	if first == other {
		t.Fatalf("seeds 7 and 8 chose the same requests: %s", first)
	}
	if n := strings.Count(first, "B"); n < 35 || n > 85 {
		t.Fatalf("%d of 200 busy at p=0.3: %s", n, first)
	}
	if strings.Trim(first, ".B") != "" {
		t.Fatalf("other outcomes than success and busy: %s", first)
	}
}

// TestErrorsInTheServiceFormat checks each error's answer: status,
// reason, code and message in the Table service's JSON, the header that
// marks it, and that nothing was written (or, with after, that it was).
func TestErrorsInTheServiceFormat(t *testing.T) {
	for _, tc := range []struct {
		rule   Rule
		status int
		reason string
		code   string
		msg    string
	}{
		{Rule{Error: InternalError, P: 1}, 500, "", "InternalError", "The server encountered an internal error. Please retry the request."},
		{Rule{Error: ServerBusy, P: 1}, 503, "Server Busy", "ServerBusy", "The server is currently unable to receive requests. Please retry your request."},
		{Rule{Error: OperationTimedOut, P: 1}, 500, "Operation Timeout", "OperationTimedOut", "The operation could not be completed within the permitted time."},
	} {
		for _, after := range []bool{false, true} {
			r := tc.rule
			r.Operation, r.After = "InsertEntity", after
			s, _ := tables(t, []Rule{r}, 1)
			resp := insert(s, 1)
			want := `{"odata.error":{"code":"` + tc.code + `","message":{"lang":"en-US","value":"` + tc.msg + `\nRequestId:`
			if resp.Status != tc.status || resp.Reason != tc.reason || !strings.HasPrefix(string(resp.Body), want) {
				t.Errorf("%s: %d %q %s", tc.code, resp.Status, resp.Reason, resp.Body)
			}
			mark := tc.code
			if after {
				mark += " after"
			}
			if got := resp.Header.Get(Header); got != mark {
				t.Errorf("%s: %s %q, want %q", tc.code, Header, got, mark)
			}
			get := apitest.Do(s, "GET", "/People(PartitionKey='p',RowKey='001')", "")
			if written := get.Status == 200; written != after {
				t.Errorf("%s after=%v: the entity written is %v", tc.code, after, written)
			}
		}
	}
	s, _ := tables(t, []Rule{{Error: Drop, P: 1, Operation: "QueryEntity"}}, 1)
	if resp := apitest.Do(s, "GET", "/People(PartitionKey='p',RowKey='001')", ""); !resp.Drop || resp.Header.Get(Header) != "drop" {
		t.Errorf("drop: Drop %v, %s %q", resp.Drop, Header, resp.Header.Get(Header))
	}
}

// TestMatchingAndLatency checks the choice by operation (its name or
// method), resource and service, and that latencies of every firing rule
// add up before the request is served.
func TestMatchingAndLatency(t *testing.T) {
	s, waited := tables(t, []Rule{
		{Operation: "QueryEntities", Resource: "People", Latency: 200 * time.Millisecond, P: 1},
		{Operation: "get", Latency: 50 * time.Millisecond, P: 1},
		{Service: "queue", Error: ServerBusy, P: 1},
		{Resource: "Other", Error: InternalError, P: 1},
	}, 1)
	resp := apitest.Do(s, "GET", "/People()", "")
	if resp.Status != 200 || resp.Header.Get(Header) != "latency 250ms" || len(*waited) != 1 || (*waited)[0] != 250*time.Millisecond {
		t.Fatalf("query: %d %q, waited %v", resp.Status, resp.Header.Get(Header), *waited)
	}
	if resp := insert(s, 1); resp.Status != 204 || resp.Header.Has(Header) {
		t.Fatalf("an insert matched: %d %q", resp.Status, resp.Header.Get(Header))
	}
	if resp := apitest.Do(s, "GET", "/Other()", ""); resp.Status != 500 {
		t.Fatalf("resource Other: %d", resp.Status)
	}
	if resp := apitest.Do(s, "POST", "/Tables", `{"TableName":"Other"}`); resp.Status != 201 {
		t.Fatalf("create table (no resource in its path): %d %s", resp.Status, resp.Body)
	}
}

// TestOperationNames checks the names rules choose by, for each service.
func TestOperationNames(t *testing.T) {
	for _, tc := range []struct{ service, method, target, ifMatch, op, resource string }{
		{"table", "GET", "/Tables", "", "QueryTables", ""},
		{"table", "POST", "/Tables", "", "CreateTable", ""},
		{"table", "DELETE", "/Tables('t')", "", "DeleteTable", "t"},
		{"table", "GET", "/t()?$filter=x", "", "QueryEntities", "t"},
		{"table", "POST", "/t", "", "InsertEntity", "t"},
		{"table", "GET", "/t(PartitionKey='a',RowKey='b')", "", "QueryEntity", "t"},
		{"table", "PUT", "/t(PartitionKey='a',RowKey='b')", "*", "UpdateEntity", "t"},
		{"table", "PUT", "/t(PartitionKey='a',RowKey='b')", "", "InsertOrReplaceEntity", "t"},
		{"table", "PATCH", "/t(PartitionKey='a',RowKey='b')", "*", "MergeEntity", "t"},
		{"table", "PATCH", "/t(PartitionKey='a',RowKey='b')", "", "InsertOrMergeEntity", "t"},
		{"table", "DELETE", "/t(PartitionKey='a',RowKey='b')", "*", "DeleteEntity", "t"},
		{"table", "POST", "/$batch", "", "EntityGroupTransaction", ""},
		{"table", "GET", "/t?comp=acl", "", "GetTableACL", "t"},
		{"table", "PUT", "/?restype=service&comp=properties", "", "SetTableServiceProperties", ""},
		{"queue", "GET", "/?comp=list", "", "ListQueues", ""},
		{"queue", "PUT", "/jobs", "", "CreateQueue", "jobs"},
		{"queue", "POST", "/jobs/messages", "", "PutMessage", "jobs"},
		{"queue", "GET", "/jobs/messages?numofmessages=5", "", "GetMessages", "jobs"},
		{"queue", "GET", "/jobs/messages?peekonly=true", "", "PeekMessages", "jobs"},
		{"queue", "DELETE", "/jobs/messages/id?popreceipt=r", "", "DeleteMessage", "jobs"},
		{"queue", "PUT", "/jobs/messages/id?popreceipt=r", "", "UpdateMessage", "jobs"},
		{"blob", "PUT", "/box?restype=container", "", "CreateContainer", "box"},
		{"blob", "GET", "/box?restype=container&comp=list", "", "ListBlobs", "box"},
		{"blob", "PUT", "/box/a/b.txt", "", "PutBlob", "box"},
		{"blob", "PUT", "/box/a.txt?comp=block&blockid=x", "", "PutBlock", "box"},
		{"blob", "GET", "/box/a.txt", "", "GetBlob", "box"},
		{"blob", "HEAD", "/box/a.txt", "", "GetBlobProperties", "box"},
		{"blob", "POST", "/box/a.txt", "", "POST", "box"},
	} {
		r := &api.Request{Method: tc.method, Target: "/devstoreaccount1" + tc.target, Host: "127.0.0.1"}
		if tc.ifMatch != "" {
			r.Header.Set("If-Match", tc.ifMatch)
		}
		if op, res := Operation(tc.service, r); op != tc.op || res != tc.resource {
			t.Errorf("%s %s %s: %s %q, want %s %q", tc.service, tc.method, tc.target, op, res, tc.op, tc.resource)
		}
	}
}

// TestQueueAndBlobFaults checks that the other services answer a fault
// in their own XML error format.
func TestQueueAndBlobFaults(t *testing.T) {
	in, err := New([]Rule{{Service: "queue", Operation: "PutMessage", Error: ServerBusy, P: 1}, {Service: "blob", Operation: "GetBlob", Error: OperationTimedOut, P: 1}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	qsvc, _ := queue.New(engine.New(engine.Options{OpenKeys: true}))
	q := in.Wrap("queue", queueapi.NewServer(qsvc, queueapi.Options{Verifier: apitest.Anonymous()}))
	if r := apitest.Do(q, "PUT", "/jobs", ""); r.Status != 201 {
		t.Fatalf("create queue: %d", r.Status)
	}
	if r := apitest.Do(q, "POST", "/jobs/messages", "<QueueMessage><MessageText>x</MessageText></QueueMessage>"); r.Status != 503 || !strings.Contains(string(r.Body), "<Code>ServerBusy</Code><Message>The server is currently unable to receive requests. Please retry your request.\nRequestId:") {
		t.Fatalf("put message: %d %s", r.Status, r.Body)
	}
	bsvc, _ := blob.New(engine.New(engine.Options{OpenKeys: true}))
	b := in.Wrap("blob", blobapi.NewServer(bsvc, blobapi.Options{Verifier: apitest.Anonymous()}))
	apitest.Do(b, "PUT", "/box?restype=container", "")
	apitest.Do(b, "PUT", "/box/a.txt", "hi", "x-ms-blob-type", "BlockBlob")
	if r := apitest.Do(b, "GET", "/box/a.txt", ""); r.Status != 500 || !strings.Contains(string(r.Body), "<Code>OperationTimedOut</Code>") {
		t.Fatalf("get blob: %d %s", r.Status, r.Body)
	}
}

func TestParseRuleAndFile(t *testing.T) {
	r, err := ParseRule("service=table,op=InsertEntity,resource=orders,p=0.25,error=ServerBusy,latency=20ms,when=after")
	want := Rule{Service: "table", Operation: "InsertEntity", Resource: "orders", P: 0.25, Error: ServerBusy, Latency: 20 * time.Millisecond, After: true}
	if err != nil || r != want {
		t.Fatalf("%+v, %v", r, err)
	}
	if r, err := ParseRule("latency=1s"); err != nil || r.P != 1 {
		t.Fatalf("latency alone: %+v, %v", r, err)
	}
	for _, bad := range []string{"", "p=0.5", "error=Oops", "error=drop,p=0", "error=drop,p=1.5", "service=files,error=drop", "latency=soon", "error=drop,when=later", "latency=1s,when=after", "colour=red,error=drop", "error"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "faults.json")
	os.WriteFile(name, []byte(`{"seed": 42, "rules": [{"op": "InsertEntity", "p": 0.5, "error": "InternalError"}, {"service": "blob", "latency": "5ms"}]}`), 0o644)
	rules, seed, err := ReadFile(name)
	if err != nil || seed == nil || *seed != 42 || len(rules) != 2 || rules[0].P != 0.5 || rules[1].P != 1 || rules[1].Latency != 5*time.Millisecond {
		t.Fatalf("%+v %v %v", rules, seed, err)
	}
	os.WriteFile(name, []byte(`{"rules": [{"op": "InsertEntity", "eror": "InternalError"}]}`), 0o644)
	if _, _, err := ReadFile(name); err == nil {
		t.Error("a misspelt field: no error")
	}
	if _, err := New([]Rule{{Error: "nope", P: 1}}, Options{}); err == nil {
		t.Error("New took a bad rule")
	}
}
