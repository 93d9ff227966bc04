package inspect

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/valyala/fasthttp"
)

// TestRingKeepsTheLastRecords checks the ring's bound: it holds the last
// size records, in order, and a record pushed out can no longer be
// looked up.
func TestRingKeepsTheLastRecords(t *testing.T) {
	h := NewHub(4, 0)
	for i := range 10 {
		h.Publish(&Record{Service: "Table", Path: "/a/t" + string(rune('0'+i))})
	}
	got := h.recent(0)
	if len(got) != 4 {
		t.Fatalf("the ring holds %d records, want 4", len(got))
	}
	for i, r := range got {
		if want := uint64(7 + i); r.ID != want {
			t.Errorf("record %d has ID %d, want %d", i, r.ID, want)
		}
	}
	if _, ok := h.Lookup(6); ok {
		t.Error("record 6 is still there after 10 in a ring of 4")
	}
	if r, ok := h.Lookup(10); !ok || r.Resource != "t9" {
		t.Errorf("Lookup(10) = %+v, %v", r, ok)
	}
	if got := h.recent(8); len(got) != 2 || got[0].ID != 9 {
		t.Errorf("recent(8) = %d records", len(got))
	}
	h.Clear()
	if got := h.recent(0); len(got) != 0 {
		t.Errorf("after Clear the ring holds %d records", len(got))
	}
}

// serveTable serves a Table core that takes anonymous requests behind a
// fasthttp front end wrapped by h's hook, and returns its account URL.
func serveTable(t *testing.T, h *Hub) string {
	t.Helper()
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	return serveFast(t, apifasthttp.NewServer(core, apifasthttp.Config{}, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return h.Hook("Table", next) }))
}

func serveFast(t *testing.T, srv *fasthttp.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Shutdown() })
	return "http://" + ln.Addr().String() + "/devstoreaccount1"
}

func do(t *testing.T, method, url, body string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-ms-version", "2019-02-02")
	req.Header.Set("Accept", "application/json;odata=nometadata")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// TestHookRecordsNothingUnwatched checks that requests answered while
// nobody watches leave no record, and that once someone does, each one
// is recorded with what the inspector shows: plan, examined, returned,
// the error code of a Table error body, the client's request id, the
// body kept up to the limit and the advice for a table scan.
func TestHookRecordsNothingUnwatched(t *testing.T) {
	h := NewHub(16, 64)
	base := serveTable(t, h)
	do(t, "POST", base+"/Tables", `{"TableName":"people"}`)
	do(t, "GET", base+"/people()", "")
	if got := h.recent(0); len(got) != 0 || h.next != 1 {
		t.Fatalf("with nobody watching the hub recorded %d requests", len(got))
	}

	s, _ := h.subscribe(0)
	defer h.unsubscribe(s)
	for i := range 3 {
		do(t, "POST", base+"/people", `{"PartitionKey":"p","RowKey":"`+string(rune('a'+i))+`","Note":"`+strings.Repeat("n", 100)+`"}`)
	}
	do(t, "GET", base+"/people()?$filter=Note%20eq%20'x'", "", "x-ms-client-request-id", "scan-1")
	do(t, "GET", base+"/missing()", "")
	recs := h.recent(0)
	if len(recs) != 5 {
		t.Fatalf("recorded %d requests, want 5", len(recs))
	}
	insert := recs[0]
	if insert.Method != "POST" || insert.Status != 201 || insert.Resource != "people" || insert.Source != SourceApp || insert.Service != "Table" {
		t.Errorf("insert: %+v", insert)
	}
	if b := insert.Exchange.RequestBody; b.Size <= 64 || len(b.Kept) != 64 {
		t.Errorf("the insert's body: size %d, kept %d bytes; want more than 64 and 64", b.Size, len(b.Kept))
	}
	scan := recs[3]
	if scan.Plan != "table-scan" || scan.Examined != 3 || scan.Returned != 0 || scan.ClientRequestID != "scan-1" || scan.RequestID == "" {
		t.Errorf("scan: %+v", scan)
	}
	if scan.Advice == nil || scan.Advice.Patterns[0].Page != "patterns/index-entities.html" {
		t.Errorf("the table scan's advice: %+v", scan.Advice)
	}
	if miss := recs[4]; miss.Status != 404 || miss.Code != "TableNotFound" || miss.Plan != "" {
		t.Errorf("query of a missing table: status %d code %q plan %q", miss.Status, miss.Code, miss.Plan)
	}
	if recs[0].Micros <= 0 || recs[0].Time.IsZero() {
		t.Errorf("no time or duration: %+v", recs[0])
	}
}

// TestHookStreamedBlob checks that a blob's content, which streams past
// the front end both ways, is not read by the hook: the record says its
// length and why nothing was kept, and the client still gets every byte.
func TestHookStreamedBlob(t *testing.T) {
	h := NewHub(16, 64)
	svc, err := blob.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	core := blobapi.NewServer(svc, blobapi.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	base := serveFast(t, apifasthttp.NewServer(core, apifasthttp.Config{Stream: true}, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return h.Hook("Blob", next) }))
	s, _ := h.subscribe(0)
	defer h.unsubscribe(s)
	content := strings.Repeat("0123456789", 10000)
	do(t, "PUT", base+"/box?restype=container", "")
	do(t, "PUT", base+"/box/a.txt", content, "x-ms-blob-type", "BlockBlob", "Content-Type", "text/plain")
	resp, err := http.Get(base + "/box/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != content {
		t.Fatalf("the download got %d bytes, want %d", len(got), len(content))
	}
	recs := h.recent(0)
	if len(recs) != 3 {
		t.Fatalf("recorded %d requests, want 3", len(recs))
	}
	put, get := recs[1], recs[2]
	if put.Exchange.RequestBody.Size != int64(len(content)) || put.Exchange.RequestBody.Note == "" || put.Resource != "box" {
		t.Errorf("upload: %+v", put.Exchange.RequestBody)
	}
	if get.Exchange.ResponseBody.Size != int64(len(content)) || get.Exchange.ResponseBody.Note == "" || len(get.Exchange.ResponseBody.Kept) != 0 {
		t.Errorf("download: %+v", get.Exchange.ResponseBody)
	}
}

// TestSlowWatcherNeverBlocks checks that a watcher that reads nothing
// costs the request path nothing: Publish goes on, and the watcher is
// told how many records it missed.
func TestSlowWatcherNeverBlocks(t *testing.T) {
	h := NewHub(8, 0)
	s, _ := h.subscribe(0)
	defer h.unsubscribe(s)
	done := make(chan struct{})
	go func() {
		for range subscriptionBuffer + 100 {
			h.Publish(&Record{Service: "Queue", Path: "/a/q"})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish waited for a watcher that reads nothing")
	}
	if got := s.missed.Load(); got != 100 {
		t.Errorf("the watcher missed %d records, want 100", got)
	}
}

// events reads server-sent events from r, each as its id (or event name)
// and data, sending them on a channel until the stream ends.
func events(r io.Reader) <-chan [2]string {
	c := make(chan [2]string, 64)
	go func() {
		defer close(c)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var id, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if data != "" {
					c <- [2]string{id, data}
				}
				id, data = "", ""
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "event: "):
				id = line[7:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			}
		}
	}()
	return c
}

func next(t *testing.T, c <-chan [2]string) (string, map[string]any) {
	t.Helper()
	select {
	case ev, ok := <-c:
		if !ok {
			t.Fatal("the event stream ended")
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(ev[1]), &m); err != nil {
			return ev[0], map[string]any{"raw": ev[1]}
		}
		return ev[0], m
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return "", nil
}

// TestEventStream checks the inspector's endpoints: a watcher gets the
// records the ring holds, then each new one as it is published, as
// server-sent events with ids; a reconnection with Last-Event-ID gets
// only what came after; requests/{id} answers one record with headers
// and bodies; the stream marks the hub watched while it is open only.
func TestEventStream(t *testing.T) {
	h := NewHub(8, 0)
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	rec := func(path string) *Record {
		return &Record{Service: "Table", Method: "GET", Path: path, Status: 200,
			Exchange: Exchange{
				RequestHeader:  []Field{{"x-ms-client-request-id", "cid-" + path}},
				ResponseHeader: []Field{{"X-Tablelab-Plan", "table-scan"}, {"X-Tablelab-Examined", "500"}, {"X-Tablelab-Returned", "2"}},
				ResponseBody:   Body{Size: 2, Kept: []byte("{}")},
			}}
	}
	h.Publish(rec("/devstoreaccount1/before()"))

	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+Prefix+"events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	c := events(resp.Body)
	id, m := next(t, c)
	if id != "1" || m["resource"] != "before" || m["clientRequestId"] != "cid-/devstoreaccount1/before()" || m["examined"] != 500.0 {
		t.Fatalf("the backlog's event: id %s %v", id, m)
	}
	if m["advice"] == nil {
		t.Error("the table scan has no advice")
	}
	if !h.Watching() {
		t.Fatal("the hub is not watched while a stream is open")
	}
	h.Publish(rec("/devstoreaccount1/live()"))
	if id, m := next(t, c); id != "2" || m["resource"] != "live" {
		t.Fatalf("the live event: id %s %v", id, m)
	}
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); h.Watching(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hub is still watched after the stream closed")
		}
	}

	h.Publish(rec("/devstoreaccount1/while-away()"))
	req, _ = http.NewRequest("GET", srv.URL+Prefix+"events", nil)
	req.Header.Set("Last-Event-ID", "2")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if id, m := next(t, events(resp.Body)); id != "3" || m["resource"] != "while-away" {
		t.Fatalf("after Last-Event-ID 2: id %s %v", id, m)
	}

	resp, err = http.Get(srv.URL + Prefix + "requests/2")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Path           string
		RequestHeader  []Field
		ResponseHeader []Field
		ResponseBody   struct {
			Size int
			Text string
		}
	}
	json.NewDecoder(resp.Body).Decode(&d)
	resp.Body.Close()
	if d.Path != "/devstoreaccount1/live()" || len(d.RequestHeader) != 1 || len(d.ResponseHeader) != 3 || d.ResponseBody.Text != "{}" {
		t.Errorf("requests/2: %+v", d)
	}
	for path, want := range map[string]int{"requests/99": 404, "requests/x": 400} {
		resp, err := http.Get(srv.URL + Prefix + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// pipeWriter is a ResponseWriter whose writes wait for a reader.
type pipeWriter struct {
	*io.PipeWriter
	h http.Header
}

func (p pipeWriter) Header() http.Header { return p.h }
func (p pipeWriter) WriteHeader(int)     {}
func (p pipeWriter) Flush()              {}

// TestMissedEvent checks that a watcher that fell behind is told, in the
// stream, how many records it missed.
func TestMissedEvent(t *testing.T) {
	h := NewHub(8, 0)
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "GET", Prefix+"events", nil)
	go h.serveEvents(pipeWriter{pw, http.Header{}}, req)
	for !h.Watching() {
		time.Sleep(time.Millisecond)
	}
	// The stream's first write waits for a reader that is not there yet:
	// every record published meanwhile queues, and those past the
	// watcher's buffer are missed.
	for range subscriptionBuffer + 2 {
		h.Publish(&Record{Service: "Table", Path: "/a/t"})
	}
	c := events(pr)
	id, m := next(t, c)
	if id != "missed" || m["raw"] != "2" {
		t.Errorf("first event %s %v, want missed 2", id, m)
	}
	if id, _ := next(t, c); id != "1" {
		t.Errorf("after the count, event %s, want 1", id)
	}
}

func TestAdvise(t *testing.T) {
	for _, c := range []struct {
		plan               string
		examined, returned int
		filter             string
		page               string // the first pattern's page; empty for none
	}{
		{"table-scan", 5, 5, "", "patterns/compound-key.html"},
		{"table-scan", 1000, 3, "Email eq 'a'", "patterns/index-entities.html"},
		{"partition-scan", 1000, 3, "PartitionKey eq 'p' and Age gt 3", "patterns/intra-partition-secondary-index.html"},
		{"partition-scan", 99, 0, "PartitionKey eq 'p' and Age gt 3", ""},
		{"partition-scan", 100, 10, "PartitionKey eq 'p' and Age gt 3", "patterns/intra-partition-secondary-index.html"},
		{"partition-scan", 100, 11, "PartitionKey eq 'p' and Age gt 3", ""},
		{"range", 5000, 1, "PartitionKey eq 'p' and RowKey gt 'a' and Kind eq 'x'", "patterns/compound-key.html"},
		{"range", 50, 50, "PartitionKey eq 'p' and RowKey gt 'a'", ""},
		{"point", 1, 1, "", ""},
	} {
		a := Advise(c.plan, c.examined, c.returned, c.filter)
		switch {
		case c.page == "" && a != nil:
			t.Errorf("%s %d/%d: advice %+v, want none", c.plan, c.examined, c.returned, a)
		case c.page != "" && (a == nil || a.Patterns[0].Page != c.page):
			t.Errorf("%s %d/%d: advice %+v, want %s", c.plan, c.examined, c.returned, a, c.page)
		}
	}
}

func TestDerive(t *testing.T) {
	for _, c := range []struct {
		service, path, resource string
	}{
		{"Table", "/devstoreaccount1/Tables", ""},
		{"Table", "/devstoreaccount1/Tables('people')", "people"},
		{"Table", "/devstoreaccount1/people(PartitionKey='a',RowKey='b')?$select=x", "people"},
		{"Table", "/devstoreaccount1/$batch", ""},
		{"Queue", "/devstoreaccount1/jobs/messages?peekonly=true", "jobs"},
		{"Blob", "/devstoreaccount1/box/a%20b/c.txt", "box"},
		{"Blob", "/devstoreaccount1?comp=list", ""},
	} {
		if got := resourceOf(c.service, c.path); got != c.resource {
			t.Errorf("resourceOf(%s, %s) = %q, want %q", c.service, c.path, got, c.resource)
		}
	}
	r := &Record{Service: "Queue", Path: "/a/q?sv=2019-02-02&sig=abc%2Bdef&sp=r", Status: 404,
		Exchange: Exchange{ResponseBody: Body{Kept: []byte(`<?xml version="1.0"?><Error><Code>QueueNotFound</Code></Error>`)}}}
	r.derive()
	if r.Path != "/a/q?sv=2019-02-02&sig=REDACTED&sp=r" || r.Code != "QueueNotFound" {
		t.Errorf("derived path %q code %q", r.Path, r.Code)
	}
	r = &Record{Service: "Table", Path: "/a/Tables", Exchange: Exchange{RequestHeader: []Field{{"authorization", "SharedKey devstoreaccount1:c2lnbmF0dXJl"}, {"Authorization", "Bearer eyJ0eXAi"}}}}
	r.derive()
	if a, b := r.Exchange.RequestHeader[0].Value, r.Exchange.RequestHeader[1].Value; a != "SharedKey devstoreaccount1:REDACTED" || b != "Bearer REDACTED" {
		t.Errorf("Authorization kept as %q and %q", a, b)
	}
	b, _ := json.Marshal(Body{Size: 10, Kept: []byte{0xff, 0, 1}})
	if !strings.Contains(string(b), `"base64":"/wAB"`) || !strings.Contains(string(b), `"truncated":true`) {
		t.Errorf("a binary body: %s", b)
	}
}

// BenchmarkHook measures the hook's cost per request on a handler that
// does nothing: none (no hook), idle (nobody watching: an atomic load)
// and watched (the record copied and published to one watcher, which
// drains it).
func BenchmarkHook(b *testing.B) {
	newCtx := func() *fasthttp.RequestCtx {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI("/devstoreaccount1/people(PartitionKey='p',RowKey='1')")
		// The headers the JS SDK sends with a point read.
		for _, f := range [][2]string{
			{"Host", "127.0.0.1:10002"}, {"User-Agent", "azsdk-js-data-tables/13.3.2 core-rest-pipeline/1.24.0 Node/20.20.2"},
			{"Accept", "application/json;odata=minimalmetadata"}, {"x-ms-version", "2019-02-02"}, {"DataServiceVersion", "3.0"},
			{"Accept-Encoding", "gzip,deflate"}, {"x-ms-client-request-id", "0f8fad5b-d9cb-469f-a165-70867728950e"},
			{"x-ms-date", "Fri, 27 Nov 2026 17:41:34 GMT"}, {"Authorization", "SharedKeyLite devstoreaccount1:c2lnbmF0dXJlIG9mIHRoZSByZXF1ZXN0IGhlcmU="},
		} {
			ctx.Request.Header.Set(f[0], f[1])
		}
		return &ctx
	}
	body := []byte(`{"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#people/@Element","odata.etag":"W/\"datetime'2026-11-27T17%3A34%3A48.5768747Z'\"","PartitionKey":"p","RowKey":"1","Timestamp":"2026-11-27T17:34:48.5768747Z","Age":3}`)
	handler := func(ctx *fasthttp.RequestCtx) {
		// The headers the Table service answers a point read with.
		for _, f := range [][2]string{
			{"Content-Type", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"}, {"Cache-Control", "no-cache"},
			{"X-Content-Type-Options", "nosniff"}, {"x-ms-request-id", "2896bcac-59ec-4525-b472-40f55beb25a4"}, {"x-ms-version", "2019-02-02"},
			{"Date", "Fri, 27 Nov 2026 17:34:53 GMT"}, {"x-ms-client-request-id", "0f8fad5b-d9cb-469f-a165-70867728950e"},
			{"ETag", `W/"datetime'2026-11-27T17%3A34%3A48.5768747Z'"`},
			{"X-Tablelab-Plan", "point"}, {"X-Tablelab-Examined", "1"}, {"X-Tablelab-Returned", "1"},
		} {
			ctx.Response.Header.Set(f[0], f[1])
		}
		ctx.Response.SetBodyRaw(body)
	}
	b.Run("none", func(b *testing.B) {
		ctx := newCtx()
		for b.Loop() {
			handler(ctx)
		}
	})
	b.Run("idle", func(b *testing.B) {
		h := NewHub(0, 0)
		hooked := h.Hook("Table", handler)
		ctx := newCtx()
		for b.Loop() {
			hooked(ctx)
		}
	})
	b.Run("watched", func(b *testing.B) {
		h := NewHub(0, 0)
		s, _ := h.subscribe(0)
		defer h.unsubscribe(s)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-s.c:
				case <-done:
					return
				}
			}
		}()
		defer close(done)
		hooked := h.Hook("Table", handler)
		ctx := newCtx()
		for b.Loop() {
			hooked(ctx)
		}
	})
}

// TestHookSeesRefusals checks that a request the front end refuses
// before the handler (a body over its limit) reaches the inspector too,
// with the service's error code.
func TestHookSeesRefusals(t *testing.T) {
	h := NewHub(8, 0)
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	base := serveFast(t, apifasthttp.NewServer(core, apifasthttp.Config{MaxBody: 1 << 10}, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return h.Hook("Table", next) }))
	s, _ := h.subscribe(0)
	defer h.unsubscribe(s)
	if resp := do(t, "POST", base+"/Tables", strings.Repeat("x", 4<<10)); resp.StatusCode != 413 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	recs := h.recent(0)
	if len(recs) != 1 || recs[0].Status != 413 || recs[0].Code != "RequestBodyTooLarge" || recs[0].Method != "POST" {
		t.Fatalf("records: %+v", recs)
	}
}
