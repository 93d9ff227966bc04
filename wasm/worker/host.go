package main

import (
	"bytes"
	"net/http"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apihttp"
	"github.com/tablelab/tablelab/engine/svcerr"
	"github.com/tablelab/tablelab/wasm/stores"
)

// The test hooks, answered only with the dev flag set.
const (
	// hookPanic, as a request header, makes the host panic while serving
	// the request, as a bug would.
	hookPanic = "X-Tablelab-Test-Panic"
	// hookHeap is the path that reports the Go heap after a collection,
	// as "live=N sys=N goroutines=N".
	hookHeap = "/_tablelab/heap"
)

// storageHeader labels every answer of the in-isolate mode, whose data
// lives only as long as the isolate and is not shared between isolates.
const storageHeader = "X-Tablelab-Storage"

// host is the Worker's http.Handler: it chooses the service a request
// is for, hands the request to that service's protocol core through
// apihttp, and keeps the runtime alive whatever happens while it does.
// It answers into a buffer (a recorder) so that a failure halfway
// through is still answered whole, in the service's format.
type host struct {
	cfg config
	// services answer each service's requests, by stores.Service.
	services [3]func(*recorder, *http.Request)
	// errs write each service's errors.
	errs [3]api.Service
	// label, when not empty, is the storageHeader value.
	label string
}

// newHost returns a host over the three protocol cores, indexed by
// stores.Service.
func newHost(cfg config, cores [3]api.Service, label string) *host {
	h := &host{cfg: cfg, label: label, errs: cores}
	for i, core := range cores {
		h.services[i] = func(rec *recorder, r *http.Request) { apihttp.Handler{Server: core}.ServeHTTP(rec, r) }
	}
	return h
}

// newDurableHost returns the host of the Durable Object mode: a request
// a Durable Object hands the runtime (worker.mjs marks it with the call
// that carries the object's storage) is that object's to answer; any
// other is a client's, and the Table service's front routes it to its
// objects. storageOf returns the storage of an object's call.
func newDurableHost(cfg config, call caller, storageOf func(*http.Request) (storage, error)) (*host, error) {
	errs, err := memoryCores(cfg)
	if err != nil {
		return nil, err
	}
	os, front := newObjects(cfg, call), newShards(call)
	h := &host{cfg: cfg, errs: errs}
	for i := range h.services {
		h.services[i] = func(rec *recorder, r *http.Request) {
			if r.Header.Get(hdrObject) == "" {
				if stores.Service(i) != stores.Table {
					// worker.mjs sends these to their objects itself.
					panic("a client's " + stores.Service(i).String() + " request reached the runtime")
				}
				front.serve(rec, r)
				return
			}
			st, err := storageOf(r)
			if err != nil {
				writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the object's storage: "+err.Error()))
				return
			}
			os.serve(rec, r, r.Header.Get(hdrObject), r.Header.Get(hdrInstance), st)
		}
	}
	return h, nil
}

// ServeHTTP implements http.Handler. The runtime is shared by every
// request the isolate serves, and a panic that escaped would end it and
// every store it holds: here a panic becomes the service's 500.
func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := newRecorder()
	svc := h.cfg.serviceOf(r.Host)
	if !h.serve(rec, r, svc) {
		rec = newRecorder()
		resp := h.errs[svc].Error(&api.Request{Method: r.Method, Target: r.URL.RequestURI(), Host: r.Host},
			svcerr.With(svcerr.InternalError, "The server failed while answering the request; its state is unchanged."))
		resp.Header.Each(func(name, value string) { rec.hdr[name] = []string{value} })
		rec.WriteHeader(resp.Status)
		rec.Write(resp.Body)
	}
	if h.label != "" {
		rec.hdr.Set(storageHeader, h.label)
	}
	rec.copyTo(w, r.Method)
}

// serve answers r into rec and reports whether it did without a panic.
func (h *host) serve(rec *recorder, r *http.Request, svc stores.Service) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			ok = false
		}
	}()
	if r.Body == nil {
		r.Body = http.NoBody
	}
	if h.cfg.dev {
		if r.Header.Get(hookPanic) != "" {
			panic("test panic asked for by " + hookPanic)
		}
		if r.URL.Path == hookHeap {
			heapReport(rec)
			return true
		}
	}
	h.services[svc](rec, r)
	return true
}

// heapReport writes the live Go heap after a full collection, and what
// the runtime holds from the system, for the Worker's heap test.
func heapReport(rec *recorder) {
	runtime.GC()
	debug.FreeOSMemory()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	rec.hdr.Set("Content-Type", "text/plain")
	rec.WriteHeader(200)
	rec.Write([]byte("live=" + strconv.FormatUint(m.HeapAlloc, 10) +
		" sys=" + strconv.FormatUint(m.Sys, 10) +
		" goroutines=" + strconv.Itoa(runtime.NumGoroutine()) + "\n"))
}

// recorder is an http.ResponseWriter that keeps the answer in memory.
type recorder struct {
	hdr    http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{hdr: http.Header{}} }

func (r *recorder) Header() http.Header { return r.hdr }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return r.body.Write(b)
}
