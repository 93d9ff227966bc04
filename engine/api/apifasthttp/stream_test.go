package apifasthttp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// fakeService stands for the Blob or Queue service in the front end's
// tests: PUT /up reads the body (streamed or not) and answers what it
// saw; GET and HEAD /down answer a streamed body of the length the query
// says; HEAD /props answers no body with a Content-Length of its own.
// Its errors are in an XML format of its own, so a test can tell them
// from any other service's.
type fakeService struct {
	// readSome, when not nil, is closed once an upload has read its
	// first MiB: the test then knows the body reached the service before
	// the client sent all of it.
	readSome chan struct{}
	once     sync.Once

	mu      sync.Mutex
	uploads []upload      // what each PUT saw
	closed  chan struct{} // one value per download body closed
}

type upload struct {
	streamed bool
	n        int64
	sum      string
	err      error
}

func newFake() *fakeService {
	return &fakeService{readSome: make(chan struct{}), closed: make(chan struct{}, 16)}
}

func (f *fakeService) Serve(req *api.Request) *api.Response {
	path, query, _ := strings.Cut(req.Target, "?")
	switch {
	case req.Method == "PUT" && path == "/up":
		u := upload{streamed: req.BodyStream != nil}
		h := sha256.New()
		var r io.Reader = bytes.NewReader(req.Body)
		if req.BodyStream != nil {
			r = req.BodyStream
		}
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			h.Write(buf[:n])
			u.n += int64(n)
			if u.n >= 1<<20 {
				f.once.Do(func() { close(f.readSome) })
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				u.err = err
				break
			}
		}
		u.sum = hex.EncodeToString(h.Sum(nil))
		f.mu.Lock()
		f.uploads = append(f.uploads, u)
		f.mu.Unlock()
		if u.err != nil {
			return f.Error(req, svcerr.With(svcerr.InvalidInput, "cut off: "+u.err.Error()))
		}
		resp := &api.Response{Status: 201, Body: []byte(fmt.Sprintf("%v %d %s", u.streamed, u.n, u.sum))}
		return resp
	case (req.Method == "GET" || req.Method == "HEAD") && path == "/down":
		n, _ := strconv.ParseInt(strings.TrimPrefix(query, "n="), 10, 64)
		resp := &api.Response{Status: 200, BodyStream: &pattern{left: n, closed: f.closed}, BodyLength: n}
		resp.Header.Set("x-ms-blob-type", "BlockBlob")
		return resp
	case req.Method == "HEAD" && path == "/props":
		resp := &api.Response{Status: 200}
		resp.Header.Set("Content-Length", "123456")
		resp.Header.Set("ETag", `"0x1"`)
		return resp
	}
	return f.Error(req, svcerr.With(svcerr.InvalidInput, "no such route"))
}

func (f *fakeService) Error(req *api.Request, err error) *api.Response {
	e := svcerr.From(err)
	resp := &api.Response{Status: e.Status(), Body: []byte("<Error><Code>" + string(e.Code) + "</Code></Error>")}
	resp.Header.Set("Content-Type", "application/xml")
	resp.Header.Set("x-ms-error-code", string(e.Code))
	return resp
}

func (f *fakeService) last() upload {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.uploads[len(f.uploads)-1]
}

// pattern is a download body: byte i is i%251, which a short or shifted
// copy would break.
type pattern struct {
	off, left int64
	closed    chan struct{}
}

func (p *pattern) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.left {
		b = b[:p.left]
	}
	for i := range b {
		b[i] = byte((p.off + int64(i)) % 251)
	}
	p.off += int64(len(b))
	p.left -= int64(len(b))
	return len(b), nil
}

func (p *pattern) Close() error {
	p.closed <- struct{}{}
	return nil
}

func serveFake(t *testing.T, f *fakeService, c Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(f, c, nil)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	return "http://" + ln.Addr().String()
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// A streaming server hands the service the body while the client is
// still sending it: the client holds back the second half of 8 MiB until
// the service has read its first MiB, which a server that read the body
// before calling the service would never see.
func TestStreamedUpload(t *testing.T) {
	f := newFake()
	base := serveFake(t, f, Config{Stream: true, MaxBody: 1 << 20})
	body := make([]byte, 8<<20)
	for i := range body {
		body[i] = byte(i * 7)
	}
	pr, pw := io.Pipe()
	go func() {
		pw.Write(body[:4<<20])
		select {
		case <-f.readSome:
		case <-time.After(10 * time.Second):
			pw.CloseWithError(errors.New("the service saw nothing of the body before its end"))
			return
		}
		pw.Write(body[4<<20:])
		pw.Close()
	}()
	req, _ := http.NewRequest("PUT", base+"/up", pr)
	req.ContentLength = int64(len(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("true %d %s", len(body), sumOf(body)); resp.StatusCode != 201 || string(got) != want {
		t.Fatalf("%d %s, want 201 %s", resp.StatusCode, got, want)
	}
	// A small body, and then a chunked one over the same kept-alive
	// connection: each arrives whole, the chunked one read into memory.
	for _, tc := range []struct {
		body     string
		chunked  bool
		streamed bool
	}{{"small", false, true}, {strings.Repeat("chunk", 1000), true, false}} {
		var r io.Reader = strings.NewReader(tc.body)
		if tc.chunked {
			r = io.MultiReader(r) // hides the length: net/http sends it chunked
		}
		req, _ := http.NewRequest("PUT", base+"/up", r)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := fmt.Sprintf("%v %d %s", tc.streamed, len(tc.body), sumOf([]byte(tc.body))); resp.StatusCode != 201 || string(got) != want {
			t.Fatalf("chunked=%v: %d %s, want 201 %s", tc.chunked, resp.StatusCode, got, want)
		}
	}
}

// A chunked body over MaxBody on a streaming server is refused with the
// service's own 413, and the connection closed.
func TestStreamedChunkedOverLimit(t *testing.T) {
	f := newFake()
	base := serveFake(t, f, Config{Stream: true, MaxBody: 64 << 10})
	req, _ := http.NewRequest("PUT", base+"/up", io.MultiReader(strings.NewReader(strings.Repeat("x", 256<<10))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || string(got) != "<Error><Code>RequestBodyTooLarge</Code></Error>" || !resp.Close {
		t.Fatalf("%d close=%v %s", resp.StatusCode, resp.Close, got)
	}
}

// An upload cut off midway — the client gone, or stalled past Idle — is
// an error to the service's reads, never a clean end of a shorter body.
func TestStreamedUploadCutOff(t *testing.T) {
	for _, stall := range []bool{false, true} {
		f := newFake()
		// The idle limit is the Handler's own (NewServer keeps its
		// default), so the server's handler is replaced.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := NewServer(f, Config{Stream: true}, nil)
		srv.Handler = Handler{Server: f, Stream: true, Idle: 300 * time.Millisecond}.Serve
		go srv.Serve(ln)
		t.Cleanup(func() { _ = srv.Shutdown() })
		base := "http://" + ln.Addr().String()
		c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "PUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 4<<20)
		c.Write(bytes.Repeat([]byte("z"), 2<<20))
		select {
		case <-f.readSome:
		case <-time.After(10 * time.Second):
			t.Fatal("the service saw nothing of the body")
		}
		if !stall {
			c.Close()
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			f.mu.Lock()
			n := len(f.uploads)
			f.mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("stall=%v: the service's read never ended", stall)
			}
			time.Sleep(10 * time.Millisecond)
		}
		u := f.last()
		if u.err == nil || u.n != 2<<20 {
			t.Fatalf("stall=%v: the service read %d bytes and then %v, want an error after 2 MiB", stall, u.n, u.err)
		}
		var ne net.Error
		if !stall && !errors.Is(u.err, io.ErrUnexpectedEOF) {
			t.Errorf("client gone: %v, want io.ErrUnexpectedEOF", u.err)
		} else if stall && (!errors.As(u.err, &ne) || !ne.Timeout()) {
			t.Errorf("client stalled: %v, want a timeout", u.err)
		}
		c.Close()
	}
}

// Without Stream (the Table and Queue services) the service gets Body,
// never BodyStream, and a body over the limit is refused in its format.
func TestUnstreamedBodies(t *testing.T) {
	f := newFake()
	base := serveFake(t, f, Config{MaxBody: 64 << 10})
	body := strings.Repeat("q", 60<<10)
	req, _ := http.NewRequest("PUT", base+"/up", strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("false %d %s", len(body), sumOf([]byte(body))); string(got) != want {
		t.Fatalf("%d %s, want %s", resp.StatusCode, got, want)
	}
	req, _ = http.NewRequest("PUT", base+"/up", strings.NewReader(strings.Repeat("q", 65<<10)))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || string(got) != "<Error><Code>RequestBodyTooLarge</Code></Error>" || resp.Header.Get("x-ms-error-code") != "RequestBodyTooLarge" {
		t.Fatalf("over the limit: %d %s", resp.StatusCode, got)
	}
}

// A streamed response body goes out whole with the length the service
// gave, and is closed once written; a HEAD answer keeps that length,
// sends no body and closes the stream too.
func TestStreamedDownload(t *testing.T) {
	f := newFake()
	base := serveFake(t, f, Config{Stream: true})
	const n = 24<<20 + 13
	resp, err := http.Get(base + "/down?n=" + strconv.Itoa(n))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.ContentLength != n || len(got) != n || resp.Header.Get("x-ms-blob-type") != "BlockBlob" {
		t.Fatalf("%d length %d, read %d: %v", resp.StatusCode, resp.ContentLength, len(got), err)
	}
	for i, b := range got {
		if b != byte(i%251) {
			t.Fatalf("byte %d is %d, want %d", i, b, i%251)
		}
	}
	waitClosed(t, f, "GET")
	resp, err = http.Head(base + "/down?n=5000")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != 5000 {
		t.Fatalf("HEAD: %d length %d", resp.StatusCode, resp.ContentLength)
	}
	waitClosed(t, f, "HEAD")
	// The next request on the connection finds no stray body bytes.
	resp, err = http.Head(base + "/props")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != "123456" || resp.Header.Get("ETag") != `"0x1"` {
		t.Fatalf("HEAD with the service's own Content-Length: %d %v", resp.StatusCode, resp.Header)
	}
}

func waitClosed(t *testing.T, f *fakeService, what string) {
	t.Helper()
	select {
	case <-f.closed:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s: the response body was never closed", what)
	}
}

// A request the transport cannot read is answered in the service's own
// format, not the Table service's.
func TestRefusalInTheServicesFormat(t *testing.T) {
	base := serveFake(t, newFake(), Config{Stream: true, MaxHeader: 4 << 10})
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET /down HTTP/1.1\r\nHost: x\r\nx-ms-pad: %s\r\n\r\n", strings.Repeat("p", 8<<10))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || string(got) != "<Error><Code>InvalidHeaderValue</Code></Error>" {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
}
