package inspect

import (
	"io"
	"iter"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/valyala/fasthttp"
)

// Hook wraps a service's fasthttp handler (apifasthttp.NewServer's wrap
// takes it) so that, while anyone watches h, every request it answers is
// published as a record of service ("Blob", "Queue" or "Table"), source
// SourceApp. With no watcher it only reads an atomic counter.
func (h *Hub) Hook(service string, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !h.Watching() {
			next(ctx)
			return
		}
		start := h.now()
		next(ctx)
		h.Publish(h.fastRecord(ctx, service, start, time.Since(start)))
	}
}

// fastRecord copies what the inspector shows of ctx's exchange: fasthttp
// reuses every buffer of it once the handler returns.
func (h *Hub) fastRecord(ctx *fasthttp.RequestCtx, service string, start time.Time, took time.Duration) *Record {
	r := &Record{
		Time:    start,
		Source:  SourceApp,
		Service: service,
		Method:  string(ctx.Method()),
		Path:    string(ctx.RequestURI()),
		Status:  ctx.Response.StatusCode(),
		Micros:  took.Microseconds(),
	}
	if ref := apifasthttp.RefusalOf(ctx); ref != nil && ref.Unparsed {
		// fasthttp says GET / for a request line it could not read.
		r.Method, r.Path = "-", "-"
	}
	r.Exchange.RequestHeader = fields(ctx.Request.Header.All())
	r.Exchange.ResponseHeader = fields(ctx.Response.Header.All())
	if ctx.Request.IsBodyStream() {
		// The Blob service read the upload from the connection as it came;
		// none of it is left to keep.
		r.Exchange.RequestBody = Body{Size: int64(ctx.Request.Header.ContentLength()), Note: "streamed to the service, not kept"}
	} else {
		b := ctx.PostBody()
		r.Exchange.RequestBody = Body{Size: int64(len(b)), Kept: h.keep(b)}
	}
	if b, ok := apifasthttp.ResponseBody(ctx); ok {
		r.Exchange.ResponseBody = Body{Size: int64(len(b)), Kept: h.keep(b)}
	} else {
		r.Exchange.ResponseBody = Body{Size: int64(ctx.Response.Header.ContentLength()), Note: "streamed to the client, not kept"}
	}
	if r.Method == http.MethodHead {
		r.Exchange.ResponseBody = Body{}
	}
	return r
}

// fields copies a fasthttp header's fields into one string and slices
// it: a few allocations for the lot, not two per field.
func fields(all iter.Seq2[[]byte, []byte]) []Field {
	buf := make([]byte, 0, 1024)
	lens := make([]int, 0, 64) // name and value lengths, in turn
	for k, v := range all {
		buf = append(append(buf, k...), v...)
		lens = append(lens, len(k), len(v))
	}
	text := string(buf)
	out := make([]Field, len(lens)/2)
	for i := range out {
		k, v := lens[2*i], lens[2*i+1]
		out[i] = Field{text[:k], text[k : k+v]}
		text = text[k+v:]
	}
	return out
}

// Wrap is Hook for a net/http handler of service: while anyone watches
// h, every request next answers is published as a record from source
// (the explorer's requests are SourceExplorer), with the first bytes of
// each body as they pass.
func (h *Hub) Wrap(service, source string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.Watching() {
			next.ServeHTTP(w, r)
			return
		}
		start := h.now()
		in := &keeper{limit: h.bodyMax}
		if r.Body != nil {
			r.Body = &teeBody{ReadCloser: r.Body, k: in}
		}
		cw := &captureWriter{ResponseWriter: w, status: http.StatusOK, body: keeper{limit: h.bodyMax}}
		next.ServeHTTP(cw, r)
		rec := &Record{
			Time:    start,
			Source:  source,
			Service: service,
			Method:  r.Method,
			Path:    r.URL.RequestURI(),
			Status:  cw.status,
			Micros:  time.Since(start).Microseconds(),
		}
		if r.RequestURI != "" {
			rec.Path = r.RequestURI
		}
		rec.Exchange.RequestHeader = fieldsOf(r.Header)
		rec.Exchange.ResponseHeader = fieldsOf(w.Header())
		rec.Exchange.RequestBody = Body{Size: in.n, Kept: in.b}
		rec.Exchange.ResponseBody = Body{Size: cw.body.n, Kept: cw.body.b}
		h.Publish(rec)
	})
}

// fieldsOf lists a net/http header's fields, a field per value.
func fieldsOf(hdr http.Header) []Field {
	var out []Field
	for name, values := range hdr {
		for _, v := range values {
			out = append(out, Field{name, v})
		}
	}
	slices.SortStableFunc(out, func(a, b Field) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// keeper counts the bytes that pass and keeps the first limit of them.
type keeper struct {
	limit int
	n     int64
	b     []byte
}

func (k *keeper) add(p []byte) {
	k.n += int64(len(p))
	if room := k.limit - len(k.b); room > 0 {
		k.b = append(k.b, p[:min(room, len(p))]...)
	}
}

type teeBody struct {
	io.ReadCloser
	k *keeper
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.k.add(p[:n])
	return n, err
}

// captureWriter notes the status and keeps the first bytes of the body
// of the response it passes on.
type captureWriter struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        keeper
}

func (c *captureWriter) WriteHeader(status int) {
	if !c.wroteHeader {
		c.status, c.wroteHeader = status, true
	}
	c.ResponseWriter.WriteHeader(status)
}

func (c *captureWriter) Write(p []byte) (int, error) {
	c.wroteHeader = true
	c.body.add(p)
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (c *captureWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
