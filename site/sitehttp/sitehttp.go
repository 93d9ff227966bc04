// Package sitehttp serves the built docs site: static files with the
// types browsers insist on (application/wasm), gzip when the client takes
// it, and no redirects, so a share link to /playground.html or
// /index.html#… keeps the address it was given.
package sitehttp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// notFoundPage is the site's own page for a missing address, written by
// the site build.
const notFoundPage = "404.html"

// notFound answers a missing path with the site's 404 page, status 404.
// The page's links lead from the site's root; for a path in a folder, a
// <base> sent with it leads them back there. Without the page (a site
// built before it existed), the answer is plain text.
func notFound(w http.ResponseWriter, r *http.Request, root *os.Root, name string) {
	page, err := root.ReadFile(notFoundPage)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if depth := strings.Count(name, "/"); depth > 0 {
		base := []byte(`<head>` + "\n" + `<base href="` + strings.Repeat("../", depth) + `">`)
		page = bytes.Replace(page, []byte("<head>"), base, 1)
	}
	w.Header().Set("Content-Type", contentTypes[".html"])
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	if r.Method != http.MethodHead {
		w.Write(page)
	}
}

// contentTypes are set by name rather than from the system's MIME table,
// which differs between machines and may lack .wasm or .mjs.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".json": "application/json",
	".wasm": "application/wasm",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
	".md":   "text/plain; charset=utf-8",
	".gz":   "application/gzip",
}

// compressible types are worth gzipping on the fly when no .gz copy lies
// beside the file.
var compressible = map[string]bool{".html": true, ".css": true, ".js": true, ".mjs": true, ".json": true, ".wasm": true, ".svg": true, ".txt": true, ".md": true}

// crossOriginDirs are the folders of the site whose files pages of other
// sites load: the embed (embed/), the modules and bundles it imports
// (play/) and the engine its workers run (engine/).
var crossOriginDirs = []string{"embed/", "play/", "engine/"}

// CrossOriginDirs returns the folders of the site, each ending in "/",
// whose files are served with CrossOriginHeaders.
func CrossOriginDirs() []string {
	return append([]string(nil), crossOriginDirs...)
}

// CrossOriginHeaders returns the headers, name then value, that let a
// page of another origin load a file of the embed: module scripts and
// the engine's fetch of app.wasm are CORS requests and need
// Access-Control-Allow-Origin; the engine worker's importScripts is not,
// and a page that isolates itself (Cross-Origin-Embedder-Policy:
// require-corp) loads it only with Cross-Origin-Resource-Policy.
func CrossOriginHeaders() [][2]string {
	return [][2]string{
		{"Access-Control-Allow-Origin", "*"},
		{"Cross-Origin-Resource-Policy", "cross-origin"},
	}
}

// crossOrigin reports whether name, a path under the site's root, is a
// file other sites' pages load.
func crossOrigin(name string) bool {
	for _, dir := range crossOriginDirs {
		if strings.HasPrefix(name, dir) {
			return true
		}
	}
	return false
}

// Handler serves the files under dir. A path ending in "/" serves that
// folder's index.html; a folder named without the "/" is redirected to it,
// since relative links inside it would otherwise miss.
func Handler(dir string) http.Handler {
	return &handler{dir: dir}
}

type handler struct {
	dir string
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := path.Clean("/" + r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") {
		name = path.Join(name, "index.html")
	}
	name = strings.TrimPrefix(name, "/")
	if crossOrigin(name) {
		// On every answer, a 404 or a 304 too: a browser reads none of
		// them from another origin without it.
		for _, h := range CrossOriginHeaders() {
			w.Header().Set(h[0], h[1])
		}
	}
	// os.Root keeps every open inside dir, symbolic links included.
	root, err := os.OpenRoot(h.dir)
	if err != nil {
		http.Error(w, "the site is not built", http.StatusServiceUnavailable)
		return
	}
	defer root.Close()
	info, err := root.Stat(name)
	if err != nil && path.Ext(name) == "" && name != "" {
		// A page asked for without its .html, as links are often
		// written by hand: serve the page where it is.
		if i, herr := root.Stat(name + ".html"); herr == nil && !i.IsDir() {
			name, info, err = name+".html", i, nil
		}
	}
	if err != nil {
		notFound(w, r, root, name)
		return
	}
	if info.IsDir() {
		http.Redirect(w, r, path.Base(name)+"/", http.StatusMovedPermanently)
		return
	}
	ext := path.Ext(name)
	ctype, ok := contentTypes[ext]
	if !ok {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	// Pages and the engine change with each build: revalidate every time.
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("X-Content-Type-Options", "nosniff")

	gzipOK := compressible[ext] && acceptsGzip(r.Header.Get("Accept-Encoding"))
	if compressible[ext] {
		w.Header().Add("Vary", "Accept-Encoding")
	}
	if gzipOK {
		if f, err := root.Open(name + ".gz"); err == nil {
			defer f.Close()
			if gzInfo, err := f.Stat(); err == nil && !gzInfo.IsDir() {
				w.Header().Set("Content-Encoding", "gzip")
				http.ServeContent(w, r, name, info.ModTime(), f)
				return
			}
		}
	}
	f, err := root.Open(name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	if !gzipOK || info.Size() < 1024 {
		http.ServeContent(w, r, name, info.ModTime(), f)
		return
	}
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Last-Modified", info.ModTime().UTC().Format(http.TimeFormat))
	if r.Method == http.MethodHead {
		return
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if _, err := io.Copy(zw, f); err != nil {
		return
	}
	zw.Close()
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// A Server serves the site built from Root into Dir, building it first
// when it is missing or older than its sources.
type Server struct {
	Root string
	Dir  string
	// Logf reports progress and problems; nil discards them.
	Logf func(format string, args ...any)
	// Build rebuilds Dir; nil runs `go run ./build site -out Dir` in Root.
	Build func() error
	// Tools, when set, answers the paths under ToolsPrefix (the explorer's
	// and the inspector's requests), for clients on this machine only
	// (LocalOnly).
	Tools http.Handler
}

// ToolsPrefix is the reserved path under which the site answers the local
// server's own tools rather than with files; the site's content has no
// folder of that name.
const ToolsPrefix = "/_tablelab/"

// handler is the site's handler: files from Dir, and Tools under
// ToolsPrefix.
func (s *Server) handler() http.Handler {
	files := Handler(s.Dir)
	if s.Tools == nil {
		return files
	}
	tools := LocalOnly(s.Tools)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, ToolsPrefix) {
			tools.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// LocalOnly passes on the requests of clients on this machine and refuses
// the rest with 403: a request must come from a loopback address and name
// a loopback host (localhost, 127.0.0.1, [::1]). The second check stops a
// page of another site whose name is made to resolve to 127.0.0.1 (DNS
// rebinding) from reading through the browser of someone on this machine.
func LocalOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ip, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil || !loopbackIP(ip) {
			http.Error(w, "the explorer and the inspector answer clients on this machine only", http.StatusForbidden)
			return
		}
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if !strings.EqualFold(host, "localhost") && !loopbackIP(host) {
			http.Error(w, "the explorer and the inspector answer requests for localhost, 127.0.0.1 or [::1] only, not for "+r.Host, http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func loopbackIP(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && ip.IsLoopback()
}

// ListenAndServe builds the site if needed, then serves it on addr until
// ctx ends. When the build fails but an older site is there, it serves
// that one and says so.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	logf := s.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := s.ensureBuilt(logf); err != nil {
		if _, statErr := os.Stat(filepath.Join(s.Dir, "index.html")); statErr != nil {
			return err
		}
		logf("site: %v; serving the site built before", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// Requests end with ctx: the inspector's event streams would
		// otherwise hold Shutdown to its limit.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	logf("site: docs and playground on http://%s/", ln.Addr())
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (s *Server) ensureBuilt(logf func(string, ...any)) error {
	if _, err := os.Stat(filepath.Join(s.Root, "content")); errors.Is(err, fs.ErrNotExist) {
		// Not in a checkout: serve what was built, if anything.
		return err
	}
	stale, err := Stale(s.Root, s.Dir)
	if err != nil || !stale {
		return err
	}
	logf("site: building %s from %s", s.Dir, filepath.Join(s.Root, "content"))
	start := time.Now()
	build := s.Build
	if build == nil {
		build = s.runBuilder
	}
	if err := build(); err != nil {
		return err
	}
	logf("site: built in %v", time.Since(start).Round(time.Millisecond))
	return nil
}

// runBuilder builds the site with the build command, in a process of its
// own: it needs the Go toolchain for the wasm anyway.
func (s *Server) runBuilder() error {
	out, err := filepath.Abs(s.Dir)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "run", "./build", "site", "-out", out)
	cmd.Dir = s.Root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go run ./build site: %v\n%s", err, msg)
	}
	return nil
}
