package throttle

import (
	"fmt"
	"net/url"
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

// clock is a test's clock: it moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// tables returns the Table service of a store on c, held to targets,
// with a table People.
func tables(t *testing.T, c *clock, targets Targets) (api.Service, *Limiter) {
	t.Helper()
	store := engine.New(engine.Options{Now: c.now})
	if err := store.CreateTable("People"); err != nil {
		t.Fatal(err)
	}
	l := NewLimiter(targets, c.now)
	return l.Wrap(Table, api.NewServer(store, api.Options{Verifier: apitest.Anonymous()})), l
}

func insert(s api.Service, pk, rk string) *api.Response {
	return apitest.Do(s, "POST", "/People", `{"PartitionKey":"`+pk+`","RowKey":"`+rk+`"}`, "Prefer", "return-no-content")
}

// wantBusy checks resp is 503 ServerBusy with msg, in the Table
// service's JSON error format and with the service's reason phrase.
func wantBusy(t *testing.T, resp *api.Response, msg string) {
	t.Helper()
	want := `{"odata.error":{"code":"ServerBusy","message":{"lang":"en-US","value":"` + msg + `\nRequestId:`
	if resp.Status != 503 || resp.Reason != "Server Busy" || !strings.HasPrefix(string(resp.Body), want) {
		t.Fatalf("got %d %q %s, want 503 Server Busy %s", resp.Status, resp.Reason, resp.Body, msg)
	}
}

// TestPartitionTarget checks the partition's target: the writes of one
// second past it are refused with the service's message and applied
// nowhere, other partitions and the next second are not held back.
func TestPartitionTarget(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s, _ := tables(t, c, Targets{Partition: 3, Account: 100})
	for i := range 3 {
		if r := insert(s, "a", fmt.Sprint(i)); r.Status != 204 {
			t.Fatalf("write %d: %d %s", i, r.Status, r.Body)
		}
	}
	wantBusy(t, insert(s, "a", "3"), PartitionBusy)
	wantBusy(t, apitest.Do(s, "PUT", "/People(PartitionKey='a',RowKey='4')", `{}`), PartitionBusy)
	if r := apitest.Do(s, "GET", "/People(PartitionKey='a',RowKey='3')", ""); r.Status != 503 {
		t.Fatalf("a read of the busy partition: %d, want 503", r.Status)
	}
	if r := insert(s, "b", "0"); r.Status != 204 {
		t.Fatalf("another partition: %d %s", r.Status, r.Body)
	}
	c.t = c.t.Add(999 * time.Millisecond)
	wantBusy(t, insert(s, "a", "3"), PartitionBusy)
	c.t = c.t.Add(time.Millisecond)
	if r := insert(s, "a", "3"); r.Status != 204 {
		t.Fatalf("next second: %d %s", r.Status, r.Body)
	}
	// The refused writes did nothing.
	if r := apitest.Do(s, "GET", "/People(PartitionKey='a',RowKey='4')", ""); r.Status != 404 {
		t.Fatalf("a refused write is there: %d %s", r.Status, r.Body)
	}
}

// TestAccountTarget checks the account's target across partitions and
// its own message, and that a table is the same whatever its case.
func TestAccountTarget(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	s, _ := tables(t, c, Targets{Partition: 100, Account: 4})
	for i := range 3 {
		if r := insert(s, fmt.Sprint(i), "r"); r.Status != 204 {
			t.Fatal(r.Status)
		}
	}
	if r := apitest.Do(s, "GET", "/Tables", ""); r.Status != 200 {
		t.Fatalf("query tables (one operation): %d", r.Status)
	}
	wantBusy(t, insert(s, "9", "r"), AccountBusy)
	wantBusy(t, apitest.Do(s, "GET", "/Tables", ""), AccountBusy)
	c.t = c.t.Add(time.Second)
	if r := insert(s, "9", "r"); r.Status != 204 {
		t.Fatal(r.Status)
	}
	// "people" is People's partition 9 too.
	p, _ := tables(t, c, Targets{Partition: 1})
	insert(p, "x", "1")
	wantBusy(t, apitest.Do(p, "PUT", "/people(PartitionKey='x',RowKey='2')", `{}`), PartitionBusy)
}

// batch is a change set of n inserts into partition pk of People.
func batch(pk string, n int) (body, contentType string) {
	var b strings.Builder
	b.WriteString("--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_1\r\n\r\n")
	for i := range n {
		fmt.Fprintf(&b, "--changeset_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nPOST http://127.0.0.1:10002/devstoreaccount1/People HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n\r\n{\"PartitionKey\":\"%s\",\"RowKey\":\"%d\"}\r\n", pk, i)
	}
	b.WriteString("--changeset_1--\r\n--batch_1--\r\n")
	return b.String(), "multipart/mixed; boundary=batch_1"
}

// TestBatchesAndReads checks what counts: a batch its operations, a
// query the entities it examined (in its partition when its filter names
// one, else the account's alone), and a batch larger than the target is
// admitted when it is the partition's first of the second.
func TestBatchesAndReads(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	s, l := tables(t, c, Targets{Partition: 5, Account: 1000})
	body, ct := batch("a", 4)
	if r := apitest.Do(s, "POST", "/$batch", body, "Content-Type", ct); r.Status != 202 || strings.Contains(string(r.Body), "odata.error") {
		t.Fatalf("batch: %d %s", r.Status, r.Body)
	}
	if n := l.parts[partition("devstoreaccount1", "People", "a")]; n != 4 {
		t.Fatalf("a batch of 4 counted %d", n)
	}
	body, ct = batch("a", 2)
	wantBusy(t, apitest.Do(s, "POST", "/$batch", body, "Content-Type", ct), PartitionBusy)
	c.t = c.t.Add(time.Second)
	body, ct = batch("b", 8)
	if r := apitest.Do(s, "POST", "/$batch", body, "Content-Type", ct); r.Status != 202 || strings.Contains(string(r.Body), "odata.error") {
		t.Fatalf("a batch over the target, first of its second: %d %s", r.Status, r.Body)
	}
	c.t = c.t.Add(time.Second)
	if r := apitest.Do(s, "GET", "/People()?$filter="+url.QueryEscape("PartitionKey eq 'b'"), ""); r.Status != 200 {
		t.Fatalf("partition scan: %d %s", r.Status, r.Body)
	}
	if n := l.parts[partition("devstoreaccount1", "People", "b")]; n != 8 {
		t.Fatalf("a partition scan of 8 counted %d", n)
	}
	wantBusy(t, apitest.Do(s, "GET", "/People(PartitionKey='b',RowKey='1')", ""), PartitionBusy)
	if r := apitest.Do(s, "GET", "/People()", ""); r.Status != 200 {
		t.Fatalf("table scan: %d", r.Status)
	}
	if n := l.accounts["devstoreaccount1"]; n != 8+12 {
		t.Fatalf("account counted %d, want 20 (8, then a scan of 12)", n)
	}
	if r := insert(s, "a", "99"); r.Status != 204 {
		t.Fatalf("a table scan counted against partition a: %d", r.Status)
	}
}

// TestQueueAndBlob checks the Queue and Blob targets and their answers,
// in those services' XML error format.
func TestQueueAndBlob(t *testing.T) {
	c := &clock{time.Unix(1_800_000_000, 0)}
	l := NewLimiter(Targets{Queue: 3, Blob: 2, Account: 100}, c.now)
	qsvc, err := queue.New(engine.New(engine.Options{Now: c.now, OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	q := l.Wrap(Queue, queueapi.NewServer(qsvc, queueapi.Options{Verifier: apitest.Anonymous()}))
	if r := apitest.Do(q, "PUT", "/jobs", ""); r.Status != 201 {
		t.Fatalf("create queue: %d %s", r.Status, r.Body)
	}
	if r := apitest.Do(q, "POST", "/jobs/messages", "<QueueMessage><MessageText>x</MessageText></QueueMessage>"); r.Status != 201 {
		t.Fatalf("put: %d %s", r.Status, r.Body)
	}
	r := apitest.Do(q, "GET", "/jobs/messages?numofmessages=2", "")
	if r.Status != 503 || r.Reason != Reason || !strings.Contains(string(r.Body), "<Code>ServerBusy</Code><Message>The server is busy.\nRequestId:") {
		t.Fatalf("getting 2 more messages than 3: %d %q %s", r.Status, r.Reason, r.Body)
	}
	if r := apitest.Do(q, "GET", "/jobs/messages", ""); r.Status != 200 {
		t.Fatalf("getting one: %d %s", r.Status, r.Body)
	}

	bsvc, err := blob.New(engine.New(engine.Options{Now: c.now, OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	b := l.Wrap(Blob, blobapi.NewServer(bsvc, blobapi.Options{Verifier: apitest.Anonymous()}))
	if r := apitest.Do(b, "PUT", "/box?restype=container", ""); r.Status != 201 {
		t.Fatalf("create container: %d %s", r.Status, r.Body)
	}
	for i := range 2 {
		if r := apitest.Do(b, "PUT", "/box/a.txt", "hello", "x-ms-blob-type", "BlockBlob"); r.Status != 201 {
			t.Fatalf("put blob %d: %d %s", i, r.Status, r.Body)
		}
	}
	if r := apitest.Do(b, "GET", "/box/a.txt", ""); r.Status != 503 || !strings.Contains(string(r.Body), "<Code>ServerBusy</Code>") {
		t.Fatalf("third request for one blob: %d %s", r.Status, r.Body)
	}
	if r := apitest.Do(b, "PUT", "/box/b.txt", "hello", "x-ms-blob-type", "BlockBlob"); r.Status != 201 {
		t.Fatalf("another blob: %d %s", r.Status, r.Body)
	}
	// The account counts both services: three queue operations (create,
	// put, get one), four blob ones (create, two puts of a, one of b),
	// and the refused ones not at all.
	if n := l.accounts["devstoreaccount1"]; n != 7 {
		t.Fatalf("account counted %d, want 7", n)
	}
}

func TestParseTargets(t *testing.T) {
	for spec, want := range map[string]Targets{
		"azure":                          Azure,
		"partition=100":                  {100, 20000, 2000, 500},
		"partition=10, account=0,blob=1": {10, 0, 2000, 1},
		"queue=7":                        {2000, 20000, 7, 500},
	} {
		if got, err := ParseTargets(spec); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{"", "partition", "partition=-1", "rows=5", "partition=1x"} {
		if _, err := ParseTargets(spec); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
}
