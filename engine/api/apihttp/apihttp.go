// Package apihttp adapts the protocol core of engine/api to net/http, for
// hosts where net/http is already paid for: the local server and tests.
// The browser build does not link it.
package apihttp

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Handler serves one storage service's protocol over net/http.
type Handler struct {
	Server api.Service
	// MaxBody is the largest request body read; zero means
	// api.MaxBodyBytes. A larger body is refused before it is read.
	MaxBody int64
	// Stream hands the body to the service unread, as Request.BodyStream,
	// when the request says its length: the Blob service takes uploads of
	// hundreds of MiB that way. MaxBody then bounds only bodies of unknown
	// length, which are read into memory.
	Stream bool
}

// ServeHTTP implements http.Handler.
func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	req := &api.Request{
		Method: r.Method,
		Target: r.URL.EscapedPath(),
		Host:   r.Host,
		Scheme: "http",
	}
	if r.TLS != nil {
		req.Scheme = "https"
	}
	// RequestURI keeps the path exactly as the client escaped it, which
	// signatures cover; EscapedPath may re-escape it.
	if r.RequestURI != "" && r.RequestURI[0] == '/' {
		req.Target = r.RequestURI
	} else if r.URL.RawQuery != "" {
		req.Target += "?" + r.URL.RawQuery
	}
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		req.RemoteIP = host
	}
	for name, values := range r.Header {
		if len(values) > 0 {
			req.Header.Set(name, values[0])
		}
	}
	// Hosts that build requests themselves (syumai/workers among them)
	// leave Body nil on a request without one, where net/http's server
	// sets http.NoBody.
	body := r.Body
	if body == nil {
		body = http.NoBody
	}
	max := h.MaxBody
	if max <= 0 {
		max = api.MaxBodyBytes
	}
	var resp *api.Response
	if h.Stream && r.ContentLength > 0 {
		req.BodyStream = io.LimitReader(body, r.ContentLength)
		resp = h.Server.Serve(req)
	} else if r.ContentLength > max {
		resp = h.Server.Error(req, svcerr.New(svcerr.RequestBodyTooLarge))
	} else {
		body, err := io.ReadAll(http.MaxBytesReader(w, body, max))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			resp = h.Server.Error(req, svcerr.New(svcerr.RequestBodyTooLarge))
		case err != nil:
			resp = h.Server.Error(req, svcerr.With(svcerr.InvalidInput, "The request body could not be read: "+err.Error()))
		default:
			req.Body = body
			resp = h.Server.Serve(req)
		}
	}
	// net/http writes the standard reason phrase whatever resp.Reason
	// says; a dropped answer closes the connection where it can.
	if resp.Drop {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
	}
	hdr := w.Header()
	resp.Header.Each(func(name, value string) { hdr[name] = []string{value} })
	// The length is known: saying so spares large answers the chunked
	// encoding net/http would otherwise choose.
	if resp.BodyStream != nil {
		defer resp.BodyStream.Close()
		hdr["Content-Length"] = []string{strconv.FormatInt(resp.BodyLength, 10)}
		w.WriteHeader(resp.Status)
		if r.Method != http.MethodHead {
			_, _ = io.CopyN(w, resp.BodyStream, resp.BodyLength)
		}
		return
	}
	// A HEAD answer may say the length of what GET would send (a blob's
	// properties do), and keeps it.
	if resp.Status != 204 && resp.Status != 304 && (r.Method != http.MethodHead || resp.Header.Get("Content-Length") == "") {
		hdr["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
