package stores

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/durable/durabletest"
)

// reloads is what a page's IndexedDB is across reloads, in memory: each
// open is a fresh medium per service holding what the last one had made
// durable, as a reload finds it.
type reloads struct {
	mu   sync.Mutex
	last [3]*durabletest.Medium
}

type clearable struct {
	*durabletest.Medium
	r   *reloads
	svc Service
}

// Clear implements Medium: the next open finds nothing.
func (c clearable) Clear() error {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	c.r.last[c.svc] = durabletest.NewMedium()
	return nil
}

func (r *reloads) open(svc Service) (Medium, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last[svc] == nil {
		r.last[svc] = durabletest.NewMedium()
	} else {
		r.last[svc] = r.last[svc].Crash()
	}
	return clearable{r.last[svc], r, svc}, nil
}

// current is the medium of svc opened last.
func (r *reloads) current(svc Service) *durabletest.Medium {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last[svc]
}

func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Millisecond)
		return t
	}
}

type response struct {
	status  string
	headers string
	body    string
}

// do sends one request, signed with the set's SAS, to the named store.
func do(t *testing.T, s *Set, store, method, target, body string, headers ...string) response {
	t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	text := method + " /devstoreaccount1/" + target + sep + SAS() + " HTTP/1.1\r\nHost: 127.0.0.1:10002\r\n" +
		"Accept: application/json;odata=nometadata\r\nContent-Type: application/json\r\n"
	for _, h := range headers {
		text += h + "\r\n"
	}
	out := s.Serve(store, text+"\r\n"+body)
	head, b, ok := strings.Cut(out, "\r\n\r\n")
	if !ok {
		t.Fatalf("no blank line in %q", out)
	}
	line, fields, _ := strings.Cut(head, "\r\n")
	return response{status: line, headers: fields + "\r\n", body: b}
}

func (r response) header(name string) string {
	for _, f := range strings.Split(r.headers, "\r\n") {
		if k, v, ok := strings.Cut(f, ": "); ok && strings.EqualFold(k, name) {
			return v
		}
	}
	return ""
}

func want(t *testing.T, r response, status string) response {
	t.Helper()
	if !strings.HasPrefix(r.status, "HTTP/1.1 "+status) {
		t.Fatalf("status %q, want %s: %s", r.status, status, r.body)
	}
	return r
}

func TestServeRawText(t *testing.T) {
	s := New(Options{Now: clock()})
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Orders"}`), "201")
	want(t, do(t, s, "a", "POST", "Orders", `{"PartitionKey":"p","RowKey":"r","N":1}`), "201")
	r := want(t, do(t, s, "a", "GET", "Orders(PartitionKey='p',RowKey='r')", ""), "200 OK")
	if r.header("X-Tablelab-Plan") != "point" || r.header("Content-Length") != fmt.Sprint(len(r.body)) {
		t.Fatalf("headers %q", r.headers)
	}
	if !strings.Contains(r.body, `"N":1`) {
		t.Fatalf("body %s", r.body)
	}
	// Another name is another store.
	want(t, do(t, s, "b", "GET", "Orders()", ""), "404")
	// Text that is not a request gets the service's error.
	bad := s.Serve("a", "nonsense")
	if !strings.HasPrefix(bad, "HTTP/1.1 400 Bad Request\r\n") || !strings.Contains(bad, `"code":"InvalidInput"`) {
		t.Fatalf("%q", bad)
	}
	// Resetting a memory store forgets it.
	if err := s.Reset("a"); err != nil {
		t.Fatal(err)
	}
	want(t, do(t, s, "a", "GET", "Orders()", ""), "404")
}

// TestTableBodyLimit checks that the Table service refuses a body over
// 4 MiB, as the local server's front end does, and writes nothing of it.
func TestTableBodyLimit(t *testing.T) {
	s := New(Options{Now: clock()})
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Orders"}`), "201")
	entity := func(n int) string {
		return `{"PartitionKey":"p","RowKey":"r","N":"` + strings.Repeat("x", n) + `"}`
	}
	over := entity(api.MaxBodyBytes)
	r := want(t, do(t, s, "a", "POST", "Orders", over), "413")
	if !strings.Contains(r.body, `"code":"RequestBodyTooLarge"`) {
		t.Fatalf("body %s", r.body)
	}
	want(t, do(t, s, "a", "GET", "Orders(PartitionKey='p',RowKey='r')", ""), "404")
	// At the limit the service reads the body, and its own limits answer.
	atLimit := entity(api.MaxBodyBytes - len(entity(0)))
	want(t, do(t, s, "a", "POST", "Orders", atLimit), "400")
}

func TestPersistentStoreSurvivesReload(t *testing.T) {
	r := &reloads{}
	now := clock()
	s := New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Kept"}`), "201")
	ins := want(t, do(t, s, "playground", "POST", "Kept", `{"PartitionKey":"p","RowKey":"r","N":1}`), "201")
	want(t, do(t, s, "other", "POST", "Tables", `{"TableName":"Gone"}`), "201")
	records := r.current(Table).Records()
	// A batch of three is one record: stored whole or not at all.
	batch := "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_1\r\n\r\n"
	for i := range 3 {
		batch += "--changeset_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			"POST http://127.0.0.1:10002/devstoreaccount1/Kept HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n\r\n" +
			fmt.Sprintf(`{"PartitionKey":"p","RowKey":"b%d"}`, i) + "\r\n"
	}
	batch += "--changeset_1--\r\n--batch_1--\r\n"
	answer := do(t, s, "playground", "POST", "$batch", batch, "Content-Type: multipart/mixed; boundary=batch_1")
	want(t, answer, "202")
	if strings.Count(answer.body, "201 Created") != 3 {
		t.Fatalf("batch answer %s", answer.body)
	}
	if n := r.current(Table).Records(); n != records+1 {
		t.Fatalf("the batch made %d records", n-records)
	}

	// A reload: a new set over the same medium.
	s = New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	got := want(t, do(t, s, "playground", "GET", "Kept(PartitionKey='p',RowKey='r')", ""), "200")
	if got.header("ETag") != ins.header("ETag") || got.header("ETag") == "" {
		t.Fatalf("ETag %q, was %q", got.header("ETag"), ins.header("ETag"))
	}
	list := want(t, do(t, s, "playground", "GET", "Kept()", ""), "200")
	if strings.Count(list.body, `"RowKey"`) != 4 {
		t.Fatalf("after reload: %s", list.body)
	}
	// Only the persistent store is kept.
	want(t, do(t, s, "other", "GET", "Gone()", ""), "404")
	// Reset clears the medium, and a reload finds nothing.
	if err := s.Reset("playground"); err != nil {
		t.Fatal(err)
	}
	s = New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	want(t, do(t, s, "playground", "GET", "Kept()", ""), "404")
	// Reset of a store not opened yet clears its medium too.
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Again"}`), "201")
	s = New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	if err := s.Reset("playground"); err != nil {
		t.Fatal(err)
	}
	want(t, do(t, s, "playground", "GET", "Again()", ""), "404")
}

func TestCompaction(t *testing.T) {
	r := &reloads{}
	now := clock()
	opts := Options{Persistent: "playground", OpenMedium: r.open, Now: now, CompactBytes: 64 << 10, CompactEvery: time.Millisecond}
	s := New(opts)
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Big"}`), "201")
	pad := strings.Repeat("x", 1000)
	for i := range 200 {
		want(t, do(t, s, "playground", "POST", "Big", fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%03d","Pad":"%s"}`, i, pad)), "201")
	}
	m := r.current(Table)
	deadline := time.Now().Add(10 * time.Second)
	for m.Snapshots() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no snapshot written")
		}
		time.Sleep(time.Millisecond)
	}
	// The log keeps only what came after the snapshot: fewer than the
	// 201 records written.
	if n := m.Records(); n >= 201 {
		t.Fatalf("%d records left in the log", n)
	}
	before := want(t, do(t, s, "playground", "GET", "Big()?$select=RowKey", ""), "200").body
	s = New(opts)
	after := want(t, do(t, s, "playground", "GET", "Big()?$select=RowKey", ""), "200").body
	if after != before || strings.Count(after, "RowKey") != 200 {
		t.Fatalf("after reload:\n%.200s\nbefore:\n%.200s", after, before)
	}
}

func TestMediumFailureStopsWrites(t *testing.T) {
	r := &reloads{}
	s := New(Options{Persistent: "playground", OpenMedium: r.open, Now: clock()})
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Kept"}`), "201")
	r.current(Table).Fail(errors.New("quota exceeded"))
	failed := want(t, do(t, s, "playground", "POST", "Kept", `{"PartitionKey":"p","RowKey":"r"}`), "500")
	if !strings.Contains(failed.body, "quota exceeded") {
		t.Fatalf("%s", failed.body)
	}
	// A store that could not persist acknowledges nothing more.
	want(t, do(t, s, "playground", "POST", "Kept", `{"PartitionKey":"p","RowKey":"r2"}`), "500")
}

func TestExportImport(t *testing.T) {
	s := New(Options{Now: clock()})
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Moved"}`), "201")
	want(t, do(t, s, "a", "POST", "Moved", `{"PartitionKey":"p","RowKey":"r","L@odata.type":"Edm.Int64","L":"7"}`), "201")
	text, err := s.Export("a")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Import("b", text); err != nil {
		t.Fatal(err)
	}
	r := want(t, do(t, s, "b", "GET", "Moved(PartitionKey='p',RowKey='r')", "", "Accept: application/json;odata=minimalmetadata"), "200")
	if !strings.Contains(r.body, `"L@odata.type":"Edm.Int64","L":"7"`) {
		t.Fatalf("%s", r.body)
	}
	if err := s.Import("b", "{"); err == nil {
		t.Fatal("a broken text imported")
	}
}

func TestRequestIDsAreUniqueUUIDs(t *testing.T) {
	ids := newRequestIDs()
	seen := map[string]bool{}
	for range 1000 {
		id := ids.New()
		if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[14] != '4' || id[18] != '-' || id[23] != '-' {
			t.Fatalf("%q is not a version-4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
	if newRequestIDs().New() == newRequestIDs().New() {
		t.Fatal("two sets start from the same id")
	}
	s := New(Options{})
	a := do(t, s, "x", "GET", "Tables", "").header("x-ms-request-id")
	b := do(t, s, "x", "GET", "Tables", "").header("x-ms-request-id")
	if a == "" || a == b {
		t.Fatalf("request ids %q, %q", a, b)
	}
}

func TestServiceOf(t *testing.T) {
	for host, want := range map[string]Service{
		"127.0.0.1:10000":                 Blob,
		"127.0.0.1:10001":                 Queue,
		"127.0.0.1:10002":                 Table,
		"localhost:10000":                 Blob,
		"[::1]:10001":                     Queue,
		"devstoreaccount1.blob.localhost": Blob,
		"acct.queue.core.windows.net:443": Queue,
		"acct.table.core.windows.net":     Table,
		"blob.example.com":                Table, // the label must follow the account
		"":                                Table,
		"127.0.0.1":                       Table,
	} {
		if got := ServiceOf(host); got != want {
			t.Errorf("ServiceOf(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestAdvanceMovesTheStoresClock checks that Advance moves one store's
// clock, for the protocol's Date header and the entities' Timestamps, and
// no other store's; a reset store starts from the set's clock again.
func TestAdvanceMovesTheStoresClock(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s := New(Options{Now: func() time.Time { return at }})
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Clocked"}`), "201")
	if err := s.Advance("a", 90*time.Minute); err != nil {
		t.Fatal(err)
	}
	r := want(t, do(t, s, "a", "POST", "Clocked", `{"PartitionKey":"p","RowKey":"r"}`), "201")
	if got := r.header("Date"); got != "Fri, 01 May 2026 13:30:00 GMT" {
		t.Fatalf("Date %q after advancing 90 minutes", got)
	}
	if !strings.Contains(r.body, `"Timestamp":"2026-05-01T13:30:00`) {
		t.Fatalf("Timestamp not on the advanced clock: %s", r.body)
	}
	if got := do(t, s, "b", "GET", "Tables", "").header("Date"); got != "Fri, 01 May 2026 12:00:00 GMT" {
		t.Fatalf("another store's Date %q", got)
	}
	if err := s.Advance("a", -time.Second); err == nil {
		t.Fatal("the clock moved back")
	}
	if err := s.Reset("a"); err != nil {
		t.Fatal(err)
	}
	if got := do(t, s, "a", "GET", "Tables", "").header("Date"); got != "Fri, 01 May 2026 12:00:00 GMT" {
		t.Fatalf("Date %q after a reset", got)
	}
}

// TestServeBytesKeepsBinaryBodies checks that a message of bytes is served
// as the same text would be, and that its answer is the same.
func TestServeBytesKeepsBinaryBodies(t *testing.T) {
	s := New(Options{Now: clock()})
	text := "POST /devstoreaccount1/Tables?" + SAS() + " HTTP/1.1\r\nHost: 127.0.0.1:10002\r\nAccept: application/json;odata=nometadata\r\nContent-Type: application/json\r\n\r\n" + `{"TableName":"Bytes"}`
	got := string(s.ServeBytes("a", []byte(text)))
	if !strings.HasPrefix(got, "HTTP/1.1 201 Created\r\n") || !strings.HasSuffix(got, `{"TableName":"Bytes"}`) {
		t.Fatalf("%q", got)
	}
	if bad := string(s.ServeBytes("a", []byte{0xff, 0, '\n'})); !strings.HasPrefix(bad, "HTTP/1.1 400 ") {
		t.Fatalf("%q", bad)
	}
}

// send sends one request held as bytes, signed with the set's SAS, to the
// service host names in the named store.
func send(t *testing.T, s *Set, store, method, target, host string, body []byte, headers ...string) response {
	t.Helper()
	return sendTB(t, s, store, method, target, host, body, headers...)
}

// sendTB is send for a test or a benchmark.
func sendTB(t testing.TB, s *Set, store, method, target, host string, body []byte, headers ...string) response {
	t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	head := method + " /devstoreaccount1/" + target + sep + SAS() + " HTTP/1.1\r\nHost: " + host + "\r\nx-ms-version: 2021-12-02\r\n"
	if len(body) > 0 {
		head += "Content-Length: " + strconv.Itoa(len(body)) + "\r\n"
	}
	for _, h := range headers {
		head += h + "\r\n"
	}
	out := string(s.ServeBytes(store, append([]byte(head+"\r\n"), body...)))
	first, b, ok := strings.Cut(out, "\r\n\r\n")
	if !ok {
		t.Fatalf("no blank line in %q", out)
	}
	line, fields, _ := strings.Cut(first, "\r\n")
	return response{status: line, headers: fields + "\r\n", body: b}
}

const (
	blobHost  = "127.0.0.1:10000"
	queueHost = "127.0.0.1:10001"
)

// TestQueuesAndBlobsSurviveReloadWholeOrNotAtAll checks that the
// persistent store keeps each service on a medium of its own, with keys
// that hold '/', and that a log torn anywhere gives back a blob whole or
// not at all, never a part of one.
func TestQueuesAndBlobsSurviveReloadWholeOrNotAtAll(t *testing.T) {
	r := &reloads{}
	now := clock()
	s := New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	want(t, send(t, s, "playground", "PUT", "jobs", queueHost, nil), "201")
	want(t, send(t, s, "playground", "POST", "jobs/messages", queueHost, []byte("<QueueMessage><MessageText>kept</MessageText></QueueMessage>")), "201")
	want(t, send(t, s, "playground", "PUT", "photos?restype=container", blobHost, nil), "201")
	before := r.current(Blob).Records()
	// Larger than a chunk entity, so the blob is several records.
	body := make([]byte, 2<<20+12345)
	for i := range body {
		body[i] = byte(i*31 + i>>10)
	}
	want(t, send(t, s, "playground", "PUT", "photos/2026/a%20b.bin", blobHost, body, "x-ms-blob-type: BlockBlob"), "201")
	after := r.current(Blob).Records()
	if after <= before {
		t.Fatalf("the blob made %d records", after-before)
	}
	if r.current(Table).Records() != 0 {
		t.Fatalf("queue and blob writes reached the tables' medium")
	}

	// A reload finds everything.
	s = New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	got := want(t, send(t, s, "playground", "GET", "jobs/messages?peekonly=true", queueHost, nil), "200")
	if !strings.Contains(got.body, "<MessageText>kept</MessageText>") {
		t.Fatalf("peek after a reload: %s", got.body)
	}
	got = want(t, send(t, s, "playground", "GET", "photos/2026/a%20b.bin", blobHost, nil), "200")
	if got.body != string(body) {
		t.Fatalf("the blob after a reload: %d bytes, want %d", len(got.body), len(body))
	}

	// A log torn after any of the blob's records.
	blobs := r.current(Blob)
	for n := before; n <= after; n++ {
		torn := &reloads{}
		torn.last[Table], torn.last[Queue] = r.current(Table), r.current(Queue)
		torn.last[Blob] = blobs.CrashAfter(n)
		s := New(Options{Persistent: "playground", OpenMedium: func(svc Service) (Medium, error) {
			if svc == Blob {
				// Open it as found, not crashed once more.
				torn.mu.Lock()
				defer torn.mu.Unlock()
				return clearable{torn.last[Blob], torn, Blob}, nil
			}
			return torn.open(svc)
		}, Now: now})
		got := send(t, s, "playground", "GET", "photos/2026/a%20b.bin", blobHost, nil)
		switch {
		case strings.HasPrefix(got.status, "HTTP/1.1 200 "):
			if got.body != string(body) {
				t.Fatalf("torn after %d records: a blob of %d bytes, want %d", n, len(got.body), len(body))
			}
		case strings.HasPrefix(got.status, "HTTP/1.1 404 "):
			if n == after || !strings.Contains(got.body, "<Code>BlobNotFound</Code>") {
				t.Fatalf("torn after %d of %d records: %s %s", n, after, got.status, got.body)
			}
		default:
			t.Fatalf("torn after %d records: %s %s", n, got.status, got.body)
		}
	}

	// Reset empties all three media.
	if err := s.Reset("playground"); err != nil {
		t.Fatal(err)
	}
	s = New(Options{Persistent: "playground", OpenMedium: r.open, Now: now})
	want(t, send(t, s, "playground", "GET", "jobs/messages?peekonly=true", queueHost, nil), "404")
	want(t, send(t, s, "playground", "GET", "photos?restype=container", blobHost, nil), "404")
}

// TestHoldStopsTheStoresClock checks that a held clock reads one instant,
// the next whole second, however much the set's clock moves; that writes
// under it still get Timestamps and ETags of their own; that a message's
// visibility timeout passes only when Advance moves the clock; and that
// Release never moves the clock back.
func TestHoldStopsTheStoresClock(t *testing.T) {
	var mu sync.Mutex
	at := time.Date(2026, 5, 1, 12, 0, 0, 400e6, time.UTC)
	s := New(Options{Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}})
	pass := func(d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(d)
	}
	if err := s.Hold("a"); err != nil {
		t.Fatal(err)
	}
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Held"}`), "201")
	etags := make(map[string]bool)
	for i := range 300 {
		r := want(t, do(t, s, "a", "POST", "Held", fmt.Sprintf(`{"PartitionKey":"p","RowKey":"r%03d"}`, i)), "201")
		if got := r.header("Date"); got != "Fri, 01 May 2026 12:00:01 GMT" {
			t.Fatalf("write %d: Date %q on a held clock", i, got)
		}
		etag := r.header("ETag")
		if etag == "" || etags[etag] {
			t.Fatalf("write %d: ETag %q given twice (or none)", i, etag)
		}
		etags[etag] = true
		pass(7 * time.Millisecond)
	}
	// 300 writes took 2.1 s of the set's clock; the store's stood still.
	if !strings.Contains(do(t, s, "a", "GET", "Held(PartitionKey='p',RowKey='r299')", "").body, `"Timestamp":"2026-05-01T12:00:01.0000299Z"`) {
		t.Fatal("the 300th write's Timestamp is not the held second plus its ticks")
	}

	// A message taken for 30 s stays hidden until the clock is advanced.
	want(t, send(t, s, "a", "PUT", "jobs", queueHost, nil), "201")
	want(t, send(t, s, "a", "POST", "jobs/messages", queueHost, []byte("<QueueMessage><MessageText>m</MessageText></QueueMessage>")), "201")
	hidden := "<QueueMessagesList />"
	if r := want(t, send(t, s, "a", "GET", "jobs/messages?visibilitytimeout=30", queueHost, nil), "200"); strings.Contains(r.body, hidden) {
		t.Fatal("no message to take")
	}
	for i := range 3 {
		if r := send(t, s, "a", "GET", "jobs/messages", queueHost, nil); !strings.Contains(r.body, hidden) {
			t.Fatalf("look %d: the message is visible again on a held clock: %s", i, r.body)
		}
	}
	if err := s.Advance("a", 30*time.Second); err != nil {
		t.Fatal(err)
	}
	if r := send(t, s, "a", "GET", "jobs/messages", queueHost, nil); strings.Contains(r.body, hidden) {
		t.Fatalf("the message is still hidden 30 s on: %s", r.body)
	}

	// Released, the store's clock runs with the set's again, 30 s ahead.
	if err := s.Release("a"); err != nil {
		t.Fatal(err)
	}
	if got := do(t, s, "a", "GET", "Tables", "").header("Date"); got != "Fri, 01 May 2026 12:00:32 GMT" { // 12:00:00.4 + 2.1 s + 30 s
		t.Fatalf("Date %q after the release", got)
	}
	if got := do(t, s, "b", "GET", "Tables", "").header("Date"); got != "Fri, 01 May 2026 12:00:02 GMT" {
		t.Fatalf("another store's Date %q: only the held store stood still", got)
	}
	// Released before the set's clock reaches the held second, the clock
	// stays on that second rather than going back.
	if err := s.Hold("c"); err != nil {
		t.Fatal(err)
	}
	if err := s.Release("c"); err != nil {
		t.Fatal(err)
	}
	if got := do(t, s, "c", "GET", "Tables", "").header("Date"); got != "Fri, 01 May 2026 12:00:03 GMT" {
		t.Fatalf("Date %q after a quick hold and release", got)
	}
}

// TestPagesReuseNoAnswer checks that the buffer a page is built in, which
// the set keeps for the next query, never shows through an answer given
// earlier: a large page, then a small one and a large one again, each
// answer intact after the ones that followed it.
func TestPagesReuseNoAnswer(t *testing.T) {
	s := New(Options{Now: clock()})
	want(t, do(t, s, "a", "POST", "Tables", `{"TableName":"Orders"}`), "201")
	for i := range 300 {
		want(t, do(t, s, "a", "POST", "Orders", fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%04d","N":%d,"Text":"%s"}`, i, i, strings.Repeat("x", 100))), "201")
	}
	query := func(filter string) []byte {
		text := "GET /devstoreaccount1/Orders()?$filter=" + filter + "&" + SAS() + " HTTP/1.1\r\nHost: 127.0.0.1:10002\r\nAccept: application/json;odata=nometadata\r\n\r\n"
		return s.ServeBytes("a", []byte(text))
	}
	body := func(out []byte) string {
		_, b, _ := strings.Cut(string(out), "\r\n\r\n")
		return b
	}
	large := query("N%20ge%200")
	largeText := body(large)
	small := query("N%20eq%207")
	smallText := body(small)
	again := query("N%20ge%200")
	if n := strings.Count(largeText, `"RowKey"`); n != 300 {
		t.Fatalf("the large page holds %d entities", n)
	}
	if n := strings.Count(smallText, `"RowKey"`); n != 1 || !strings.Contains(smallText, `"N":7,`) {
		t.Fatalf("the small page is %s", smallText)
	}
	if body(large) != largeText || body(small) != smallText {
		t.Fatal("a later query wrote into an earlier answer")
	}
	if body(again) != largeText {
		t.Fatal("the same query answered otherwise the second time")
	}
}
