package batchwire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// loadCapture reads a recorded $batch request: its Content-Type and body.
func loadCapture(t testing.TB, path string) (string, []byte) {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, after, _ := bytes.Cut(raw, []byte("### RAW REQUEST BYTES (exact, as received)\n"))
	br := bufio.NewReader(bytes.NewReader(after))
	br.ReadString('\n')
	var ct string
	n := 0
	for {
		line, _ := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, _ := strings.Cut(line, ":")
		switch strings.ToLower(k) {
		case "content-type":
			ct = strings.TrimSpace(v)
		case "content-length":
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, n)
	for read := 0; read < n; {
		m, err := br.Read(body[read:])
		if err != nil {
			t.Fatal(err)
		}
		read += m
	}
	return ct, body
}

func TestCapturedBatches(t *testing.T) {
	files, _ := filepath.Glob("testdata/*-POST-_batch.txt")
	if len(files) != 7 {
		t.Fatalf("%d capture files", len(files))
	}
	for _, f := range files {
		ct, body := loadCapture(t, f)
		b, err := Parse(ct, body)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if want := bytes.Count(body, []byte("application/http")); len(b.Requests) != want || b.Query {
			t.Fatalf("%s: %d operations, want %d", f, len(b.Requests), want)
		}
		for i, r := range b.Requests {
			if !strings.Contains(r.URL, "/devstoreaccount1/") {
				t.Errorf("%s #%d: URL %s", f, i, r.URL)
			}
			switch r.Method {
			case "DELETE":
				if len(r.Body) != 0 || r.Get("If-Match") == "" {
					t.Errorf("%s #%d: delete with body %q, If-Match %q", f, i, r.Body, r.Get("If-Match"))
				}
			case "POST", "PUT", "PATCH":
				if !json.Valid(r.Body) || r.Body[0] != '{' {
					t.Errorf("%s #%d: body %q", f, i, r.Body)
				}
			default:
				t.Errorf("%s #%d: method %s", f, i, r.Method)
			}
		}
		// Go sends empty header values; they are kept, and empty.
		if strings.HasPrefix(filepath.Base(f), "go-") && b.Requests[0].Get("x-ms-version") != "" {
			t.Errorf("%s: empty header value read as %q", f, b.Requests[0].Get("x-ms-version"))
		}
	}
}

func TestLeniency(t *testing.T) {
	// LF line ends, a quoted boundary, Content-ID, X-HTTP-Method, a
	// preamble, and a body with Content-Length shorter than the part.
	body := "preamble\n--b1\ncontent-type: multipart/mixed; boundary=\"c1\"\n\n\n--c1\ncontent-type: application/http\nContent-ID: 5\n\n" +
		"POST http://h/devstoreaccount1/t(PartitionKey='a',RowKey='b') HTTP/1.1\nX-HTTP-Method: MERGE\nContent-Length: 2\n\n\n{}trailing\n--c1--\n--b1--\n"
	b, err := Parse(`multipart/mixed; boundary="b1"`, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	r := b.Requests[0]
	if r.Method != "MERGE" || r.ContentID != "5" || string(r.Body) != "{}" {
		t.Fatalf("%+v", r)
	}
	q, err := Parse("multipart/mixed; boundary=b", []byte("--b\r\nContent-Type: application/http\r\n\r\nGET http://h/a/t() HTTP/1.1\r\n\r\n--b--\r\n"))
	if err != nil || !q.Query || q.Requests[0].Method != "GET" {
		t.Fatalf("query batch: %+v %v", q, err)
	}
}

func TestMalformed(t *testing.T) {
	cases := map[string]string{
		"no boundary param":  "",
		"no closing":         "--b\r\nContent-Type: application/http\r\n\r\nGET /t HTTP/1.1\r\n\r\n",
		"not http":           "--b\r\nContent-Type: text/plain\r\n\r\nhello\r\n--b--",
		"bad request line":   "--b\r\nContent-Type: application/http\r\n\r\nGET\r\n\r\n--b--",
		"two change sets":    "--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c--\r\n--b\r\nContent-Type: multipart/mixed; boundary=d\r\n\r\n--d--\r\n--b--",
		"empty change set":   "--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c--\r\n--b--",
		"POST outside a set": "--b\r\nContent-Type: application/http\r\n\r\nPOST /t HTTP/1.1\r\n\r\n{}\r\n--b--",
		"nothing":            "",
	}
	for name, body := range cases {
		ct := "multipart/mixed; boundary=b"
		if name == "no boundary param" {
			ct = "multipart/mixed"
		}
		if _, err := Parse(ct, []byte(body)); !svcerr.Is(err, svcerr.InvalidInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestResponseFraming writes a response and checks it byte for byte.
func TestResponseFraming(t *testing.T) {
	got := string(WriteResponse(nil, "batchresponse_1", "changesetresponse_2", []Response{
		{Status: 204, Header: []Field{{"ETag", `W/"x"`}}},
		{Status: 201, ContentID: "3", Header: []Field{{"Content-Type", "application/json"}}, Body: []byte(`{"a":1}`)},
	}))
	want := "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_2\r\n\r\n" +
		"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nETag: W/\"x\"\r\n\r\n\r\n" +
		"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 201 Created\r\nContent-ID: 3\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n" +
		"--changesetresponse_2--\r\n--batchresponse_1--\r\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*-POST-_batch.txt")
	for _, file := range files {
		ct, body := loadCapture(f, file)
		f.Add(ct, body)
	}
	f.Add("multipart/mixed; boundary=b", []byte("--b\n--b--"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		b, err := Parse(ct, body)
		if err != nil {
			return
		}
		if len(b.Requests) == 0 || len(b.Requests) > MaxParts {
			t.Fatalf("%d requests", len(b.Requests))
		}
	})
}

// TestOperationsStandAlone checks what the operations of a parsed change
// set share: their header lists lie in one array and their strings in
// one copy of the body, yet growing one operation's headers leaves the
// next one's as they were, and the body may change after Parse.
func TestOperationsStandAlone(t *testing.T) {
	var body strings.Builder
	body.WriteString("--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n")
	for i := range 30 {
		body.WriteString("--c\r\nContent-Type: application/http\r\n\r\nPOST http://h/T HTTP/1.1\r\nContent-Type: application/json\r\n")
		for j := range i % 9 {
			body.WriteString("X-" + strconv.Itoa(j) + ": " + strconv.Itoa(i) + "\r\n")
		}
		body.WriteString("\r\n{\"N\":" + strconv.Itoa(i) + "}\r\n")
	}
	body.WriteString("--c--\r\n--b--\r\n")
	raw := []byte(body.String())
	b, err := Parse("multipart/mixed; boundary=b", raw)
	if err != nil || len(b.Requests) != 30 {
		t.Fatalf("%v, %d operations", err, len(b.Requests))
	}
	for i := range b.Requests {
		b.Requests[i].Header = append(b.Requests[i].Header, Field{"Y", "y"})
	}
	for i := range raw {
		if raw[i] == 'X' {
			raw[i] = 'Z' // the headers were copied; the bodies alias raw
		}
	}
	for i, r := range b.Requests {
		if len(r.Header) != i%9+2 || string(r.Body) != "{\"N\":"+strconv.Itoa(i)+"}" {
			t.Fatalf("operation %d: %d headers, body %q", i, len(r.Header), r.Body)
		}
		if f := r.Header[0]; f.Name != "Content-Type" || f.Value != "application/json" {
			t.Fatalf("operation %d: first header %s: %s", i, f.Name, f.Value)
		}
		for j, f := range r.Header[1 : 1+i%9] {
			if f.Name != "X-"+strconv.Itoa(j) || f.Value != strconv.Itoa(i) {
				t.Fatalf("operation %d header %d: %s: %s", i, j, f.Name, f.Value)
			}
		}
	}
}
