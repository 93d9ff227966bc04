// Package blobapi is the Blob service's REST protocol: routing, headers,
// conditions, ranges and the service's XML bodies and errors, over the model
// in engine/blob. It needs no net/http, so the browser build links it.
package blobapi

import (
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Options configure a Server.
type Options struct {
	// Verifier authenticates requests; nil lets every request in.
	Verifier *auth.Verifier
	// NewID makes the x-ms-request-id of each response; nil uses a counter.
	NewID func() string
}

// Server answers Blob service requests. It implements api.Service.
type Server struct {
	svc  *blob.Service
	opts Options
}

var _ api.Service = (*Server)(nil)

// NewServer returns a Server for svc.
func NewServer(svc *blob.Service, opts Options) *Server {
	return &Server{svc: svc, opts: opts}
}

// Serve answers one request.
func (s *Server) Serve(r *api.Request) *api.Response {
	return s.Error(r, svcerr.New(svcerr.NotImplemented))
}

// Error answers r with err in the service's XML error format.
func (s *Server) Error(r *api.Request, err error) *api.Response {
	e := svcerr.From(err)
	resp := &api.Response{Status: e.Status()}
	resp.Header.Set("x-ms-error-code", string(e.Code))
	return resp
}
