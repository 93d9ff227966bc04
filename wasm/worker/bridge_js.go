//go:build js && wasm

package main

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"syscall/js"

	"github.com/tablelab/tablelab/wasm/promise"
)

// syumai/workers v0.33.0 splits header values at commas, and turns request and response bodies into streams
// through JavaScript callbacks (js.Func) that it does not always release:
// a read's catch handler when the read succeeds, a stream's pull and
// cancel handlers, each holding a 16 KiB buffer, on every answer it
// streams. In a runtime kept alive between requests that grew the heap
// without end. bridge takes both bodies past those streams: it reads the
// request's stream in one await whose two callbacks it releases, and
// hands the answer over as one Uint8Array through the writer's raw body,
// which takes no callback at all.

// rawBodyGetter is what syumai/workers' request bodies offer.
type rawBodyGetter interface{ GetRawJSBody() js.Value }

// rawBodyWriter is what syumai/workers' response writer offers.
type rawBodyWriter interface{ WriteRawJSBody(body js.Value) }

// bridge is the host as syumai/workers calls it.
type bridge struct{ h http.Handler }

func (b bridge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// syumai/workers splits every header at its commas, a date's too;
	// joined again, each is the text the client sent (the Headers object
	// had joined repeated fields with commas already).
	//
	// Names arrive in lower case (the runtime's Headers object keeps
	// no other) and syumai/workers canonicalizes them; a metadata name's
	// case is part of the name the service stores, and lower case is the
	// one the client's text is closest to.
	for name, values := range r.Header {
		if len(values) > 1 {
			values = []string{strings.Join(values, ",")}
			r.Header[name] = values
		}
		if strings.HasPrefix(name, "X-Ms-Meta-") {
			delete(r.Header, name)
			r.Header[strings.ToLower(name)] = values
		}
	}
	if g, ok := r.Body.(rawBodyGetter); ok {
		body, err := readStream(g.GetRawJSBody())
		if err != nil {
			r.Body = io.NopCloser(errReader{err})
		} else {
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
	}
	b.h.ServeHTTP(w, r)
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

var (
	responseClass   = js.Global().Get("Response")
	uint8ArrayClass = js.Global().Get("Uint8Array")
)

// readStream reads a ReadableStream whole.
func readStream(stream js.Value) ([]byte, error) {
	if stream.IsNull() || stream.IsUndefined() {
		return nil, nil
	}
	buf, err := promise.Await(responseClass.New(stream).Call("arrayBuffer"))
	if err != nil {
		return nil, err
	}
	a := uint8ArrayClass.New(buf)
	b := make([]byte, a.Length())
	js.CopyBytesToGo(b, a)
	return b, nil
}

// copyTo hands the recorded answer to w: the body as one Uint8Array, or
// null when there is none, so that syumai/workers never makes a stream
// for it.
func (r *recorder) copyTo(w http.ResponseWriter, method string) {
	for k, v := range r.hdr {
		w.Header()[k] = v
	}
	if method != http.MethodHead {
		// The runtime says the length of the body it is handed, or
		// leaves it out when it compresses the body for the client; a
		// length given here would then be the wrong one.
		delete(w.Header(), "Content-Length")
	}
	w.WriteHeader(r.status)
	raw, ok := w.(rawBodyWriter)
	if !ok {
		if method != http.MethodHead {
			w.Write(r.body.Bytes())
		}
		return
	}
	if r.body.Len() == 0 || method == http.MethodHead {
		// workerd marks even an empty answer as gzip-encoded when the
		// client accepts gzip, and an SDK then fails to inflate nothing.
		w.Header().Set("Content-Encoding", "identity")
		raw.WriteRawJSBody(js.Null())
		return
	}
	a := uint8ArrayClass.New(r.body.Len())
	js.CopyBytesToJS(a, r.body.Bytes())
	raw.WriteRawJSBody(a)
}
