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
package floor

import (
	"flag"
	"os"
	"path/filepath"
	"sync"

	"github.com/tablelab/tablelab/engine/durable/osfile"
	"github.com/valyala/fasthttp"
)

// Main serves the command line args (-addr, -dir) until the process is
// killed, answering reads with readBody.
//
//	go run ./build floor-server -addr 127.0.0.1:PORT -dir DIR
func Main(args []string, readBody []byte) error {
	fs := flag.NewFlagSet("floor-server", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	dir := fs.String("dir", os.TempDir(), "directory for the append file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return Serve(*addr, *dir, readBody)
}

// appendSize is the preallocated file the writes cycle through.
const appendSize = 64 << 20

// Serve listens on addr and answers until the process ends.
func Serve(addr, dir string, readBody []byte) error {
	f, err := os.Create(filepath.Join(dir, "floor-appends"))
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(make([]byte, appendSize)); err != nil {
		return err
	}
	if err := osfile.SyncData(f); err != nil {
		return err
	}
	var mu sync.Mutex
	var off int64
	return fasthttp.ListenAndServe(addr, func(ctx *fasthttp.RequestCtx) {
		if ctx.IsGet() {
			ctx.Response.Header.Set("ETag", `W/"datetime'2026-11-23T05%3A00%3A00.0000000Z'"`)
			ctx.SetContentType("application/json;odata=nometadata;streaming=true;charset=utf-8")
			ctx.SetBody(readBody)
			return
		}
		body := ctx.PostBody()
		mu.Lock()
		if off+int64(len(body)) > appendSize {
			off = 0
		}
		_, err := f.WriteAt(body, off)
		off += int64(len(body))
		if err == nil {
			err = osfile.SyncData(f)
		}
		mu.Unlock()
		if err != nil {
			ctx.SetStatusCode(fasthttp.StatusInternalServerError)
			return
		}
		ctx.SetStatusCode(fasthttp.StatusNoContent)
	})
}
