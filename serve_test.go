//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bufio"
	"bytes"
	"errors"
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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/durable/persist"
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
// every other request.
func TestRefusedRequestsAreLogged(t *testing.T) {
	var logged lockedBuffer
	srv := frontEnd(api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}}),
		apifasthttp.Config{MaxBody: 1 << 10}, log.New(&logged, "", 0))
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
	for i, want := range []string{"GET /devstoreaccount1/Tables 200 ", "POST /devstoreaccount1/Tables 413 ", "- - 400 "} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("log line %d = %q, want it to hold %q", i, lines[i], want)
		}
		if refused := strings.Contains(lines[i], " refused: "); refused != (i > 0) {
			t.Errorf("log line %d = %q: says refused %v, want %v", i, lines[i], refused, i > 0)
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
	for _, flag := range []string{"-table-addr", "-data", "-memory", "-loose", "-hold-mib"} {
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
		store, closeStore, err := openStore(cfg, logger)
		if err != nil {
			t.Fatal(err)
		}
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
}
