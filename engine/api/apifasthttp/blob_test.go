package apifasthttp

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/blob"
)

// The real Blob service behind a streaming front end: a 20 MiB upload
// reaches the store as the client sends it, and comes back whole, in a
// range, and as a HEAD's length.
func TestBlobServiceStreams(t *testing.T) {
	svc, err := blob.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(blobapi.NewServer(svc, blobapi.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}), Config{Stream: true}, nil)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	base := "http://" + ln.Addr().String() + "/devstoreaccount1"
	do := func(method, url string, body io.Reader, hdr ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("x-ms-version", "2026-02-06")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	if resp, b := do("PUT", base+"/big?restype=container", nil); resp.StatusCode != 201 {
		t.Fatalf("create container: %d %s", resp.StatusCode, b)
	}
	data := make([]byte, 20<<20+7)
	for i := range data {
		data[i] = byte(i*31 + i>>13)
	}
	// The body goes through a pipe, so that net/http cannot hand it over
	// in one piece; its length is declared.
	pr, pw := io.Pipe()
	go func() {
		for b := data; len(b) > 0; {
			n := min(len(b), 1<<20)
			if _, err := pw.Write(b[:n]); err != nil {
				return
			}
			b = b[n:]
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("PUT", base+"/big/dir/blob.bin", pr)
	req.ContentLength = int64(len(data))
	req.Header.Set("x-ms-version", "2026-02-06")
	req.Header.Set("x-ms-blob-type", "BlockBlob")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("put blob: %d %s", resp.StatusCode, b)
	}
	resp, got := do("GET", base+"/big/dir/blob.bin", nil)
	if resp.StatusCode != 200 || !bytes.Equal(got, data) || resp.ContentLength != int64(len(data)) {
		t.Fatalf("get: %d, %d bytes (length %d), equal %v", resp.StatusCode, len(got), resp.ContentLength, bytes.Equal(got, data))
	}
	resp, got = do("GET", base+"/big/dir/blob.bin", nil, "Range", "bytes=1048570-2097160")
	if resp.StatusCode != 206 || !bytes.Equal(got, data[1048570:2097161]) {
		t.Fatalf("range: %d, %d bytes", resp.StatusCode, len(got))
	}
	resp, got = do("HEAD", base+"/big/dir/blob.bin", nil)
	if resp.StatusCode != 200 || len(got) != 0 || resp.Header.Get("Content-Length") != strconv.Itoa(len(data)) {
		t.Fatalf("HEAD: %d, Content-Length %q, %d body bytes", resp.StatusCode, resp.Header.Get("Content-Length"), len(got))
	}
}
