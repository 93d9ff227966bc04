package stores

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// memoryMedium keeps what IndexedDB would, in memory, and counts what it
// was asked to do.
type memoryMedium struct {
	mu       sync.Mutex
	snapshot []byte
	upto     uint64
	records  map[uint64][]byte
	appends  int
	compacts int
	failNext bool
}

func newMemoryMedium() *memoryMedium { return &memoryMedium{records: map[uint64][]byte{}} }

func (m *memoryMedium) Load() (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := State{Snapshot: m.snapshot, Seq: m.upto}
	for seq := m.upto + 1; ; seq++ {
		rec, ok := m.records[seq]
		if !ok {
			break
		}
		st.Records = append(st.Records, rec)
		st.Seq = seq
	}
	return st, nil
}

func (m *memoryMedium) Append(seq uint64, rec []byte) func() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends++
	if m.failNext {
		m.failNext = false
		return func() error { return errors.New("quota exceeded") }
	}
	if _, dup := m.records[seq]; dup {
		panic(fmt.Sprintf("record %d appended twice", seq))
	}
	m.records[seq] = append([]byte(nil), rec...)
	return func() error { return nil }
}

func (m *memoryMedium) Compact(snapshot []byte, upto uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.compacts++
	m.snapshot, m.upto = append([]byte(nil), snapshot...), upto
	for seq := range m.records {
		if seq <= upto {
			delete(m.records, seq)
		}
	}
	return nil
}

func (m *memoryMedium) Clear() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.snapshot, m.upto, m.records = nil, 0, map[uint64][]byte{}
	return nil
}

func (m *memoryMedium) logLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.records)
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

func TestPersistentStoreSurvivesReload(t *testing.T) {
	m := newMemoryMedium()
	now := clock()
	s := New(Options{Persistent: "playground", Medium: m, Now: now})
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Kept"}`), "201")
	ins := want(t, do(t, s, "playground", "POST", "Kept", `{"PartitionKey":"p","RowKey":"r","N":1}`), "201")
	want(t, do(t, s, "other", "POST", "Tables", `{"TableName":"Gone"}`), "201")
	appends := m.appends
	// A batch of three is one record: stored whole or not at all.
	batch := "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_1\r\n\r\n"
	for i := range 3 {
		batch += "--changeset_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			"POST http://127.0.0.1:10002/devstoreaccount1/Kept HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\n\r\n" +
			fmt.Sprintf(`{"PartitionKey":"p","RowKey":"b%d"}`, i) + "\r\n"
	}
	batch += "--changeset_1--\r\n--batch_1--\r\n"
	r := do(t, s, "playground", "POST", "$batch", batch, "Content-Type: multipart/mixed; boundary=batch_1")
	want(t, r, "202")
	if strings.Count(r.body, "201 Created") != 3 {
		t.Fatalf("batch answer %s", r.body)
	}
	if m.appends != appends+1 {
		t.Fatalf("the batch made %d records", m.appends-appends)
	}

	// A reload: a new set over the same medium.
	s = New(Options{Persistent: "playground", Medium: m, Now: now})
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
	s = New(Options{Persistent: "playground", Medium: m, Now: now})
	want(t, do(t, s, "playground", "GET", "Kept()", ""), "404")
}

func TestCompaction(t *testing.T) {
	m := newMemoryMedium()
	now := clock()
	s := New(Options{Persistent: "playground", Medium: m, Now: now, CompactBytes: 64 << 10})
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Big"}`), "201")
	pad := strings.Repeat("x", 1000)
	for i := range 200 {
		want(t, do(t, s, "playground", "POST", "Big", fmt.Sprintf(`{"PartitionKey":"p","RowKey":"%03d","Pad":"%s"}`, i, pad)), "201")
	}
	in, _ := s.get("playground")
	// Wait for a running compaction, if any, to end.
	in.journal.mu.Lock()
	done := in.journal.compacted
	in.journal.mu.Unlock()
	if done == nil {
		t.Fatal("no compaction started")
	}
	<-done
	if m.compacts == 0 || m.snapshot == nil {
		t.Fatal("no snapshot written")
	}
	// The log keeps only what came after the snapshot: far fewer than
	// the 201 records written.
	if n := m.logLen(); n > 100 {
		t.Fatalf("%d records left in the log", n)
	}
	before := want(t, do(t, s, "playground", "GET", "Big()?$select=RowKey", ""), "200").body
	s = New(Options{Persistent: "playground", Medium: m, Now: now})
	after := want(t, do(t, s, "playground", "GET", "Big()?$select=RowKey", ""), "200").body
	if after != before || strings.Count(after, "RowKey") != 200 {
		t.Fatalf("after reload:\n%.200s\nbefore:\n%.200s", after, before)
	}
}

func TestMediumFailureStopsWrites(t *testing.T) {
	m := newMemoryMedium()
	s := New(Options{Persistent: "playground", Medium: m, Now: clock()})
	want(t, do(t, s, "playground", "POST", "Tables", `{"TableName":"Kept"}`), "201")
	m.failNext = true
	r := want(t, do(t, s, "playground", "POST", "Kept", `{"PartitionKey":"p","RowKey":"r"}`), "500")
	if !strings.Contains(r.body, "quota exceeded") {
		t.Fatalf("%s", r.body)
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
