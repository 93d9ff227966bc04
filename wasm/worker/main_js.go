//go:build js && wasm

package main

import (
	"net/http"
	"runtime/debug"
	"syscall/js"

	"github.com/syumai/workers"
)

// memoryLimit bounds the Go heap well under an isolate's 128 MB: wasm
// memory, once grown, is never given back, so the collector must work
// before the heap grows rather than after.
const memoryLimit = 64 << 20

func main() {
	debug.SetMemoryLimit(memoryLimit)
	// worker.mjs hands each runtime its context: the Worker's env, and
	// the binding object workers.ServeNonBlock puts handleRequest on.
	ctx := js.Global().Get("context")
	getenv := func(name string) string {
		if v := ctx.Get("env").Get(name); v.Type() == js.TypeString {
			return v.String()
		}
		return ""
	}
	workers.ServeNonBlock(bridge{newHandler(getenv)})
	workers.Ready()
	select {}
}

// newHandler makes the Worker's handler from its settings, or one that
// says why it cannot serve.
func newHandler(getenv func(string) string) http.Handler {
	cfg, err := readConfig(getenv)
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	cores, err := memoryCores(cfg)
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	return newHost(cfg, cores, "ephemeral")
}

// refuse answers every request with a 500 saying why: a Worker deployed
// without its settings.
type refuse string

func (msg refuse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := newRecorder()
	rec.hdr.Set("Content-Type", "text/plain; charset=utf-8")
	rec.WriteHeader(500)
	rec.Write([]byte(string(msg) + "\n"))
	rec.copyTo(w, r.Method)
}
