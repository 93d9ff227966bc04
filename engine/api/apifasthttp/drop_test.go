package apifasthttp

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// marking is a service that answers what the Table service answers, with
// a reason phrase of its own on requests for /devstoreaccount1/busy and
// dropped on requests for /devstoreaccount1/drop.
type marking struct{ api.Service }

func (m marking) Serve(req *api.Request) *api.Response {
	resp := m.Service.Serve(req)
	switch {
	case strings.HasPrefix(req.Target, "/devstoreaccount1/busy"):
		resp.Status, resp.Reason = 503, "Server Busy"
	case strings.HasPrefix(req.Target, "/devstoreaccount1/drop"):
		resp.Drop = true
	}
	return resp
}

// TestReasonAndDrop checks that a response's Reason is its status line's
// reason phrase, that a dropped one closes the connection with no answer
// at all, and that the server goes on serving other connections.
func TestReasonAndDrop(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	srv := NewServer(marking{core}, Config{}, nil)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	base := "http://" + ln.Addr().String() + "/devstoreaccount1"

	c, r := dialRaw(t, base)
	io.WriteString(c, "GET /devstoreaccount1/busy HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	line, err := r.ReadString('\n')
	if err != nil || line != "HTTP/1.1 503 Server Busy\r\n" {
		t.Fatalf("status line %q, %v; want 503 Server Busy", line, err)
	}

	c, r = dialRaw(t, base)
	io.WriteString(c, "GET /devstoreaccount1/drop HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	got, err := io.ReadAll(r)
	// The connection is reset, as when a connection to the service is
	// lost, rather than closed in good order or left to time out.
	if len(got) != 0 || !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("dropped request: read %q, %v; want nothing, then the connection reset", got, err)
	}

	resp, err := http.Get(base + "/Tables")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("after a drop: %d, want 200", resp.StatusCode)
	}
}
