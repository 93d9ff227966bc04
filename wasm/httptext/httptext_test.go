package httptext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/api"
)

func TestParseRequest(t *testing.T) {
	body := "{\"PartitionKey\":\"p\",\"Note\":\"two\\r\\n\\r\\nlines\"}\r\n\r\nand a blank line inside"
	text := "POST /devstoreaccount1/Orders()?$filter=a%20eq%201 HTTP/1.1\r\n" +
		"Host: 127.0.0.1:10002\r\n" +
		"x-ms-version:2019-02-02\r\n" +
		"Content-Type:   application/json \r\n" +
		"X-Tabs:\t\t a\tb \t\r\n" +
		"\r\n" + body
	req, err := ParseRequest(text)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "POST" || req.Target != "/devstoreaccount1/Orders()?$filter=a%20eq%201" {
		t.Fatalf("request line: %q %q", req.Method, req.Target)
	}
	if req.Host != "127.0.0.1:10002" || req.Header.Get("host") != "127.0.0.1:10002" {
		t.Fatalf("host %q", req.Host)
	}
	if got := req.Header.Get("X-Ms-Version"); got != "2019-02-02" {
		t.Fatalf("x-ms-version %q", got)
	}
	if got := req.Header.Get("content-type"); got != "application/json" {
		t.Fatalf("content-type %q", got)
	}
	if got := req.Header.Get("X-Tabs"); got != "a\tb" {
		t.Fatalf("x-tabs %q", got)
	}
	if string(req.Body) != body {
		t.Fatalf("body %q", req.Body)
	}
	if req.Scheme != "http" || req.RemoteIP != "127.0.0.1" {
		t.Fatalf("scheme %q remote %q", req.Scheme, req.RemoteIP)
	}
}

func TestParseRequestWithoutBody(t *testing.T) {
	for _, text := range []string{
		"GET /devstoreaccount1/Tables HTTP/1.1\r\nAccept: application/json\r\n\r\n",
		"GET /devstoreaccount1/Tables HTTP/1.1\r\nAccept: application/json",
		"GET /devstoreaccount1/Tables HTTP/1.1\nAccept: application/json\n\n",
	} {
		req, err := ParseRequest(text)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if req.Method != "GET" || req.Target != "/devstoreaccount1/Tables" || req.Header.Get("Accept") != "application/json" || req.Body != nil {
			t.Fatalf("%q: %+v", text, req)
		}
	}
}

func TestParseRequestMalformed(t *testing.T) {
	for _, text := range []string{
		"",
		"hello",
		"GET\r\n\r\n",
		"GET /x\r\n\r\n",
		"GET /x FTP/1.0\r\n\r\n",
		" /x HTTP/1.1\r\n\r\n",
		"GET  HTTP/1.1\r\n\r\n",
		"GET /x HTTP/1.1\r\nno colon\r\n\r\n",
		"GET /x HTTP/1.1\r\n: empty name\r\n\r\n",
		"GET /x HTTP/1.1\r\nBad Name: v\r\n\r\n",
		"GET /x HTTP/1.1\r\nBad\tName: v\r\n\r\n",
		"GET /x HTTP/1.1\r\nBadName : v\r\n\r\n",
	} {
		if req, err := ParseRequest(text); err == nil {
			t.Errorf("%q parsed as %+v", text, req)
		}
	}
}

func TestAppendResponse(t *testing.T) {
	resp := &api.Response{Status: 404, Body: []byte(`{"odata.error":{}}`)}
	resp.Header.Set("Content-Type", "application/json")
	resp.Header.Set("Content-Length", "999") // replaced by the body's length
	resp.Header.Set("X-Tablelab-Plan", "point")
	got := string(AppendResponse([]byte("prefix:"), resp))
	want := "prefix:HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-Tablelab-Plan: point\r\nContent-Length: 18\r\n\r\n{\"odata.error\":{}}"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	empty := string(AppendResponse(nil, &api.Response{Status: 204}))
	if empty != "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n" {
		t.Fatalf("got %q", empty)
	}
	if s := string(AppendResponse(nil, &api.Response{Status: 299})); !strings.HasPrefix(s, "HTTP/1.1 299 ") {
		t.Fatalf("unknown status: %q", s)
	}
}

func TestParseRequestBytesKeepsABinaryBody(t *testing.T) {
	// Every byte value, CR LF pairs and invalid UTF-8 included: a blob's
	// body crosses as it is.
	body := make([]byte, 0, 512)
	for i := range 512 {
		body = append(body, byte(i*7))
	}
	body = append(body, "\r\n\r\n\xff\xfe"...)
	msg := append([]byte("PUT /devstoreaccount1/c/b.bin HTTP/1.1\r\nHost: 127.0.0.1:10000\r\nx-ms-blob-type: BlockBlob\r\n\r\n"), body...)
	req, err := ParseRequestBytes(msg)
	if err != nil {
		t.Fatal(err)
	}
	if req.Method != "PUT" || req.Target != "/devstoreaccount1/c/b.bin" || req.Host != "127.0.0.1:10000" || req.Header.Get("X-Ms-Blob-Type") != "BlockBlob" {
		t.Fatalf("head: %+v", req)
	}
	if !bytes.Equal(req.Body, body) {
		t.Fatalf("body changed: %d bytes, want %d", len(req.Body), len(body))
	}
	// The same text parses the same either way.
	for _, text := range []string{
		"GET /devstoreaccount1/Tables HTTP/1.1\nAccept: application/json\n\n",
		"GET /devstoreaccount1/Tables HTTP/1.1\r\nAccept: application/json",
		"DELETE /devstoreaccount1/q/messages HTTP/1.1\r\n\r\n",
		"GET /x FTP/1.0\r\n\r\n",
	} {
		a, errA := ParseRequest(text)
		b, errB := ParseRequestBytes([]byte(text))
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%q: %v against %v", text, errA, errB)
		}
		if errA == nil && (a.Method != b.Method || a.Target != b.Target || a.Header.Len() != b.Header.Len() || string(a.Body) != string(b.Body)) {
			t.Fatalf("%q: %+v against %+v", text, a, b)
		}
	}
}

func TestAppendResponseKeepsAHeadContentLength(t *testing.T) {
	// A blob's properties: the length of the body a GET would send.
	head := &api.Response{Status: 200}
	head.Header.Set("Content-Length", "1048576")
	head.Header.Set("ETag", `"0x1"`)
	got := string(AppendResponse(nil, head))
	if want := "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\nETag: \"0x1\"\r\n\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	part := &api.Response{Status: 206, Body: []byte("\x00\xffab")}
	part.Header.Set("Content-Range", "bytes 0-3/10")
	if got, want := string(AppendResponse(nil, part)), "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-3/10\r\nContent-Length: 4\r\n\r\n\x00\xffab"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add("GET /devstoreaccount1/Tables HTTP/1.1\r\nAccept: application/json\r\n\r\n")
	f.Add("POST /a HTTP/1.1\nX: y\n\nbody")
	f.Fuzz(func(t *testing.T, text string) {
		req, err := ParseRequest(text)
		if err != nil {
			return
		}
		if req.Method == "" || req.Target == "" || strings.ContainsAny(req.Method, " ") {
			t.Fatalf("%q parsed as %+v", text, req)
		}
	})
}

func FuzzParseRequestBytes(f *testing.F) {
	f.Add([]byte("PUT /a/b HTTP/1.1\r\nContent-Length: 3\r\n\r\n\x00\xff\r"))
	f.Add([]byte("GET /a HTTP/1.1\nX: y"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		req, err := ParseRequestBytes(msg)
		if err != nil {
			return
		}
		if req.Method == "" || req.Target == "" || strings.ContainsAny(req.Method, " ") {
			t.Fatalf("%q parsed as %+v", msg, req)
		}
		if len(req.Body) > len(msg) {
			t.Fatalf("a body longer than the message")
		}
	})
}
