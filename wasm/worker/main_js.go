//go:build js && wasm

package main

import (
	"net/http"
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/syumai/workers"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/wasm/stores"
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
	// A front (role "front") serves the three services from memory; a
	// Durable Object (role "object") serves the one it keeps.
	cfg, err := readConfig(getenv)
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	cores, err := memoryCores(cfg)
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	ctx := js.Global().Get("context")
	if ctx.Get("role").String() != "object" {
		return newHost(cfg, cores, "ephemeral")
	}
	// A Durable Object: one service's store, kept in the object's SQLite
	// storage. The front sends it only that service's requests.
	svc := stores.Table
	switch ctx.Get("service").String() {
	case "blob":
		svc = stores.Blob
	case "queue":
		svc = stores.Queue
	}
	m, err := newSQLMedium(ctx.Get("sql"))
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	db, err := durable.Open(m, durable.Options{OpenKeys: svc != stores.Table, MinCompactBytes: compactBytes, CheckEvery: compactEvery})
	if err != nil {
		return refuse("tablelab: the " + svc.String() + " store: " + err.Error())
	}
	if cores[svc], err = core(cfg, svc, db.Store); err != nil {
		return refuse("tablelab: the " + svc.String() + " store: " + err.Error())
	}
	return newHost(cfg, cores, "")
}

// An object's log is compacted into a snapshot once it passes
// compactBytes and has outgrown the snapshot; looking costs a timer that
// keeps the object awake, so it looks seldom.
const (
	compactBytes = 1 << 20
	compactEvery = 10 * time.Second
)

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
