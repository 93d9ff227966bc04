package sitehttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeSite writes files (name → content) under a new folder.
func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.String()
}

// noRedirects is a client that reports a redirect instead of following it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, url, acceptEncoding string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Set by hand, the header stops the transport from decompressing.
	req.Header.Set("Accept-Encoding", acceptEncoding)
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

func gunzip(t *testing.T, s string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHandler(t *testing.T) {
	wasm := "\x00asm" + strings.Repeat("\x01\x02", 4000)
	css := strings.Repeat("body { color: red; }\n", 200)
	dir := writeSite(t, map[string]string{
		"index.html":              "<!doctype html><title>home</title>",
		"playground.html":         "<!doctype html><title>play</title>",
		"reference/index.html":    "<!doctype html><title>ref</title>",
		"reference/filter.html":   "<!doctype html><title>filter</title>",
		"engine/app.wasm":         wasm,
		"engine/app.wasm.gz":      gzipped(t, wasm),
		"static/style.css":        css,
		"play/examples.js":        "export {};\n",
		"embed/tablelab-embed.js": "export {};\n",
		"search.json":             "[]\n",
		"../outside-the-site.txt": "secret",
	})
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()

	t.Run("no redirect from index.html", func(t *testing.T) {
		for _, p := range []string{"/index.html", "/playground.html", "/reference/filter.html"} {
			resp, body := get(t, srv.URL+p, "")
			if resp.StatusCode != 200 || !strings.Contains(body, "<title>") {
				t.Errorf("%s: %d %q (Location %q)", p, resp.StatusCode, body, resp.Header.Get("Location"))
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("%s: Content-Type %q", p, ct)
			}
		}
	})
	t.Run("folders", func(t *testing.T) {
		if resp, body := get(t, srv.URL+"/", ""); resp.StatusCode != 200 || !strings.Contains(body, "home") {
			t.Errorf("/: %d %q", resp.StatusCode, body)
		}
		if resp, body := get(t, srv.URL+"/reference/", ""); resp.StatusCode != 200 || !strings.Contains(body, "ref") {
			t.Errorf("/reference/: %d %q", resp.StatusCode, body)
		}
		// Without its slash, relative links inside the folder would miss.
		if resp, _ := get(t, srv.URL+"/reference", ""); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "/reference/" {
			t.Errorf("/reference: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
		}
	})
	t.Run("wasm, precompressed", func(t *testing.T) {
		resp, body := get(t, srv.URL+"/engine/app.wasm", "br, gzip")
		if resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("headers %v", resp.Header)
		}
		if gunzip(t, body) != wasm {
			t.Error("the .gz copy does not unpack to the wasm")
		}
		if !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Vary %q", resp.Header.Get("Vary"))
		}
	})
	t.Run("wasm, plain", func(t *testing.T) {
		for _, ae := range []string{"", "identity", "gzip;q=0"} {
			resp, body := get(t, srv.URL+"/engine/app.wasm", ae)
			if resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Content-Encoding") != "" || body != wasm {
				t.Errorf("Accept-Encoding %q: headers %v, %d bytes", ae, resp.Header, len(body))
			}
		}
	})
	t.Run("gzip on the fly", func(t *testing.T) {
		resp, body := get(t, srv.URL+"/static/style.css", "gzip, deflate")
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Content-Type") != "text/css; charset=utf-8" {
			t.Fatalf("headers %v", resp.Header)
		}
		if len(body) >= len(css) || gunzip(t, body) != css {
			t.Errorf("compressed %d bytes of %d, or not to the file", len(body), len(css))
		}
	})
	t.Run("javascript modules and json", func(t *testing.T) {
		resp, _ := get(t, srv.URL+"/play/examples.js", "")
		if ct := resp.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" {
			t.Errorf("examples.js: %q", ct)
		}
		resp, _ = get(t, srv.URL+"/search.json", "")
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("search.json: %q", ct)
		}
	})
	t.Run("not found", func(t *testing.T) {
		for _, p := range []string{"/nope.html", "/../outside-the-site.txt", "/%2e%2e/outside-the-site.txt", "/engine/../../outside-the-site.txt"} {
			resp, body := get(t, srv.URL+p, "")
			if resp.StatusCode != 404 || strings.Contains(body, "secret") {
				t.Errorf("%s: %d %q", p, resp.StatusCode, body)
			}
		}
	})
	t.Run("pages without .html", func(t *testing.T) {
		for p, want := range map[string]string{"/playground": "play", "/reference/filter": "filter"} {
			resp, body := get(t, srv.URL+p, "")
			if resp.StatusCode != 200 || !strings.Contains(body, want) || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s: %d %q %v", p, resp.StatusCode, body, resp.Header)
			}
		}
		// A folder keeps its redirect, and only pages are found this way.
		if resp, _ := get(t, srv.URL+"/engine/app", ""); resp.StatusCode != 404 {
			t.Errorf("/engine/app: %d", resp.StatusCode)
		}
	})
	t.Run("the embed's files for other origins", func(t *testing.T) {
		// What another site's page loads carries CORS and CORP headers,
		// compressed or not, revalidated or missing; the pages do not.
		for _, p := range []string{"/embed/tablelab-embed.js", "/play/examples.js", "/engine/app.wasm", "/embed/missing.js"} {
			for _, ae := range []string{"", "gzip"} {
				resp, _ := get(t, srv.URL+p, ae)
				if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Cross-Origin-Resource-Policy") != "cross-origin" {
					t.Errorf("%s (Accept-Encoding %q): %d, headers %v", p, ae, resp.StatusCode, resp.Header)
				}
			}
		}
		req, _ := http.NewRequest("GET", srv.URL+"/engine/app.wasm", nil)
		req.Header.Set("If-Modified-Since", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
		resp, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotModified || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("revalidated wasm: %d, headers %v", resp.StatusCode, resp.Header)
		}
		for _, p := range []string{"/index.html", "/static/style.css", "/search.json", "/nope.html"} {
			resp, _ := get(t, srv.URL+p, "")
			if v := resp.Header.Get("Access-Control-Allow-Origin") + resp.Header.Get("Cross-Origin-Resource-Policy"); v != "" {
				t.Errorf("%s: cross-origin headers %q", p, v)
			}
		}
	})
	t.Run("only reads", func(t *testing.T) {
		resp, err := http.Post(srv.URL+"/index.html", "text/plain", strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST: %d", resp.StatusCode)
		}
	})
}

// TestNotFoundPage holds a missing path to the site's own 404 page, its
// status 404, with a base that leads its links back to the site's root.
func TestNotFoundPage(t *testing.T) {
	page := "<!doctype html><html><head><title>Page not found</title>" +
		`<link rel="stylesheet" href="static/style.css"></head><body><a href="index.html">home</a></body></html>`
	dir := writeSite(t, map[string]string{"index.html": "home", "404.html": page})
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	for p, base := range map[string]string{"/nope.html": "", "/patterns/nope": "../", "/a/b/c.html": "../../"} {
		resp, body := get(t, srv.URL+p, "")
		if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, "Page not found") {
			t.Errorf("%s: %d %v %q", p, resp.StatusCode, resp.Header, body)
		}
		hasBase := strings.Contains(body, `<base href="`+base+`">`)
		if (base != "") != hasBase || strings.Count(body, "<base") > 1 {
			t.Errorf("%s: want base %q in %q", p, base, body)
		}
	}
	// Without a 404 page, the plain answer.
	plain := httptest.NewServer(Handler(writeSite(t, map[string]string{"index.html": "home"})))
	defer plain.Close()
	if resp, body := get(t, plain.URL+"/nope", ""); resp.StatusCode != 404 || strings.Contains(body, "<base") {
		t.Errorf("no 404.html: %d %q", resp.StatusCode, body)
	}
}

func TestServerBuildsWhenMissingOrStale(t *testing.T) {
	root := writeSite(t, map[string]string{"content/index.md": "---\ntitle: x\n---\n"})
	dir := filepath.Join(root, "dist")
	builds := 0
	build := func() error {
		builds++
		return os.WriteFile(filepath.Join(dir, "index.html"), []byte("built"), 0o644)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := &Server{Root: root, Dir: dir, Build: build}
	if err := s.ensureBuilt(t.Logf); err != nil || builds != 1 {
		t.Fatalf("missing site: err %v, %d builds", err, builds)
	}
	if err := s.ensureBuilt(t.Logf); err != nil || builds != 1 {
		t.Fatalf("fresh site: err %v, %d builds", err, builds)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "content", "index.md"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := s.ensureBuilt(t.Logf); err != nil || builds != 2 {
		t.Fatalf("edited source: err %v, %d builds", err, builds)
	}
}

func TestServerServesOnLoopback(t *testing.T) {
	root := writeSite(t, map[string]string{"content/index.md": "---\ntitle: x\n---\n", "dist/index.html": "old"})
	failing := errors.New("the engine's sources are missing")
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(root, "content", "index.md"), later, later)
	var logged []string
	s := &Server{Root: root, Dir: filepath.Join(root, "dist"), Build: func() error { return failing },
		Logf: func(f string, args ...any) { logged = append(logged, f) }}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	// The build is tried first, while the address answers with a note.
	var body string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var resp *http.Response
		if resp, body = get(t, base+"/index.html", ""); resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never served: %d %q", resp.StatusCode, body)
		}
	}
	// A failed build leaves the site built before in service, and says so.
	if body != "old" || len(logged) == 0 || !strings.Contains(strings.Join(logged, "\n"), "serving the site built before") {
		t.Errorf("body %q, log %q", body, logged)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("after ctx ends: %v", err)
	}

	// With nothing built, a failed build is the answer.
	empty := &Server{Root: root, Dir: filepath.Join(root, "none"), Build: func() error { return failing }}
	if err := empty.ListenAndServe(context.Background(), "127.0.0.1:0"); !errors.Is(err, failing) {
		t.Errorf("no site and a failed build: %v", err)
	}
}

// TestLocalOnly checks that the tools answer clients on this machine
// only: a request from another address is refused with 403, and so is
// one from this machine that names a host other than a loopback one (a
// page of another site, its name resolving to 127.0.0.1).
func TestLocalOnly(t *testing.T) {
	h := LocalOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tools") }))
	for _, c := range []struct {
		remote, host string
		status       int
	}{
		{"127.0.0.1:5000", "127.0.0.1:8080", 200},
		{"127.0.0.1:5000", "localhost:8080", 200},
		{"127.0.0.1:5000", "LOCALHOST", 200},
		{"[::1]:5000", "[::1]:8080", 200},
		{"127.3.4.5:5000", "127.0.0.1", 200},
		{"192.0.2.7:5000", "127.0.0.1:8080", 403},
		{"10.0.0.2:5000", "localhost:8080", 403},
		{"[2001:db8::1]:5000", "[::1]:8080", 403},
		{"not an address", "127.0.0.1:8080", 403},
		{"127.0.0.1:5000", "rebound.example:8080", 403},
		{"127.0.0.1:5000", "192.0.2.7:8080", 403},
	} {
		r := httptest.NewRequest("GET", "/_tablelab/api/info", nil)
		r.RemoteAddr, r.Host = c.remote, c.host
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != c.status {
			t.Errorf("from %s for %s: %d %s, want %d", c.remote, c.host, w.Code, w.Body, c.status)
		}
		if w.Code == 403 && strings.Contains(w.Body.String(), "tools") {
			t.Errorf("from %s for %s: refused, yet the tools answered", c.remote, c.host)
		}
	}
}

// TestServerTools checks that the site's server hands the paths under
// ToolsPrefix to Tools, for loopback clients, and everything else to the
// built files, and that a request to the tools still open (an event
// stream) ends when the server does.
func TestServerTools(t *testing.T) {
	dir := writeSite(t, map[string]string{"index.html": "home"})
	streaming := make(chan struct{})
	tools := http.NewServeMux()
	tools.HandleFunc("/_tablelab/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tools") })
	tools.HandleFunc("/_tablelab/stream", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		close(streaming)
		<-r.Context().Done()
	})
	s := &Server{Root: t.TempDir(), Dir: dir, Tools: tools}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	for path, want := range map[string]string{"/_tablelab/hello": "tools", "/index.html": "home"} {
		_, body := get(t, "http://"+addr+path, "")
		if body != want {
			t.Errorf("%s: %q, want %q", path, body, want)
		}
	}
	resp, err := http.Get("http://" + addr + "/_tablelab/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	<-streaming
	start := time.Now()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("after ctx ends: %v", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the server took %v to stop with a stream open", took)
	}
}

// TestServeWhileBuilding checks the first run: the address answers at
// once, a page with the note that the site is being built (503, reloading
// itself) and the tools as usual, and the site itself once it is built.
func TestServeWhileBuilding(t *testing.T) {
	root := writeSite(t, map[string]string{"content/index.md": "---\ntitle: x\n---\n"})
	dist := filepath.Join(root, "dist")
	release := make(chan struct{})
	tools := http.NewServeMux()
	tools.HandleFunc("/_tablelab/hello", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tools") })
	s := &Server{Root: root, Dir: dist, Tools: tools, Build: func() error {
		<-release
		return os.WriteFile(filepath.Join(dist, "index.html"), []byte("home"), 0o644)
	}}
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()

	resp, body := get(t, base+"/index.html", "")
	if resp.StatusCode != 503 || !strings.Contains(body, "Building the docs site") || !strings.Contains(body, `http-equiv="refresh"`) || resp.Header.Get("Retry-After") == "" {
		t.Errorf("while building: %d %q", resp.StatusCode, body)
	}
	if _, body := get(t, base+"/_tablelab/hello", ""); body != "tools" {
		t.Errorf("the tools while building: %q", body)
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, body := get(t, base+"/index.html", "")
		if resp.StatusCode == 200 && body == "home" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("once built: %d %q", resp.StatusCode, body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("after ctx ends: %v", err)
	}
}
