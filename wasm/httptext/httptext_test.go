package httptext

import (
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
