//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/durable/persist"
	"github.com/tablelab/tablelab/internal/server"
	"github.com/valyala/fasthttp"
)

// TestTightenHeap checks that the server's memory limit follows the live
// heap (an eighth over it, plus the fixed allowances) and is lifted when
// the server stops.
func TestTightenHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	keep := make([][]byte, 0, 64)
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB that stays live
	}
	runtime.GC()
	stop := tightenHeap()
	var limit int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if limit = debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
			break
		}
	}
	stop()
	runtime.KeepAlive(keep)
	low, high := int64(64<<20)+64<<20+nonHeapAllowance, int64(96<<20)+96<<20/8+64<<20+nonHeapAllowance
	if limit < low || limit > high {
		t.Fatalf("limit %d MiB with 64 MiB live, want %d–%d MiB", limit>>20, low>>20, high>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit %d after stop, want none", got)
	}
}

// TestHoldFlag checks how -hold-mib reaches the store: MiB as bytes, and
// zero as "hold nothing", not as persist's "use the default".
func TestHoldFlag(t *testing.T) {
	cfg, err := parseFlags([]string{"-hold-mib", "8"})
	if err != nil {
		t.Fatal(err)
	}
	if got := holdBytes(cfg.holdMiB); got != 8<<20 {
		t.Fatalf("-hold-mib 8: %d bytes", got)
	}
	cfg, _ = parseFlags(nil)
	if got := holdBytes(cfg.holdMiB); got != persist.DefaultHoldBytes {
		t.Fatalf("default hold: %d bytes", got)
	}
	if got := holdBytes(0); got >= 0 {
		t.Fatalf("-hold-mib 0: %d", got)
	}
}

// lockedBuffer is a log destination the test reads while the server
// writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRefusedRequestsAreLogged checks that a request the front end
// refuses before the handler — a body over the limit (413), a request
// line that does not parse (400) — has its line in the request log like
// every other request, each line naming the service.
func TestRefusedRequestsAreLogged(t *testing.T) {
	var logged lockedBuffer
	rl := &requestLogger{logger: log.New(&logged, "", 0), all: true}
	srv := apifasthttp.NewServer(api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}),
		apifasthttp.Config{MaxBody: 1 << 10}, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return rl.wrap("Table", next) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	defer srv.Shutdown()

	for _, raw := range []string{
		"GET /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /devstoreaccount1/Tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n" + strings.Repeat("x", 4096),
		"NOT A REQUEST\r\n\r\n",
	} {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(raw)); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%.14q: %v", raw, err)
		}
		resp.Body.Close()
		c.Close()
	}
	lines := strings.Split(strings.TrimSpace(logged.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("log has %d lines, want one per request:\n%s", len(lines), logged.String())
	}
	for i, want := range []string{"Table GET /devstoreaccount1/Tables 200 ", "Table POST /devstoreaccount1/Tables 413 ", "Table - - 400 "} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("log line %d = %q, want it to hold %q", i, lines[i], want)
		}
		if refused := strings.Contains(lines[i], " refused: "); refused != (i > 0) {
			t.Errorf("log line %d = %q: says refused %v, want %v", i, lines[i], refused, i > 0)
		}
	}
}

// statusCore answers each request with the status its path names
// ("/500"), and marks the answers of "/fault/…" as an injected fault.
type statusCore struct{ api.Service }

func (c statusCore) Serve(r *api.Request) *api.Response {
	resp := &api.Response{Status: 200}
	path := strings.TrimPrefix(r.Target, "/fault")
	if path != r.Target {
		resp.Header.Set("X-Tablelab-Fault", "ServerBusy")
	}
	fmt.Sscanf(path, "/%d", &resp.Status)
	return resp
}

// TestRequestLogModes checks which requests each mode logs: by default
// a server error tablelab did not inject and a request it could not read,
// nothing else; under -v every request; under -quiet none.
func TestRequestLogModes(t *testing.T) {
	for _, c := range []struct {
		flags []string
		want  []string // the lines' prefixes, in order
	}{
		{nil, []string{"Table GET /500 500 ", "Table POST /200 413 "}},
		{[]string{"-v"}, []string{"Table GET /200 200 ", "Table GET /404 404 ", "Table GET /500 500 ", "Table GET /fault/503 503 ", "Table POST /200 413 "}},
		{[]string{"-quiet"}, nil},
	} {
		cfg, err := parseFlags(c.flags)
		if err != nil {
			t.Fatal(err)
		}
		var logged lockedBuffer
		var wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler
		if rl := requestLog(cfg, log.New(&logged, "", 0)); rl != nil {
			wrap = func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return rl.wrap("Table", next) }
		}
		core := statusCore{api.NewServer(engine.New(engine.Options{}), api.Options{})}
		srv := apifasthttp.NewServer(core, apifasthttp.Config{MaxBody: 16}, wrap)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go srv.Serve(ln)
		base := "http://" + ln.Addr().String()
		for _, path := range []string{"/200", "/404", "/500", "/fault/503"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		resp, err := http.Post(base+"/200", "text/plain", strings.NewReader(strings.Repeat("x", 64)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Shutdown()
		var lines []string
		if text := strings.TrimSpace(logged.String()); text != "" {
			lines = strings.Split(text, "\n")
		}
		ok := len(lines) == len(c.want)
		for i := 0; ok && i < len(lines); i++ {
			ok = strings.HasPrefix(lines[i], c.want[i])
		}
		if !ok {
			t.Errorf("%q: logged\n%s\nwant lines starting %q", c.flags, logged.String(), c.want)
		}
	}
}

// TestHelpExitsZero runs the built server with -h: it prints the flags
// and exits 0, while a flag it does not know is a usage error (exit 2).
func TestHelpExitsZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	_, bin := buildServer(t)
	out, err := exec.Command(bin, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("tablelab -h: %v\n%s", err, out)
	}
	for _, flag := range []string{"-blob-addr", "-queue-addr", "-table-addr", "-data", "-memory", "-loose", "-hold-mib", "-scan", "-scan-plans", "-throttle", "-fault", "-faults", "-fault-seed", "-paging", "-page-budget"} {
		if !strings.Contains(string(out), flag) {
			t.Errorf("tablelab -h does not print %s:\n%s", flag, out)
		}
	}
	out, err = exec.Command(bin, "-no-such-flag").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("tablelab -no-such-flag: %v, want exit status 2\n%s", err, out)
	}
}

// TestImportThenExport moves an export (as the playground's Export
// writes it) into a durable store with -import, and out of it again with
// -export after a restart; a text that is not an export is refused.
func TestImportThenExport(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.json"), filepath.Join(dir, "out.json")
	text := `{"tablelab":"export/1","tables":[{"name":"Orders","entities":[` +
		`{"PartitionKey":"p1","RowKey":"r1","Total@odata.type":"Edm.Int64","Total":"12"},` +
		`{"PartitionKey":"p1","RowKey":"r2","Note":"second"}]}]}`
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	logger := log.New(io.Discard, "", 0)
	data := filepath.Join(dir, "data")
	step := func(args ...string) (bool, error) {
		t.Helper()
		cfg, err := parseFlags(append([]string{"-data", data}, args...))
		if err != nil {
			t.Fatal(err)
		}
		store, closeStore := openTables(t, cfg)
		defer closeStore()
		return moveTables(cfg, store, logger)
	}
	if done, err := step("-import", in); done || err != nil {
		t.Fatalf("-import alone: done %v, %v; want the server to go on serving", done, err)
	}
	if done, err := step("-export", out); !done || err != nil {
		t.Fatalf("-export: done %v, %v; want it to end the run", done, err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"tablelab":"export/1"`, `"name":"Orders"`, `"RowKey":"r1"`, `"Total@odata.type":"Edm.Int64","Total":"12"`, `"Note":"second"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("export lacks %s:\n%s", want, got)
		}
	}
	if err := os.WriteFile(in, []byte(`{"tables":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := step("-import", in); err == nil || !strings.Contains(err.Error(), "-import") {
		t.Fatalf("-import of a text that is not an export: %v", err)
	}
	// An export whose second table holds a bad entity is refused before
	// anything is written: the error names the place, and the store
	// exports as before.
	bad := `{"tablelab":"export/1","tables":[` + "\n" +
		`{"name":"Fresh","entities":[{"PartitionKey":"p","RowKey":"r"}]},` + "\n" +
		`{"name":"Orders","entities":[{"PartitionKey":"p1","RowKey":"r9"},` + "\n" +
		`{"PartitionKey":"p1","RowKey":"a/b"}]}]}`
	if err := os.WriteFile(in, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = step("-import", in)
	want := "-import " + in + ": line 4, column 1: table Orders, entity 2 (PartitionKey 'p1', RowKey 'a/b'): its RowKey holds '/'"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("-import of an export with a bad entity: %v\nwant %s…", err, want)
	}
	again := filepath.Join(dir, "again.json")
	if _, err := step("-export", again); err != nil {
		t.Fatal(err)
	}
	if after, err := os.ReadFile(again); err != nil || string(after) != string(got) {
		t.Fatalf("a refused -import changed the store (%v):\n%s\nwas\n%s", err, after, got)
	}
	for _, args := range [][]string{{"-import", in, "-table-addr="}, {"-export", out, "-table-addr="}, {"-v", "-quiet"}} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

// serverOutput is what a server started by a test prints: all of it,
// and its standard output alone.
type serverOutput struct {
	all, stdout, stderr lockedBuffer
	exited              chan struct{} // closed once the process has ended
}

func (o *serverOutput) String() string { return o.all.String() }

// startBinary runs the server binary with args in the module's root and
// waits until addrs all accept connections or the process ends; it
// returns the process (nil when it ended) and its output so far.
func startBinary(t *testing.T, bin string, addrs []string, args ...string) (*exec.Cmd, *serverOutput) {
	return startBinaryIn(t, "", bin, addrs, args...)
}

// startBinaryIn is startBinary in the working directory dir.
func startBinaryIn(t *testing.T, dir, bin string, addrs []string, args ...string) (*exec.Cmd, *serverOutput) {
	t.Helper()
	out := new(serverOutput)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out.all, &out.stdout), io.MultiWriter(&out.all, &out.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	out.exited = exited
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the process this test started
		<-exited
	})
	deadline := time.Now().Add(20 * time.Second)
	for _, a := range addrs {
		for {
			if c, err := net.Dial("tcp", a); err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				return nil, out
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never listened:\n%s", a, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return cmd, out
}

// waitLog waits for the server's output to hold want.
func waitLog(t *testing.T, out fmt.Stringer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q:\n%s", want, out.String())
		}
	}
}

// openTables opens the tables' store of the data directory cfg names,
// as the server does, and returns it with the func that closes it.
func openTables(t *testing.T, cfg config) (*engine.Store, func()) {
	t.Helper()
	cfg.blobAddr, cfg.queueAddr = "", ""
	srv, err := server.Open(serverConfig(cfg, nil, log.New(io.Discard, "", 0), nil))
	if err != nil {
		t.Fatal(err)
	}
	return srv.Tables(), func() { srv.Close() }
}

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// TestStartupOutput runs the server as a reader first meets it and checks
// what it prints first: each service's endpoint, the site's address and
// the connection string, each on a line of its own with nothing before
// it, ready to paste; with a data directory, the stores' restore lines
// only under -v.
func TestStartupOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	// In a folder with a built site and no content/ to build it from,
	// the site is served as it is.
	site := t.TempDir()
	if err := os.MkdirAll(filepath.Join(site, "dist"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(site, "dist", "index.html"), []byte("home"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		var blobAddr, queueAddr, tableAddr, siteAddr string
		var cmd *exec.Cmd
		var out *serverOutput
		// A port found free may be taken before the server binds it
		// (another test's server): start again on fresh ports.
		for attempt := 1; ; attempt++ {
			blobAddr, queueAddr, tableAddr, siteAddr = freeAddr(t), freeAddr(t), freeAddr(t), freeAddr(t)
			args := []string{"-blob-addr", blobAddr, "-queue-addr", queueAddr, "-table-addr", tableAddr, "-site-addr", siteAddr, "-data", data}
			if verbose {
				args = append(args, "-v")
			}
			cmd, out = startBinaryIn(t, site, bin, []string{blobAddr, queueAddr, tableAddr, siteAddr}, args...)
			if cmd != nil {
				break
			}
			if attempt == 3 || !strings.Contains(out.String(), "address already in use") {
				t.Fatalf("the server ended:\n%s", out)
			}
		}
		waitLog(t, &out.stdout, "Ctrl-C stops the server.")
		want := []string{
			"Blob   http://" + blobAddr + "/devstoreaccount1",
			"Queue  http://" + queueAddr + "/devstoreaccount1",
			"Table  http://" + tableAddr + "/devstoreaccount1",
			"Site   http://" + siteAddr + "/",
			"Connection string:",
			"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey +
				";BlobEndpoint=http://" + blobAddr + "/devstoreaccount1;QueueEndpoint=http://" + queueAddr + "/devstoreaccount1;TableEndpoint=http://" + tableAddr + "/devstoreaccount1/",
		}
		lines := strings.Split(out.stdout.String(), "\n")
		if len(lines) < len(want) || !slices.Equal(lines[:len(want)], want) {
			t.Fatalf("-v %v: standard output starts\n%s\nwant\n%s", verbose, out.stdout.String(), strings.Join(want, "\n"))
		}
		// Without -v nothing else is printed; with it, the stores'
		// restores come first, on standard error.
		if got := out.stderr.String(); verbose != (got != "") || verbose != strings.Contains(got, "durable: restored") {
			t.Errorf("-v %v: standard error holds\n%s", verbose, got)
		}
		_ = cmd.Process.Signal(os.Interrupt)
		<-out.exited
	}
}

// TestDataLayout checks where the stores live: the development
// account's tables in the data directory itself, where a directory
// written before the Queue and Blob services existed has them (and still
// opens), the queues' and blobs' in queues/ and blobs/ beside them, and
// another account's (-accounts) in accounts/NAME/.
func TestDataLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	// A data directory as the server wrote it before: tables only.
	cfg, err := parseFlags([]string{"-data", data})
	if err != nil {
		t.Fatal(err)
	}
	store, closeStore := openTables(t, cfg)
	if err := store.CreateTable("older"); err != nil {
		t.Fatal(err)
	}
	closeStore()

	blobAddr, queueAddr, tableAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	cmd, out := startBinary(t, bin, []string{blobAddr, queueAddr, tableAddr},
		"-blob-addr", blobAddr, "-queue-addr", queueAddr, "-table-addr", tableAddr, "-site-addr=", "-data", data,
		"-accounts", "other:"+base64.StdEncoding.EncodeToString([]byte("other's key")))
	if cmd == nil {
		t.Fatalf("the server ended:\n%s", out.String())
	}
	waitLog(t, out, "Ctrl-C stops the server.")
	if !strings.Contains(out.String(), "Accounts besides devstoreaccount1 (-accounts), each with data of its own: other.\n") {
		t.Errorf("the startup output does not name the other account:\n%s", out.String())
	}
	for _, f := range []string{"LOCK", "queues/LOCK", "blobs/LOCK", "settings/LOCK", "accounts/other/LOCK", "accounts/other/blobs/LOCK"} {
		if _, err := os.Stat(filepath.Join(data, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// Without -loose, an unsigned request is refused...
	resp, err := http.Get("http://" + tableAddr + "/devstoreaccount1/Tables('older')")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Fatalf("an unsigned request to a server without -loose: %d", resp.StatusCode)
	}
	// ...and the table written before is there once the store is
	// reopened by hand, the server stopped.
	_ = cmd.Process.Signal(os.Interrupt)
	waitLog(t, out, "shutting down")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		srv, err := server.Open(serverConfig(cfg, nil, log.New(io.Discard, "", 0), nil))
		if err == nil {
			// The queues' and blobs' directories are free again too.
			defer srv.Close()
			store = srv.Tables()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the data directory is still held after SIGINT: %v", err)
		}
	}
	if _, ok := store.TableExists("older"); !ok {
		t.Fatal("the table written before the server ran is gone")
	}
}

// TestBusyAddresses checks what a taken address does: a Blob or Queue
// address left at its default is skipped with a warning and the other
// services still run (another tablelab or Azurite may hold 10000), while
// an address given on the command line must be free.
func TestBusyAddresses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	_, bin := buildServer(t)
	// Hold the Blob service's default address, unless someone else does.
	if ln, err := net.Listen("tcp", "127.0.0.1:10000"); err == nil {
		defer ln.Close()
	}
	queueAddr, tableAddr := freeAddr(t), freeAddr(t)
	cmd, out := startBinary(t, bin, []string{queueAddr, tableAddr}, "-memory", "-queue-addr", queueAddr, "-table-addr", tableAddr, "-site-addr=")
	if cmd == nil {
		t.Fatalf("with 127.0.0.1:10000 taken and -blob-addr at its default, the server ended:\n%s", out.String())
	}
	waitLog(t, out, "Ctrl-C stops the server.")
	if !strings.Contains(out.String(), "Blob service not served: ") || strings.Contains(out.String(), "BlobEndpoint") {
		t.Fatalf("the log does not say the Blob service is off:\n%s", out.String())
	}

	taken := freeAddr(t)
	ln, err := net.Listen("tcp", taken)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got, err := exec.Command(bin, "-memory", "-blob-addr", taken, "-queue-addr=", "-table-addr", freeAddr(t), "-site-addr=").CombinedOutput()
	if err == nil || !strings.Contains(string(got), "address already in use") {
		t.Fatalf("-blob-addr given and taken: %v\n%s", err, got)
	}
	got, err = exec.Command(bin, "-memory", "-blob-addr=", "-queue-addr=", "-table-addr=", "-site-addr=").CombinedOutput()
	if err == nil || !strings.Contains(string(got), "no service to serve") {
		t.Fatalf("every service off: %v\n%s", err, got)
	}
}

// TestLogShowsPlanAndWarning checks that the request log (under -v) gives a query's
// plan and, when its filter compares a property with a literal of a type
// the property never had, the warning the response carries.
func TestLogShowsPlanAndWarning(t *testing.T) {
	var out bytes.Buffer
	logger := log.New(&out, "", 0)
	srv := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	for _, r := range []*api.Request{
		{Method: "POST", Target: "/devstoreaccount1/Tables", Host: "127.0.0.1:10002", Body: []byte(`{"TableName":"people"}`)},
		{Method: "POST", Target: "/devstoreaccount1/people", Host: "127.0.0.1:10002", Body: []byte(`{"PartitionKey":"p","RowKey":"r","Age":3}`)},
	} {
		if resp := srv.Serve(r); resp.Status != 201 {
			t.Fatalf("%d %s", resp.Status, resp.Body)
		}
	}
	rl := &requestLogger{logger: logger, all: true}
	handler := rl.wrap("table", func(ctx *fasthttp.RequestCtx) {
		resp := srv.Serve(&api.Request{Method: "GET", Target: string(ctx.RequestURI()), Host: "127.0.0.1:10002"})
		resp.Header.Each(func(name, value string) { ctx.Response.Header.Set(name, value) })
		ctx.SetStatusCode(resp.Status)
	})
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/devstoreaccount1/people()?$filter=Age%20gt%20'2'")
	handler(&ctx)
	if got := out.String(); !strings.Contains(got, " 200 ") || !strings.Contains(got, " plan=table-scan examined=1 returned=0 warning: Age is Edm.Int32 on the one entity where the filter tested it, but Age gt '2' compares it with an Edm.String literal") {
		t.Fatalf("log: %s", got)
	}
}
