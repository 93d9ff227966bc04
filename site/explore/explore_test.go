package explore

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/site/inspect"
)

// explorer serves the handler over the three services, each with the
// verifier the local server gives them (no anonymous access), and
// returns its base URL with the stores behind it.
func explorer(t *testing.T, hub *inspect.Hub) (string, *engine.Store) {
	t.Helper()
	accounts := []auth.Account{auth.DevAccount()}
	verifier := func() *auth.Verifier {
		return &auth.Verifier{Accounts: accounts, SharedKey: auth.VerifySharedKey}
	}
	tables := engine.New(engine.Options{})
	qsvc, err := queue.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	bsvc, err := blob.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	h := New([]Service{
		{Name: "Table", Core: api.NewServer(tables, api.Options{Verifier: verifier()})},
		{Name: "Queue", Core: queueapi.NewServer(qsvc, queueapi.Options{Verifier: verifier()})},
		{Name: "Blob", Core: blobapi.NewServer(bsvc, blobapi.Options{Verifier: verifier()}), Stream: true},
	}, accounts, hub)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + Prefix, tables
}

type reply struct {
	status int
	header http.Header
	body   string
}

func send(t *testing.T, method, url, body string, header ...string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(MarkHeader, "1")
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

var jsonHeaders = []string{"Content-Type", "application/json", "Accept", "application/json;odata=fullmetadata", "x-ms-version", "2019-02-02"}

// TestExplorerTables checks that the explorer's requests reach the
// running Table service's own store, signed so that the service's
// authentication takes them, and come back with the real answer: the
// plan headers, the ETag, and a 412 when the ETag is stale.
func TestExplorerTables(t *testing.T) {
	hub := inspect.NewHub(0, 0)
	base, store := explorer(t, hub)
	tb := base + "table/devstoreaccount1/"
	if r := send(t, "POST", tb+"Tables", `{"TableName":"people"}`, jsonHeaders...); r.status != 201 {
		t.Fatalf("create table: %d %s", r.status, r.body)
	}
	if _, ok := store.TableExists("people"); !ok {
		t.Fatal("the table is not in the service's store")
	}
	r := send(t, "POST", tb+"people", `{"PartitionKey":"p","RowKey":"1","Age":3}`, jsonHeaders...)
	if r.status != 201 || r.header.Get("ETag") == "" {
		t.Fatalf("insert: %d %s", r.status, r.body)
	}
	etag := r.header.Get("ETag")
	r = send(t, "GET", tb+"people()?$filter=Age%20eq%203", "", jsonHeaders...)
	if r.status != 200 || r.header.Get("X-Tablelab-Plan") != "table-scan" || r.header.Get("X-Tablelab-Examined") != "1" || r.header.Get("X-Tablelab-Returned") != "1" {
		t.Fatalf("query: %d %v %s", r.status, r.header, r.body)
	}
	entity := tb + "people(PartitionKey='p',RowKey='1')"
	if r := send(t, "PUT", entity, `{"Age":4}`, append(jsonHeaders, "If-Match", etag)...); r.status != 204 {
		t.Fatalf("update with the ETag: %d %s", r.status, r.body)
	}
	r = send(t, "PUT", entity, `{"Age":5}`, append(jsonHeaders, "If-Match", etag)...)
	if r.status != 412 || !strings.Contains(r.body, "UpdateConditionNotSatisfied") {
		t.Fatalf("update with a stale ETag: %d %s", r.status, r.body)
	}
	if r := send(t, "DELETE", entity, "", append(jsonHeaders, "If-Match", etag)...); r.status != 412 {
		t.Fatalf("delete with a stale ETag: %d %s", r.status, r.body)
	}
	if r := send(t, "DELETE", entity, "", append(jsonHeaders, "If-Match", "*")...); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	// Nobody watched: the explorer's requests left no record.
	if _, ok := hub.Lookup(1); ok {
		t.Error("the hub recorded requests with nobody watching")
	}
}

// TestExplorerQueuesAndBlobs checks peeking at a queue's messages and
// listing a container's blobs, and a download, through the explorer.
func TestExplorerQueuesAndBlobs(t *testing.T) {
	base, _ := explorer(t, nil)
	q := base + "queue/devstoreaccount1/"
	v := []string{"x-ms-version", "2021-12-02"}
	if r := send(t, "PUT", q+"jobs", "", v...); r.status != 201 {
		t.Fatalf("create queue: %d %s", r.status, r.body)
	}
	if r := send(t, "POST", q+"jobs/messages", "<QueueMessage><MessageText>hello</MessageText></QueueMessage>", v...); r.status != 201 {
		t.Fatalf("put message: %d %s", r.status, r.body)
	}
	for range 2 {
		r := send(t, "GET", q+"jobs/messages?peekonly=true&numofmessages=32", "", v...)
		if r.status != 200 || !strings.Contains(r.body, "<MessageText>hello</MessageText>") || !strings.Contains(r.body, "<DequeueCount>0</DequeueCount>") {
			t.Fatalf("peek: %d %s", r.status, r.body)
		}
	}
	if r := send(t, "GET", q+"?comp=list", "", v...); !strings.Contains(r.body, "<Name>jobs</Name>") {
		t.Fatalf("list queues: %d %s", r.status, r.body)
	}

	b := base + "blob/devstoreaccount1/"
	if r := send(t, "PUT", b+"box?restype=container", "", v...); r.status != 201 {
		t.Fatalf("create container: %d %s", r.status, r.body)
	}
	if r := send(t, "PUT", b+"box/notes/a.txt", "some text", append(v, "x-ms-blob-type", "BlockBlob", "Content-Type", "text/plain")...); r.status != 201 {
		t.Fatalf("put blob: %d %s", r.status, r.body)
	}
	r := send(t, "GET", b+"box?restype=container&comp=list", "", v...)
	if r.status != 200 || !strings.Contains(r.body, "<Name>notes/a.txt</Name>") || !strings.Contains(r.body, "<Content-Length>9</Content-Length>") || !strings.Contains(r.body, "<Content-Type>text/plain</Content-Type>") {
		t.Fatalf("list blobs: %d %s", r.status, r.body)
	}
	if r := send(t, "GET", b+"box/notes/a.txt", "", v...); r.status != 200 || r.body != "some text" {
		t.Fatalf("download: %d %q", r.status, r.body)
	}
}

// TestExplorerRefuses checks what the explorer will not forward: a
// request without its mark (another site's page cannot add it without
// a preflight the explorer never grants), a service not running and an
// account that does not exist.
func TestExplorerRefuses(t *testing.T) {
	base, _ := explorer(t, nil)
	for _, c := range []struct {
		url    string
		header []string
		status int
	}{
		{base + "table/devstoreaccount1/Tables", []string{MarkHeader, ""}, 403},
		{base + "info", []string{MarkHeader, ""}, 403},
		{base + "files/devstoreaccount1/x", nil, 404},
		{base + "table/nobody/Tables", nil, 404},
	} {
		if r := send(t, "GET", c.url, "", c.header...); r.status != c.status {
			t.Errorf("%s: %d %s, want %d", c.url, r.status, r.body, c.status)
		}
	}
	r := send(t, "OPTIONS", base+"table/devstoreaccount1/Tables", "", MarkHeader, "", "Origin", "http://elsewhere.example", "Access-Control-Request-Method", "GET")
	if r.status != 403 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight from another origin: %d %v", r.status, r.header)
	}
	var in info
	if err := json.Unmarshal([]byte(send(t, "GET", base+"info", "").body), &in); err != nil || strings.Join(in.Services, ",") != "Blob,Queue,Table" || in.Accounts[0] != "devstoreaccount1" {
		t.Errorf("info: %+v %v", in, err)
	}
}

// TestExplorerRequestsAreMarked checks that the inspector tells the
// explorer's requests from the application's, with the real answer's
// headers, and never shows the token they were signed with.
func TestExplorerRequestsAreMarked(t *testing.T) {
	hub := inspect.NewHub(0, 0)
	base, _ := explorer(t, hub)
	srv := httptest.NewServer(hub.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + inspect.Prefix + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	send(t, "POST", base+"table/devstoreaccount1/Tables", `{"TableName":"marked"}`, append(jsonHeaders, "x-ms-client-request-id", "explorer-1")...)
	rec, ok := hub.Lookup(1)
	if !ok {
		t.Fatal("the explorer's request was not recorded while the inspector watched")
	}
	if rec.Source != inspect.SourceExplorer || rec.Service != "Table" || rec.Status != 201 || rec.ClientRequestID != "explorer-1" || rec.Resource != "" {
		t.Errorf("record: %+v", rec)
	}
	if !strings.Contains(rec.Path, "sig=REDACTED") || !strings.HasPrefix(rec.Path, "/devstoreaccount1/Tables?") {
		t.Errorf("path %q", rec.Path)
	}
	if !strings.Contains(string(rec.Exchange.RequestBody.Kept), `"TableName":"marked"`) || !strings.Contains(string(rec.Exchange.ResponseBody.Kept), `"TableName":"marked"`) {
		t.Errorf("bodies %q / %q", rec.Exchange.RequestBody.Kept, rec.Exchange.ResponseBody.Kept)
	}
}
