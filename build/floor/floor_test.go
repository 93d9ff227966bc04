package floor

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

func start(t *testing.T, spin time.Duration) (*Server, string, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := New(dir, 1<<16, []byte(`{"RowKey":"r"}`))
	if err != nil {
		t.Fatal(err)
	}
	s.Spin = spin
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return s, "http://" + ln.Addr().String(), dir
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// The floor answers reads with its body and writes with 204 once the body
// is in its file, counts both, and says so at ServedPath without counting
// the question.
func TestFloorAnswersAndCounts(t *testing.T) {
	s, base, dir := start(t, 0)
	if got := get(t, base+"/devstoreaccount1/t(PartitionKey='p',RowKey='r')"); got != `{"RowKey":"r"}` {
		t.Errorf("read answered %q", got)
	}
	resp, err := http.Post(base+"/devstoreaccount1/t", "application/json", bytes.NewReader([]byte(`{"written":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 {
		t.Errorf("write answered %d", resp.StatusCode)
	}
	if f, _ := os.ReadFile(filepath.Join(dir, "floor-appends")); !bytes.HasPrefix(f, []byte(`{"written":1}`)) {
		t.Errorf("the write is not in the file: %.20q", f)
	}
	for range 2 {
		if got := get(t, base+ServedPath); got != "2" {
			t.Errorf("%s says %s, want 2", ServedPath, got)
		}
	}
	if s.Served() != 2 {
		t.Errorf("Served() = %d, want 2", s.Served())
	}
}

// A busy floor takes at least its Spin over every answer.
func TestFloorSpins(t *testing.T) {
	const spin = 20 * time.Millisecond
	_, base, _ := start(t, spin)
	get(t, base+"/warm")
	for range 3 {
		start := time.Now()
		get(t, base+"/devstoreaccount1/t()")
		if took := time.Since(start); took < spin {
			t.Fatalf("answered in %s, under its spin of %s", took, spin)
		}
	}
	if got, _ := strconv.Atoi(get(t, base+ServedPath)); got != 4 {
		t.Errorf("%s says %d, want 4", ServedPath, got)
	}
}
