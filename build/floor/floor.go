// Package floor is the benchmark's do-nothing server: what the machine
// allows before any table work.
//
// It runs on the same HTTP stack as tablelab (fasthttp), answers every
// read with a fixed entity of the benchmark's size and every write with
// one write of its body + data sync. The writes go into a zero-filled,
// already synced file, as tablelab's log does, which makes each sync
// cheaper than the fsync bound's appends: a data sync need not commit a
// new file size. It parses nothing, checks no signature and keeps nothing
// in memory, so no table server on this machine and this stack can beat
// its figures; run in the same benchmark, it shows which targets the
// loopback round trip and the disk leave reachable here.
//
// It counts the requests it answers and says how many at ServedPath, so
// that a benchmark can check that the requests it meant for the floor
// reached the floor, and no others.
package floor

import (
	"bytes"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablelab/tablelab/engine/durable/osfile"
	"github.com/valyala/fasthttp"
)

// ServedPath is where a GET is answered with the number of requests the
// floor has answered before it, in decimal. It is not counted itself.
const ServedPath = "/_floor/served"

// Main serves the command line args (-addr, -dir) until the process is
// killed, answering reads with readBody.
//
//	go run ./build floor-server -addr 127.0.0.1:PORT -dir DIR
func Main(args []string, readBody []byte) error {
	fs := flag.NewFlagSet("floor-server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	dir := fs.String("dir", os.TempDir(), "directory for the append file")
	spin := fs.Duration("spin", 0, "busy-wait this long before each answer, as a server doing that much work would")
	if err := fs.Parse(args); err != nil {
		return err
	}
	s, err := New(*dir, AppendSize, readBody)
	if err != nil {
		return err
	}
	defer s.Close()
	s.Spin = *spin
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	return s.Serve(ln)
}

// AppendSize is the size of the preallocated file the writes cycle
// through when the floor runs as a command.
const AppendSize = 64 << 20

// A Server is the floor server.
type Server struct {
	// Spin is how long the server busy-waits before each answer: the
	// floor of a server that did that much work per request, which shows
	// how a round trip grows with the server's time (set before Serve).
	Spin time.Duration

	readBody []byte
	served   atomic.Int64
	http     fasthttp.Server

	mu   sync.Mutex // over the file and off
	f    *os.File
	size int64
	off  int64
}

// New returns a floor server that answers reads with readBody and
// writes into a file of size bytes that it preallocates in dir.
func New(dir string, size int64, readBody []byte) (*Server, error) {
	f, err := os.Create(filepath.Join(dir, "floor-appends"))
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(make([]byte, size)); err != nil {
		f.Close()
		return nil, err
	}
	if err := osfile.SyncData(f); err != nil {
		f.Close()
		return nil, err
	}
	s := &Server{readBody: readBody, f: f, size: size}
	s.http.Handler = s.serve
	return s, nil
}

// Serve answers the connections ln accepts until Close.
func (s *Server) Serve(ln net.Listener) error { return s.http.Serve(ln) }

// Close stops the server and closes its file.
func (s *Server) Close() error {
	err := s.http.Shutdown()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Served returns the number of requests the server has answered.
func (s *Server) Served() int64 { return s.served.Load() }

func (s *Server) serve(ctx *fasthttp.RequestCtx) {
	if ctx.IsGet() && bytes.Equal(ctx.Path(), []byte(ServedPath)) {
		ctx.SetBodyString(strconv.FormatInt(s.served.Load(), 10))
		return
	}
	s.served.Add(1)
	if s.Spin > 0 {
		for start := time.Now(); time.Since(start) < s.Spin; {
		}
	}
	if ctx.IsGet() {
		ctx.Response.Header.Set("ETag", `W/"datetime'2026-11-23T05%3A00%3A00.0000000Z'"`)
		ctx.SetContentType("application/json;odata=nometadata;streaming=true;charset=utf-8")
		ctx.SetBody(s.readBody)
		return
	}
	body := ctx.PostBody()
	s.mu.Lock()
	if s.off+int64(len(body)) > s.size {
		s.off = 0
	}
	_, err := s.f.WriteAt(body, s.off)
	s.off += int64(len(body))
	if err == nil {
		err = osfile.SyncData(s.f)
	}
	s.mu.Unlock()
	if err != nil {
		ctx.SetStatusCode(fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetStatusCode(fasthttp.StatusNoContent)
}
