// Package apifasthttp serves a storage service's protocol core (an
// api.Service: the Table, Queue or Blob service) over valyala/fasthttp:
// the local server's front end.
//
// net/http stays the adapter for tests and for hosts that need an
// http.Handler (engine/api/apihttp). The local server uses this one
// because on a two-core machine, with the load client on the same cores,
// net/http's per-request work (a goroutine that watches the connection,
// header maps, a response writer per request) cost more server CPU per
// point read than the protocol itself (docs/benchmarks.md has the
// figures). fasthttp reuses its request state per connection.
package apifasthttp

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/svcerr"
	"github.com/valyala/fasthttp"
)

// Handler serves one storage service's protocol as a
// fasthttp.RequestHandler.
type Handler struct {
	Server api.Service
	// Stream hands a request body of known length to the service unread,
	// as api.Request.BodyStream, and needs a server that streams request
	// bodies (Config.Stream): the Blob service takes uploads of hundreds
	// of MiB that way. A body sent chunked, of unknown length, is read
	// into memory up to MaxBody.
	Stream bool
	// MaxBody bounds, with Stream, the bodies read into memory; zero
	// means api.MaxBodyBytes. Without Stream the server's
	// MaxRequestBodySize bounds them.
	MaxBody int
	// Idle is how long, with Stream, a streamed body may go without a
	// byte moving, either way, before the connection is given up; zero
	// means a minute. A transfer of any length then lasts as long as the
	// client keeps it moving, where the server's fixed read and write
	// timeouts would cut off a large one on a slow link.
	Idle time.Duration
	// bufs holds the buffers large response bodies are built in; nil
	// means a new one every time.
	bufs *sync.Pool
}

// Response bodies between these sizes are built in reused buffers: a page
// of entities is at most a few MiB, a rarer, larger body is left to the
// collector, and a small one is not worth a copy.
const (
	minPooledBuffer = 64 << 10
	maxPooledBuffer = 8 << 20
)

// request builds the protocol's request from fasthttp's, copying what it
// keeps: fasthttp reuses its buffers once the handler returns, and the
// core may keep strings taken from the body (in stored entities).
func request(ctx *fasthttp.RequestCtx) *api.Request {
	// The method, target, host, client address and header fields are
	// copied into one string and taken as slices of it: one allocation
	// instead of one or two each, which were most of a point read's.
	method, target, host := ctx.Method(), ctx.RequestURI(), ctx.Host()
	var ipBuf [len("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")]byte
	ip := appendIP(ipBuf[:0], ctx.RemoteIP())
	size, fields := len(method)+len(target)+len(host)+len(ip), 0
	for k, v := range ctx.Request.Header.All() {
		size += len(k) + len(v)
		fields++
	}
	var b strings.Builder
	b.Grow(size)
	b.Write(method)
	b.Write(target)
	b.Write(host)
	b.Write(ip)
	for k, v := range ctx.Request.Header.All() {
		b.Write(k)
		b.Write(v)
	}
	all := b.String()
	next := func(n int) string {
		s := all[:n]
		all = all[n:]
		return s
	}
	req := &api.Request{
		Method: next(len(method)),
		// The request URI exactly as the client sent it: SharedKey
		// signatures cover the escaped path.
		Target:   next(len(target)),
		Host:     next(len(host)),
		RemoteIP: next(len(ip)),
		Scheme:   "http",
	}
	if ctx.IsTLS() {
		req.Scheme = "https"
	}
	req.Header.Grow(fields)
	for k, v := range ctx.Request.Header.All() {
		if len(all) < len(k)+len(v) {
			break // cannot happen: the same fields, in the same order
		}
		req.Header.Set(next(len(k)), next(len(v)))
	}
	return req
}

// appendIP appends ip as net.IP's String writes it, without allocating.
func appendIP(b []byte, ip net.IP) []byte {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return append(b, ip.String()...)
	}
	return a.Unmap().AppendTo(b)
}

// Serve implements fasthttp.RequestHandler.
func (h Handler) Serve(ctx *fasthttp.RequestCtx) {
	req := request(ctx)
	if h.Stream {
		if err := h.streamBody(ctx, req); err != nil {
			write(ctx, h.Server.Error(req, err))
			// What is left of the body cannot be trusted to end where a
			// next request starts.
			ctx.SetConnectionClose()
			return
		}
	} else {
		// fasthttp's own buffer, valid until the response is written,
		// which is as long as api.Request's Body need be.
		req.Body = ctx.PostBody()
	}
	var scratch *[]byte
	if h.bufs != nil {
		if scratch, _ = h.bufs.Get().(*[]byte); scratch != nil {
			req.Scratch = (*scratch)[:0]
		}
	}
	resp := h.Server.Serve(req)
	if resp.Drop {
		if scratch != nil {
			h.bufs.Put(scratch)
		}
		// Written, though never sent, so that a request log sees what
		// was decided.
		write(ctx, resp)
		drop(ctx)
		return
	}
	if resp.BodyStream != nil {
		if scratch != nil {
			h.bufs.Put(scratch)
		}
		resp.Body = nil
		write(ctx, resp)
		// fasthttp copies the stream out once the handler has returned,
		// and closes it then, written or not (a HEAD request's is not);
		// the length it says is the one the service gave.
		ctx.Response.SetBodyStream(&progress{r: resp.BodyStream, ctx: ctx, idle: h.idle(), write: true}, int(resp.BodyLength))
		return
	}
	body := resp.Body
	if h.bufs == nil || cap(body) < minPooledBuffer || cap(body) > maxPooledBuffer {
		write(ctx, resp)
		if scratch != nil {
			h.bufs.Put(scratch)
		}
		return
	}
	// A large body (a page of entities, built in the scratch buffer when
	// there was one) goes out as a stream over that buffer, which returns
	// to the pool when fasthttp closes the stream, once it has written
	// it. Copied into fasthttp's own pooled body buffers instead, pages
	// left a megabyte buffer in each pooled response, small ones too, a
	// quarter of a small store's memory after a query load; left to the
	// collector, the megabyte of garbage per page cost a large share of
	// the server's CPU in collections (docs/benchmarks.md).
	resp.Body = nil
	write(ctx, resp)
	ctx.Response.SetBodyStream(&pooledBody{b: body, pool: h.bufs, scratch: scratch}, len(body))
}

func (h Handler) idle() time.Duration {
	if h.Idle <= 0 {
		return time.Minute
	}
	return h.Idle
}

// streamBody gives req the body of a streaming server's request: a body
// of known length as a stream of exactly that many bytes, one sent
// chunked read into memory up to MaxBody (the SDKs say the length of
// every upload; a chunked body is some other client's, and small).
func (h Handler) streamBody(ctx *fasthttp.RequestCtx, req *api.Request) error {
	stream := ctx.RequestBodyStream()
	n := ctx.Request.Header.ContentLength()
	switch {
	case stream == nil || n == 0:
		return nil
	case n > 0:
		req.BodyStream = &exactly{r: &progress{r: stream, ctx: ctx, idle: h.idle()}, left: int64(n)}
		return nil
	}
	max := h.MaxBody
	if max <= 0 {
		max = api.MaxBodyBytes
	}
	body, err := io.ReadAll(io.LimitReader(&progress{r: stream, ctx: ctx, idle: h.idle()}, int64(max)+1))
	switch {
	case err != nil:
		return svcerr.With(svcerr.InvalidInput, "The request body could not be read: "+err.Error())
	case len(body) > max:
		return svcerr.New(svcerr.RequestBodyTooLarge)
	}
	if len(body) > 0 {
		req.Body = body
	}
	return nil
}

// exactly reads a body of a known length: no byte past it, and an end
// before it is io.ErrUnexpectedEOF, never io.EOF, so that a service
// cannot take an upload cut off by a client gone (or a server stopping)
// for a whole, shorter one.
type exactly struct {
	r    io.Reader
	left int64
}

func (e *exactly) Read(b []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > e.left {
		b = b[:e.left]
	}
	n, err := e.r.Read(b)
	e.left -= int64(n)
	switch {
	case e.left <= 0:
		return n, io.EOF
	case err == io.EOF:
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// progress is a streamed body that moves the connection's deadline
// forward by idle before each read: a transfer fails when it stalls,
// however long it lasts. Reading a request body moves the read
// deadline; reading a response body, which fasthttp then writes, the
// write deadline.
type progress struct {
	r     io.Reader
	ctx   *fasthttp.RequestCtx
	idle  time.Duration
	write bool // a response body
}

func (p *progress) Read(b []byte) (int, error) {
	at := time.Now().Add(p.idle)
	if p.write {
		_ = p.ctx.SetWriteDeadline(at)
	} else {
		_ = p.ctx.SetReadDeadline(at)
	}
	return p.r.Read(b)
}

// Close closes a response body, which the service handed over to be
// closed once written.
func (p *progress) Close() error {
	if c, ok := p.r.(io.Closer); ok && p.write {
		return c.Close()
	}
	return nil
}

// pooledBody is a response body in a pooled buffer. fasthttp writes it
// with WriteTo, in one piece, and closes it when the response is written
// or dropped; Close gives the buffer back.
type pooledBody struct {
	b       []byte
	off     int
	pool    *sync.Pool
	scratch *[]byte
}

var _ fasthttp.BodyWriterTo = (*pooledBody)(nil)

// Read implements io.Reader, for a writer that does not take WriteTo.
func (p *pooledBody) Read(q []byte) (int, error) {
	if p.off >= len(p.b) {
		return 0, io.EOF
	}
	n := copy(q, p.b[p.off:])
	p.off += n
	return n, nil
}

// WriteTo writes what is left of the body to w in one call.
func (p *pooledBody) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(p.b[p.off:])
	p.off += n
	return int64(n), err
}

// SupportsBodyWriteTo tells fasthttp to use WriteTo.
func (p *pooledBody) SupportsBodyWriteTo() bool { return true }

// Close gives the buffer back to the pool, once.
func (p *pooledBody) Close() error {
	if p.pool == nil {
		return nil
	}
	if p.scratch == nil {
		p.scratch = new([]byte)
	}
	*p.scratch = p.b[:0]
	p.pool.Put(p.scratch)
	p.pool, p.b = nil, nil
	return nil
}

// ResponseBody returns the body of ctx's response, once the handler has
// answered, when the body is in memory (a page of entities in a pooled
// buffer included), and false when it is a stream only the client reads
// (a blob's content). It reads nothing from a stream: the bytes stay for
// fasthttp to write, valid until the handler returns.
func ResponseBody(ctx *fasthttp.RequestCtx) ([]byte, bool) {
	if !ctx.Response.IsBodyStream() {
		return ctx.Response.Body(), true
	}
	if p, ok := ctx.Response.BodyStream().(*pooledBody); ok {
		return p.b[p.off:], true
	}
	return nil, false
}

// ServeError answers a request fasthttp could not read, in the service's
// own error format: a body over the limit is RequestBodyTooLarge (413), as
// the service says it; anything else malformed is InvalidInput.
func (h Handler) ServeError(ctx *fasthttp.RequestCtx, err error) {
	// Before request(ctx): asking fasthttp for the method of a request
	// whose first line did not parse makes it GET.
	ctx.SetUserValue(refusalKey{}, &Refusal{Err: err, Unparsed: len(ctx.Request.Header.RawHeaders()) == 0})
	req := request(ctx)
	var e error
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		e = svcerr.New(svcerr.RequestBodyTooLarge)
		linger(ctx.Conn())
	case errors.As(err, &small):
		e = svcerr.With(svcerr.InvalidHeaderValue, "The request's headers are too large.")
	default:
		e = svcerr.With(svcerr.InvalidInput, "The request could not be read: "+err.Error())
	}
	write(ctx, h.Server.Error(req, e))
	// The rest of the connection's bytes cannot be trusted to start a
	// request.
	ctx.SetConnectionClose()
}

// A Refusal is why the front end answered a request itself, before the
// handler: a request log says so, and does not take fasthttp's defaults
// (GET /) for the method and target of a request line that did not parse.
type Refusal struct {
	Err error
	// Unparsed reports that the request line did not parse: the request
	// has no method or target.
	Unparsed bool
}

type refusalKey struct{}

// RefusalOf returns why ctx's request was refused before the handler, or
// nil if the handler answered it.
func RefusalOf(ctx *fasthttp.RequestCtx) *Refusal {
	r, _ := ctx.UserValue(refusalKey{}).(*Refusal)
	return r
}

// linger reads and drops what the client is still sending of a body
// that will not be read, until it pauses, so that closing the connection
// does not reset it: a client that is still writing when the connection
// is reset sees "connection reset" instead of the 413 that explains it.
// It gives up after 64 MiB or five seconds.
func linger(c net.Conn) {
	if c == nil {
		return
	}
	buf := make([]byte, 32<<10)
	stop := time.Now().Add(5 * time.Second)
	for drained := 0; drained < 64<<20; {
		pause := time.Now().Add(200 * time.Millisecond)
		if pause.After(stop) {
			pause = stop
		}
		if err := c.SetReadDeadline(pause); err != nil {
			return
		}
		n, err := c.Read(buf)
		drained += n
		if err != nil {
			return
		}
	}
}

// drop closes ctx's connection without answering, once the handler has
// returned, and resets it where it can: the client sees its request cut
// off, as when a connection to the service is lost.
func drop(ctx *fasthttp.RequestCtx) {
	conn := ctx.Conn()
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(c net.Conn) {
		// The hijacked conn is fasthttp's wrapper: the connection it
		// wraps is the one that can be reset.
		resetOnClose(conn)
		c.Close()
	})
}

// resetOnClose makes closing c send a reset (no linger), where c is or
// wraps a TCP connection (our deadline wrapper, TLS); otherwise closing
// it is a plain close.
func resetOnClose(c net.Conn) {
	for c != nil {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
			return
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return
		}
		c = u.NetConn()
	}
}

func write(ctx *fasthttp.RequestCtx, resp *api.Response) {
	ctx.SetStatusCode(resp.Status)
	if resp.Reason != "" {
		ctx.Response.Header.SetStatusMessage([]byte(resp.Reason))
	}
	// Add, not Set: the core's header holds each name once, and fasthttp's
	// Set copies and scans every value twice and searches the fields set
	// so far for its name. The response is fresh: nothing set it before.
	hdr := &ctx.Response.Header
	for i := range resp.Header.Len() {
		hdr.Add(resp.Header.Field(i))
	}
	// SetBodyRaw hands over the slice without copying it: the core built
	// it for this response alone.
	ctx.Response.SetBodyRaw(resp.Body)
}

// Config is what a host tunes of the server.
type Config struct {
	// MaxBody is the largest request body read into memory; zero means
	// api.MaxBodyBytes. With Stream it bounds only bodies sent chunked.
	MaxBody int
	// Stream hands request bodies of known length to the service as
	// streams (api.Request.BodyStream) instead of reading them first: the
	// Blob service's, whose uploads may be hundreds of MiB.
	Stream bool
	// MaxHeader bounds the request line and headers; zero means 64 KiB.
	MaxHeader int
	// IdleTimeout closes a kept-alive connection that sends nothing for
	// this long; zero means a minute, the time a request has to arrive
	// once begun, so that the two deadlines of a request coincide
	// (Listener).
	IdleTimeout time.Duration
}

// readTimeout is how long a request may take to arrive.
const readTimeout = time.Minute

// NewServer returns a fasthttp server for one storage service's protocol.
// wrap, when not nil, wraps the handler (to log requests, say), and also
// the answer to a request refused before the handler (a body over the
// limit, a malformed request line), so that a log sees every request.
func NewServer(srv api.Service, c Config, wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler) *fasthttp.Server {
	if c.MaxBody <= 0 {
		c.MaxBody = api.MaxBodyBytes
	}
	h := Handler{Server: srv, Stream: c.Stream, MaxBody: c.MaxBody, bufs: new(sync.Pool)}
	if c.MaxHeader <= 0 {
		c.MaxHeader = 64 << 10
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = readTimeout
	}
	var handler fasthttp.RequestHandler = h.Serve
	serveError := h.ServeError
	if wrap != nil {
		handler = wrap(handler)
		serveError = func(ctx *fasthttp.RequestCtx, err error) {
			wrap(func(ctx *fasthttp.RequestCtx) { h.ServeError(ctx, err) })(ctx)
		}
	}
	return &fasthttp.Server{
		Handler:               handler,
		ErrorHandler:          serveError,
		Name:                  "tablelab",
		NoDefaultServerHeader: true,
		// Header names go out as the core spells them, as the service
		// does ("ETag", "x-ms-continuation-NextTableName"), not as
		// fasthttp would recase them ("Etag"); fasthttp still finds its
		// own (Content-Length, Transfer-Encoding, …) whatever their case.
		DisableHeaderNamesNormalizing: true,
		// The core writes Content-Type itself; fasthttp keeps Date (it
		// refuses to take it from a handler) from a clock it reads once a
		// second.
		NoDefaultContentType: true,
		MaxRequestBodySize:   c.MaxBody,
		ReadBufferSize:       c.MaxHeader,
		ReadTimeout:          readTimeout,
		WriteTimeout:         time.Minute,
		IdleTimeout:          c.IdleTimeout,
		// Batch bodies are multipart, but the core parses them.
		DisablePreParseMultipartForm: true,
		// With streaming, fasthttp reads at most 8 KiB of a body before
		// the handler runs, whatever MaxRequestBodySize says, and leaves
		// the rest on the connection for the handler's stream.
		StreamRequestBody: c.Stream,
		CloseOnShutdown:   true,
		Logger:            quietLogger{},
	}
}

// quietLogger drops fasthttp's own log lines (a client hanging up, say);
// the host logs requests itself.
type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}
