// Package queueapi is the Azure Queue service's REST protocol over
// engine/queue.
package queueapi

import (
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Options configure a Server.
type Options struct {
	// Verifier authenticates requests. Nil means the development account
	// with its well-known key, and no anonymous access.
	Verifier *auth.Verifier
	// NewID returns request ids, message ids and pop receipts; nil uses
	// random UUIDs.
	NewID func() string
}

// Server answers Queue service requests.
type Server struct {
	svc  *queue.Service
	opts Options
}

var _ api.Service = (*Server)(nil)

// NewServer returns a protocol server over svc.
func NewServer(svc *queue.Service, opts Options) *Server {
	return &Server{svc: svc, opts: opts}
}

// Serve answers one request.
func (s *Server) Serve(req *api.Request) *api.Response {
	return s.Error(req, svcerr.New(svcerr.NotImplemented))
}

// Error answers req with err in the service's format.
func (s *Server) Error(req *api.Request, err error) *api.Response {
	e := svcerr.From(err)
	return &api.Response{Status: e.Status()}
}
