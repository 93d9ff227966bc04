package apihttp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/internal/frontendtest"
)

func serve(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(Handler{Server: api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}), MaxBody: 1 << 20})
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL + "/devstoreaccount1"
}

func TestOversizedBodiesAreRefused(t *testing.T) {
	frontendtest.OversizedBodies(t, serve(t))
}

func TestHeadersAndRawPath(t *testing.T) {
	base := serve(t)
	resp, err := http.Post(base+"/Tables", "application/json", strings.NewReader(`{"TableName":"people"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest("POST", base+"/people", strings.NewReader(`{"PartitionKey":"a b","RowKey":"c%d"}`))
	req.Header.Set("Prefer", "return-no-content")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" || resp.Header.Get("Preference-Applied") != "return-no-content" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	resp, err = http.Get(base + "/people(PartitionKey='a%20b',RowKey='c%25d')")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("get by escaped keys: %d", resp.StatusCode)
	}
}

// A host may hand over a request without a body as a nil Body, which
// net/http's own server never does.
func TestNilBody(t *testing.T) {
	h := Handler{Server: api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})}
	for _, stream := range []bool{false, true} {
		h.Stream = stream
		req := httptest.NewRequest("GET", "http://127.0.0.1:10002/devstoreaccount1/Tables", nil)
		req.Body = nil
		req.ContentLength = 0
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"value":[]`) {
			t.Fatalf("stream %v: %d %s", stream, rec.Code, rec.Body)
		}
	}
}
