//go:build js && wasm

package main

import (
	"errors"
	"io"
	"net/http"
	"runtime/debug"
	"syscall/js"

	"github.com/syumai/workers"

	"github.com/tablelab/tablelab/wasm/promise"
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
	workers.ServeNonBlock(bridge{newHandler(ctx, getenv)})
	workers.Ready()
	select {}
}

// newHandler makes the Worker's handler from its settings, or one that
// says why it cannot serve.
func newHandler(ctx js.Value, getenv func(string) string) http.Handler {
	cfg, err := readConfig(getenv)
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	if cfg.memory || !ctx.Get("durable").Truthy() {
		cores, err := memoryCores(cfg)
		if err != nil {
			return refuse("tablelab: " + err.Error())
		}
		return newHost(cfg, cores, "ephemeral")
	}
	h, err := newDurableHost(cfg, jsCaller(ctx), func(r *http.Request) (storage, error) {
		sql := ctx.Call("sqlOf", r.Header.Get(hdrCall))
		if sql.Type() != js.TypeObject {
			return nil, errors.New("the call " + r.Header.Get(hdrCall) + " has no storage")
		}
		return &sqlStorage{sql: sql}, nil
	})
	if err != nil {
		return refuse("tablelab: " + err.Error())
	}
	return h
}

// hdrCall marks a request a Durable Object handed the runtime, naming
// the call whose storage is the object's (worker.mjs).
const hdrCall = "X-Tablelab-Call"

// jsCaller sends requests to objects through worker.mjs's callObject
// (a Durable Object stub's fetch).
func jsCaller(ctx js.Value) caller {
	return func(name string, r *http.Request) (*recorder, error) {
		headers := js.Global().Get("Headers").New()
		for k, vs := range r.Header {
			for _, v := range vs {
				headers.Call("append", k, v)
			}
		}
		init := js.Global().Get("Object").New()
		init.Set("method", r.Method)
		init.Set("headers", headers)
		if r.Body != nil && r.Body != http.NoBody {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				return nil, err
			}
			if len(b) > 0 {
				a := uint8ArrayClass.New(len(b))
				js.CopyBytesToJS(a, b)
				init.Set("body", a)
			}
		}
		resp, err := promise.Await(ctx.Call("callObject", name, schemeOf(r)+"://"+r.Host+targetOf(r), init))
		if err != nil {
			return nil, err
		}
		rec := newRecorder()
		pairs := js.Global().Get("Array").Call("from", resp.Get("headers"))
		for i, n := 0, pairs.Length(); i < n; i++ {
			p := pairs.Index(i)
			rec.hdr.Add(p.Index(0).String(), p.Index(1).String())
		}
		// The body arrives decoded, whatever the runtime did on the way.
		rec.hdr.Del("Content-Encoding")
		rec.hdr.Del("Content-Length")
		rec.status = resp.Get("status").Int()
		buf, err := promise.Await(resp.Call("arrayBuffer"))
		if err != nil {
			return nil, err
		}
		a := uint8ArrayClass.New(buf)
		b := make([]byte, a.Length())
		js.CopyBytesToGo(b, a)
		rec.body.Write(b)
		return rec, nil
	}
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
