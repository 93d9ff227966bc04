package stores

import (
	"fmt"
	"strings"
	"testing"
)

// fill gives the named store a table of n entities, a queue with a
// message and a container with a blob.
func fill(t testing.TB, s *Set, store string, n int) {
	t.Helper()
	ok := func(r response, status string) {
		t.Helper()
		if !strings.HasPrefix(r.status, "HTTP/1.1 "+status+" ") {
			t.Fatalf("%s %s", r.status, r.body)
		}
	}
	ok(sendT(t, s, store, "POST", "Tables", "127.0.0.1:10002", []byte(`{"TableName":"Orders"}`)), "201")
	for i := range n {
		ok(sendT(t, s, store, "POST", "Orders", "127.0.0.1:10002", fmt.Appendf(nil, `{"PartitionKey":"p%d","RowKey":"%05d","N":%d}`, i%10, i, i)), "201")
	}
	ok(sendT(t, s, store, "PUT", "jobs", queueHost, nil), "201")
	ok(sendT(t, s, store, "POST", "jobs/messages", queueHost, []byte("<QueueMessage><MessageText>first</MessageText></QueueMessage>")), "201")
	ok(sendT(t, s, store, "PUT", "photos?restype=container", blobHost, nil), "201")
	ok(sendT(t, s, store, "PUT", "photos/a.txt", blobHost, []byte("alpha"), "x-ms-blob-type: BlockBlob"), "201")
}

// sendT is send for a test or a benchmark, with a JSON body's headers.
func sendT(t testing.TB, s *Set, store, method, target, host string, body []byte, headers ...string) response {
	t.Helper()
	if host == "127.0.0.1:10002" {
		headers = append(headers, "Content-Type: application/json", "Accept: application/json;odata=nometadata")
	}
	return sendTB(t, s, store, method, target, host, body, headers...)
}

// TestClone copies the persistent store into one in memory: the copy
// holds the same entities (ETags too), queues and blobs, and from then
// on a write to either shows in it alone, in each service; the copy
// writes nothing to the persistent store's media.
func TestClone(t *testing.T) {
	r := &reloads{}
	s := New(Options{Persistent: "playground", OpenMedium: r.open, Now: clock()})
	fill(t, s, "playground", 30)
	if err := s.Advance("playground", 3600e9); err != nil {
		t.Fatal(err)
	}
	if err := s.Clone("playground", "scratch"); err != nil {
		t.Fatal(err)
	}
	get := func(store, target, host string) response {
		t.Helper()
		return want(t, sendT(t, s, store, "GET", target, host, nil), "200")
	}
	for _, c := range []struct{ target, host string }{
		{"Orders(PartitionKey='p3',RowKey='00013')", "127.0.0.1:10002"},
		{"Orders()", "127.0.0.1:10002"},
		{"jobs/messages?peekonly=true", queueHost},
		{"photos/a.txt", blobHost},
	} {
		a, b := get("playground", c.target, c.host), get("scratch", c.target, c.host)
		if a.body != b.body || a.header("ETag") != b.header("ETag") {
			t.Fatalf("%s: the copy answers\n%s %s\nthe source\n%s %s", c.target, b.header("ETag"), b.body, a.header("ETag"), a.body)
		}
	}
	records := [3]int{}
	for svc := range records {
		records[svc] = r.current(Service(svc)).Records()
	}
	// Writes to the copy, in each service.
	want(t, sendT(t, s, "scratch", "PUT", "Orders(PartitionKey='p3',RowKey='00013')", "127.0.0.1:10002", []byte(`{"N":-1}`)), "204")
	want(t, sendT(t, s, "scratch", "POST", "Tables", "127.0.0.1:10002", []byte(`{"TableName":"Fresh"}`)), "201")
	want(t, sendT(t, s, "scratch", "DELETE", "jobs/messages", queueHost, nil), "204")
	want(t, sendT(t, s, "scratch", "PUT", "photos/a.txt", blobHost, []byte("changed"), "x-ms-blob-type: BlockBlob"), "201")
	for svc := range records {
		if n := r.current(Service(svc)).Records(); n != records[svc] {
			t.Fatalf("writes to the copy wrote %d records to the %v service's medium", n-records[svc], Service(svc))
		}
	}
	if got := get("playground", "Orders(PartitionKey='p3',RowKey='00013')", "127.0.0.1:10002").body; !strings.Contains(got, `"N":13`) {
		t.Fatalf("a write to the copy showed in its source: %s", got)
	}
	want(t, sendT(t, s, "playground", "GET", "Fresh()", "127.0.0.1:10002", nil), "404")
	if got := get("playground", "jobs/messages?peekonly=true", queueHost).body; !strings.Contains(got, "first") {
		t.Fatalf("a cleared queue of the copy cleared its source's: %s", got)
	}
	if got := get("playground", "photos/a.txt", blobHost).body; got != "alpha" {
		t.Fatalf("the source's blob reads %q", got)
	}
	// Writes to the source.
	want(t, sendT(t, s, "playground", "DELETE", "Orders(PartitionKey='p0',RowKey='00000')", "127.0.0.1:10002", nil, "If-Match: *"), "204")
	want(t, sendT(t, s, "playground", "POST", "jobs/messages", queueHost, []byte("<QueueMessage><MessageText>second</MessageText></QueueMessage>")), "201")
	want(t, sendT(t, s, "playground", "DELETE", "photos/a.txt", blobHost, nil), "202")
	get("scratch", "Orders(PartitionKey='p0',RowKey='00000')", "127.0.0.1:10002")
	if got := get("scratch", "jobs/messages?peekonly=true&numofmessages=32", queueHost).body; strings.Contains(got, "MessageText") {
		t.Fatalf("a message put in the source showed in its copy: %s", got)
	}
	if got := get("scratch", "photos/a.txt", blobHost).body; got != "changed" {
		t.Fatalf("the copy's blob reads %q", got)
	}

	// A clone replaces a store of the target's name.
	want(t, sendT(t, s, "other", "POST", "Tables", "127.0.0.1:10002", []byte(`{"TableName":"Mine"}`)), "201")
	if err := s.Clone("scratch", "other"); err != nil {
		t.Fatal(err)
	}
	want(t, sendT(t, s, "other", "GET", "Mine()", "127.0.0.1:10002", nil), "404")
	want(t, sendT(t, s, "other", "GET", "Fresh()", "127.0.0.1:10002", nil), "200")

	// The persistent store is never a clone's target.
	before := get("playground", "Orders()", "127.0.0.1:10002").body
	err := s.Clone("other", "playground")
	if err == nil || !strings.Contains(err.Error(), `"playground" is the persistent one`) {
		t.Fatalf("a clone into the persistent store: %v", err)
	}
	if get("playground", "Orders()", "127.0.0.1:10002").body != before {
		t.Fatal("a refused clone changed the persistent store")
	}
	// Into itself, nothing changes.
	if err := s.Clone("other", "other"); err != nil {
		t.Fatal(err)
	}
	want(t, sendT(t, s, "other", "GET", "Fresh()", "127.0.0.1:10002", nil), "200")
}

// TestCloneCosmos copies a store into one under the Cosmos DB for Table
// profile, whose table names differ by case, and refuses the way back
// when two names would become one.
func TestCloneCosmos(t *testing.T) {
	s := New(Options{Now: clock()})
	fill(t, s, "a", 3)
	if err := s.Clone("a", "cosmos:a"); err != nil {
		t.Fatal(err)
	}
	want(t, sendT(t, s, "cosmos:a", "POST", "Tables", "127.0.0.1:10002", []byte(`{"TableName":"orders"}`)), "201")
	want(t, sendT(t, s, "cosmos:a", "GET", "Orders()", "127.0.0.1:10002", nil), "200")
	err := s.Clone("cosmos:a", "b")
	if err == nil || !strings.Contains(err.Error(), "differ only by case") {
		t.Fatalf("a clone of tables Orders and orders into a store that ignores case: %v", err)
	}
}

// TestReplace replaces the persistent store's tables by an export's: the
// old tables go and the new come as one record, whole or not at all when
// the log is torn; queues and blobs stay; a text with anything wrong
// changes nothing and says where it is wrong.
func TestReplace(t *testing.T) {
	r := &reloads{}
	now := clock()
	s := New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	fill(t, s, "playground", 5)
	want(t, sendT(t, s, "playground", "POST", "Tables", "127.0.0.1:10002", []byte(`{"TableName":"Old"}`)), "201")
	text := `{"tablelab":"export/1","tables":[` + "\n" +
		`{"name":"Orders","entities":[{"PartitionKey":"x","RowKey":"1","N":100}]},` + "\n" +
		`{"name":"New","entities":[{"PartitionKey":"x","RowKey":"1"},{"PartitionKey":"x","RowKey":"2"}]}]}`
	bad := strings.Replace(text, `"RowKey":"2"`, `"RowKey":"2/3"`, 1)
	tables := func(s *Set) string {
		t.Helper()
		return want(t, sendT(t, s, "playground", "GET", "Tables", "127.0.0.1:10002", nil), "200").body
	}
	before, orders := tables(s), want(t, sendT(t, s, "playground", "GET", "Orders()", "127.0.0.1:10002", nil), "200").body
	records := r.current(Table).Records()
	err := s.Replace("playground", bad)
	if err == nil || err.Error() != "line 3, column 61: table New, entity 2 (PartitionKey 'x', RowKey '2/3'): its RowKey holds '/', which a key may not hold (nor any of / \\ # ? or a control character)" {
		t.Fatalf("a replace by a bad text: %v", err)
	}
	if tables(s) != before || r.current(Table).Records() != records {
		t.Fatal("a refused replace changed the store")
	}
	if err := s.Import("playground", bad); err == nil || !strings.Contains(err.Error(), "table New, entity 2") {
		t.Fatalf("an import of a bad text: %v", err)
	}
	if tables(s) != before || r.current(Table).Records() != records {
		t.Fatal("a refused import changed the store")
	}

	if err := s.Replace("playground", text); err != nil {
		t.Fatal(err)
	}
	if n := r.current(Table).Records() - records; n != 1 {
		t.Fatalf("a replace took %d records", n)
	}
	check := func(s *Set) {
		t.Helper()
		if got := tables(s); !strings.Contains(got, `"New"`) || !strings.Contains(got, `"Orders"`) || strings.Contains(got, `"Old"`) {
			t.Fatalf("tables after the replace: %s", got)
		}
		if got := want(t, sendT(t, s, "playground", "GET", "Orders()", "127.0.0.1:10002", nil), "200").body; strings.Count(got, "RowKey") != 1 || !strings.Contains(got, `"N":100`) {
			t.Fatalf("Orders after the replace: %s", got)
		}
		if got := want(t, sendT(t, s, "playground", "GET", "jobs/messages?peekonly=true", queueHost, nil), "200").body; !strings.Contains(got, "first") {
			t.Fatalf("the queue after a replace: %s", got)
		}
		if got := want(t, sendT(t, s, "playground", "GET", "photos/a.txt", blobHost, nil), "200").body; got != "alpha" {
			t.Fatalf("the blob after a replace: %q", got)
		}
	}
	check(s)
	// A reload finds the replaced tables; a log torn before the record
	// finds the old ones.
	check(New(Options{Persistent: "playground", OpenMedium: r.open, Now: now}))
	torn := &reloads{}
	torn.last[Queue], torn.last[Blob] = r.current(Queue), r.current(Blob)
	torn.last[Table] = r.current(Table).CrashAfter(records)
	s = New(Options{Persistent: "playground", OpenMedium: func(svc Service) (Medium, error) {
		if svc == Table {
			torn.mu.Lock()
			defer torn.mu.Unlock()
			return clearable{torn.last[Table], torn, Table}, nil
		}
		return torn.open(svc)
	}, Now: now})
	if tables(s) != before {
		t.Fatalf("a log torn before the replace: %s, want %s", tables(s), before)
	}
	if got := want(t, sendT(t, s, "playground", "GET", "Orders()", "127.0.0.1:10002", nil), "200").body; got != orders {
		t.Fatalf("Orders after a log torn before the replace: %s", got)
	}
}

// BenchmarkClone copies a store of 10,000 entities, a queue and a blob.
func BenchmarkClone(b *testing.B) {
	s := New(Options{})
	fill(b, s, "source", 10_000)
	for b.Loop() {
		if err := s.Clone("source", "copy"); err != nil {
			b.Fatal(err)
		}
	}
}
