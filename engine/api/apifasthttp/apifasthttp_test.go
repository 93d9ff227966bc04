package apifasthttp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/internal/frontendtest"
	"github.com/valyala/fasthttp"
)

func serve(t *testing.T, c Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}), c, nil)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	return "http://" + ln.Addr().String() + "/devstoreaccount1"
}

// dialRaw opens a connection to the server at base for a test to write
// HTTP to by hand; it is closed when the test ends.
func dialRaw(t *testing.T, base string) (net.Conn, *bufio.Reader) {
	t.Helper()
	addr := strings.TrimPrefix(strings.TrimSuffix(base, "/devstoreaccount1"), "http://")
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(5 * time.Second))
	return c, bufio.NewReader(c)
}

func TestOversizedBodiesAreRefused(t *testing.T) {
	frontendtest.OversizedBodies(t, serve(t, Config{MaxBody: 1 << 20}))
}

func TestHeadersBodiesAndRawPath(t *testing.T) {
	base := serve(t, Config{})
	resp, err := http.Post(base+"/Tables", "application/json", strings.NewReader(`{"TableName":"people"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("Content-Type") == "" || resp.Header.Get("Date") == "" || resp.Header.Get("x-ms-request-id") == "" {
		t.Fatalf("create table: %d %v", resp.StatusCode, resp.Header)
	}
	// Many entities over one kept-alive connection: the body of each
	// request must be copied out of fasthttp's reused buffers before the
	// store keeps it.
	for i := 0; i < 50; i++ {
		req, _ := http.NewRequest("POST", base+"/people", strings.NewReader(fmt.Sprintf(`{"PartitionKey":"a b","RowKey":"c%%d%02d","Name":"person %02d"}`, i, i)))
		req.Header.Set("Prefer", "return-no-content")
		req.Header.Set("Content-Type", "application/json")
		resp, err = http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" || resp.Header.Get("Preference-Applied") != "return-no-content" {
			t.Fatalf("%d %v", resp.StatusCode, resp.Header)
		}
	}
	for _, i := range []int{0, 17, 49} {
		resp, err = http.Get(base + fmt.Sprintf("/people(PartitionKey='a%%20b',RowKey='c%%25d%02d')", i))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), fmt.Sprintf(`"Name":"person %02d"`, i)) {
			t.Fatalf("get by escaped keys: %d %s", resp.StatusCode, body)
		}
	}
}

// A request the transport cannot read is still answered in the service's
// format, and the connection is closed after it.
func TestUnreadableRequests(t *testing.T) {
	base := serve(t, Config{MaxHeader: 4 << 10})
	addr := strings.TrimPrefix(strings.TrimSuffix(base, "/devstoreaccount1"), "http://")
	for name, raw := range map[string]string{
		"headers too large": "GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\nx-ms-pad: " + strings.Repeat("p", 8<<10) + "\r\n\r\n",
		"bad chunking":      "POST /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"odata.error"`) || !resp.Close {
			t.Fatalf("%s: %d close=%v %s", name, resp.StatusCode, resp.Close, body)
		}
	}
}

// Header names keep the core's spelling on the way out, and framing
// headers are found whatever their case on the way in (the JS SDK sends
// them in lower case).
func TestHeaderCase(t *testing.T) {
	c, br := dialRaw(t, serve(t, Config{}))
	create := `{"TableName":"cased"}`
	entity := `{"PartitionKey":"p","RowKey":"r","V":1}`
	raw := "POST /devstoreaccount1/Tables HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: " + fmt.Sprint(len(create)) + "\r\n\r\n" + create +
		"POST /devstoreaccount1/cased HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nprefer: return-no-content\r\ntransfer-encoding: chunked\r\n\r\n" +
		fmt.Sprintf("%x\r\n%s\r\n%x\r\n%s\r\n0\r\n\r\n", 10, entity[:10], len(entity)-10, entity[10:])
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{201, 204} {
		var names []string
		status, length := 0, 0
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("response %d: %v", i, err)
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if status == 0 {
				fmt.Sscanf(line, "HTTP/1.1 %d", &status)
				continue
			}
			name, value, _ := strings.Cut(line, ":")
			names = append(names, name)
			if strings.EqualFold(name, "Content-Length") {
				fmt.Sscan(strings.TrimSpace(value), &length)
			}
		}
		if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
			t.Fatal(err)
		}
		got := "," + strings.Join(names, ",") + ","
		if status != want || !strings.Contains(got, ",x-ms-request-id,") {
			t.Fatalf("response %d: status %d, headers %s", i, status, got)
		}
		if want == 204 && !strings.Contains(got, ",ETag,") {
			t.Fatalf("insert: headers %s, want ETag spelled as the service does", got)
		}
	}
}

// Large pages are built in reused buffers: many at once, over several
// connections, each must still hold exactly its own partition.
func TestLargePagesConcurrently(t *testing.T) {
	base := serve(t, Config{})
	post := func(path, body string) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Prefer", "return-no-content")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d", path, resp.StatusCode)
		}
	}
	post("/Tables", `{"TableName":"pages"}`)
	const parts, rows = 4, 150
	for p := 0; p < parts; p++ {
		for r := 0; r < rows; r++ {
			post("/pages", fmt.Sprintf(`{"PartitionKey":"part%d","RowKey":"%04d","Text":%q}`, p, r, strings.Repeat(fmt.Sprintf("p%d ", p), 200)))
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 25; i++ {
				p := (w + i) % parts
				resp, err := http.Get(base + "/pages()?$filter=" + url.QueryEscape(fmt.Sprintf("PartitionKey eq 'part%d'", p)))
				if err != nil {
					errs <- err
					return
				}
				var page struct {
					Value []struct{ PartitionKey, RowKey, Text string } `json:"value"`
				}
				err = json.NewDecoder(resp.Body).Decode(&page)
				resp.Body.Close()
				if err != nil {
					errs <- err
					return
				}
				if len(page.Value) != rows {
					errs <- fmt.Errorf("part%d: %d entities", p, len(page.Value))
					return
				}
				for r, e := range page.Value {
					if e.PartitionKey != fmt.Sprintf("part%d", p) || e.RowKey != fmt.Sprintf("%04d", r) || !strings.HasPrefix(e.Text, fmt.Sprintf("p%d p%d ", p, p)) {
						errs <- fmt.Errorf("part%d: entity %d is %s/%s %.10q", p, r, e.PartitionKey, e.RowKey, e.Text)
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// A body built in a reused buffer goes back to the pool only once
// fasthttp has written it: a response not yet written keeps its bytes
// while later requests take buffers from the pool, and what is written
// is the page the core built.
func TestPooledBodyReturnsAfterWrite(t *testing.T) {
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	do := func(method, target, body string) *api.Response {
		req := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1", Body: []byte(body)}
		req.Header.Set("Content-Type", "application/json")
		return core.Serve(req)
	}
	if r := do("POST", "/Tables", `{"TableName":"pooled"}`); r.Status != 201 {
		t.Fatalf("create: %d", r.Status)
	}
	for p := 0; p < 2; p++ {
		for r := 0; r < 100; r++ {
			if resp := do("POST", "/pooled", fmt.Sprintf(`{"PartitionKey":"part%d","RowKey":"%04d","Text":%q}`, p, r, strings.Repeat(fmt.Sprintf("p%d ", p), 300))); resp.Status != 201 {
				t.Fatalf("insert: %d", resp.Status)
			}
		}
	}
	page := func(p int) string {
		return "/pooled()?$filter=" + url.QueryEscape(fmt.Sprintf("PartitionKey eq 'part%d'", p))
	}
	want := string(do("GET", page(0), "").Body)
	if !strings.Contains(want, `"PartitionKey":"part0"`) || len(want) < minPooledBuffer {
		t.Fatalf("page 0: %d bytes", len(want))
	}
	h := Handler{Server: core, bufs: new(sync.Pool)}
	query := func(p int) *fasthttp.RequestCtx {
		var req fasthttp.Request
		req.Header.SetMethod("GET")
		req.Header.SetHost("127.0.0.1")
		req.SetRequestURI("/devstoreaccount1" + page(p))
		ctx := new(fasthttp.RequestCtx)
		ctx.Init(&req, nil, nil)
		h.Serve(ctx)
		return ctx
	}
	written := func(ctx *fasthttp.RequestCtx) string {
		var out strings.Builder
		w := bufio.NewWriter(&out)
		if err := ctx.Response.Write(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		_, body, _ := strings.Cut(out.String(), "\r\n\r\n")
		return body
	}
	first := query(0)
	for i := 0; i < 3; i++ {
		if got := written(query(1)); !strings.Contains(got, `"PartitionKey":"part1"`) {
			t.Fatalf("page 1: %.100s", got)
		}
	}
	if got := written(first); got != want {
		t.Fatalf("page 0 as written after later pages took pooled buffers:\n%.200s", got)
	}
	// Written, the buffer is back: the next page is built in it.
	if got := written(query(0)); got != want {
		t.Fatalf("page 0 again: %.200s", got)
	}
}

// A client that asks before sending its body (Expect: 100-continue, as
// some SDK transports do for larger bodies) is told to go on, and its
// write lands.
func TestExpectContinue(t *testing.T) {
	c, br := dialRaw(t, serve(t, Config{}))
	body := `{"TableName":"asked"}`
	fmt.Fprintf(c, "POST /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", len(body))
	line, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("interim answer %q, %v", line, err)
	}
	if _, err := br.ReadString('\n'); err != nil { // the blank line after it
		t.Fatal(err)
	}
	if _, err := c.Write([]byte(body)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("create after 100-continue: %d", resp.StatusCode)
	}
}

// A request refused before the handler — a body over the limit, a
// request line that does not parse — still passes through the wrap, so a
// request log shows it like any other.
func TestWrapSeesRefusedRequests(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	wrap := func(next fasthttp.RequestHandler) fasthttp.RequestHandler {
		return func(ctx *fasthttp.RequestCtx) {
			next(ctx)
			how := "handled"
			if r := RefusalOf(ctx); r != nil && r.Unparsed {
				how = "refused, unparsed"
			} else if r != nil {
				how = "refused"
			}
			mu.Lock()
			seen = append(seen, fmt.Sprintf("%d %s", ctx.Response.StatusCode(), how))
			mu.Unlock()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}), Config{MaxBody: 1 << 10}, wrap)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	base := "http://" + ln.Addr().String() + "/devstoreaccount1"

	for _, tc := range []struct {
		raw    string
		status int
	}{
		{"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\n\r\n", 200},
		{"POST /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + strings.Repeat("x", 4096), 413},
		{"NOT A REQUEST\r\n\r\n", 400},
	} {
		c, br := dialRaw(t, base)
		if _, err := c.Write([]byte(tc.raw)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.raw[:14], err)
		}
		resp.Body.Close()
		c.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("%q: status %d, want %d", tc.raw[:14], resp.StatusCode, tc.status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(seen, ", "), "200 handled, 413 refused, 400 refused, unparsed"; got != want {
		t.Fatalf("wrap saw %q, want %q", got, want)
	}
}

// A request's body is fasthttp's buffer, which the next request on the
// connection reads into: what the service keeps of a body must be its
// own copy. A table created and entities written one after another on
// one kept-alive connection, singly, by merge and in a batch, read back
// as they were written.
func TestKeptBodiesOutliveTheirRequests(t *testing.T) {
	base := serve(t, Config{})
	c, br := dialRaw(t, base)
	path := strings.TrimPrefix(base, "http://")
	path = path[strings.IndexByte(path, '/'):]
	send := func(method, target, contentType, body string) (int, string) {
		t.Helper()
		fmt.Fprintf(c, "%s %s%s HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nAccept: application/json;odata=nometadata\r\nContent-Length: %d\r\n\r\n%s", method, path, target, contentType, len(body), body)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	// The longest body first, so that the later ones land in its buffer
	// rather than a larger one.
	if code, body := send("POST", "/Tables", "application/json", `{"TableName":"kept"}`+strings.Repeat(" ", 4<<10)); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	text := func(i int) string { return strings.Repeat(string(rune('a'+i%26)), 500) }
	entity := func(i int) string {
		return fmt.Sprintf(`{"PartitionKey":"p","RowKey":"r%03d","Text":%q}`, i, text(i))
	}
	for i := 0; i < 10; i++ {
		if code, body := send("POST", "/kept", "application/json", entity(i)); code != 201 {
			t.Fatalf("insert %d: %d %s", i, code, body)
		}
	}
	if code, body := send("MERGE", "/kept(PartitionKey='p',RowKey='r000')", "application/json", `{"More":"`+text(20)+`"}`); code != 204 {
		t.Fatalf("merge: %d %s", code, body)
	}
	var batch strings.Builder
	batch.WriteString("--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n")
	for i := 10; i < 13; i++ {
		fmt.Fprintf(&batch, "--c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nPOST %s/kept HTTP/1.1\r\nContent-Type: application/json\r\n\r\n%s\r\n", base, entity(i))
	}
	batch.WriteString("--c--\r\n--b--\r\n")
	if code, body := send("POST", "/$batch", "multipart/mixed; boundary=b", batch.String()); code != 202 || strings.Contains(body, "odata.error") {
		t.Fatalf("batch: %d %s", code, body)
	}
	for i := 0; i < 13; i++ {
		code, body := send("GET", fmt.Sprintf("/kept(PartitionKey='p',RowKey='r%03d')", i), "application/json", "")
		var e map[string]any
		if err := json.Unmarshal([]byte(body), &e); code != 200 || err != nil {
			t.Fatalf("read %d: %d %s", i, code, body)
		}
		if e["Text"] != text(i) || e["RowKey"] != fmt.Sprintf("r%03d", i) {
			t.Errorf("entity %d read back as %.80s", i, body)
		}
		if i == 0 && e["More"] != text(20) {
			t.Errorf("the merged property read back as %.80v", e["More"])
		}
	}
}
