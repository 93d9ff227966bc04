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

// Handler serves the Table protocol over net/http.
type Handler struct {
	Server *api.Server
	// MaxBody is the largest request body read; zero means
	// api.MaxBodyBytes. A larger body is refused before it is read.
	MaxBody int64
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
	max := h.MaxBody
	if max <= 0 {
		max = api.MaxBodyBytes
	}
	var resp *api.Response
	if r.ContentLength > max {
		resp = h.Server.Error(req, svcerr.New(svcerr.RequestBodyTooLarge))
	} else {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			resp = h.Server.Error(req, svcerr.New(svcerr.RequestBodyTooLarge))
		case err != nil:
			resp = h.Server.Error(req, svcerr.Newf(svcerr.InvalidInput, "The request body could not be read: %v", err))
		default:
			req.Body = body
			resp = h.Server.Serve(req)
		}
	}
	hdr := w.Header()
	resp.Header.Each(func(name, value string) { hdr[name] = []string{value} })
	// The length is known: saying so spares large answers the chunked
	// encoding net/http would otherwise choose.
	if resp.Status != 204 && resp.Status != 304 {
		hdr["Content-Length"] = []string{strconv.Itoa(len(resp.Body))}
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
