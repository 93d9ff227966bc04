// Package blobapi is the Azure Blob service's REST protocol over
// engine/blob: routing, authentication, conditions, ranges, the XML bodies
// and the service's error format. Like engine/api it turns a request value
// into a response value and imports nothing of a host (no net/http), so
// the local server, the browser and the Worker share it.
//
// It serves containers (create, delete, list, properties, metadata) and
// block blobs (Put Blob, Put Block, Put Block List, Get Block List, Get
// Blob with ranges, properties, metadata, delete, list by prefix and
// delimiter). Bodies stream: an upload is read from Request.BodyStream a
// chunk at a time, a download is a Response.BodyStream reading the store
// a chunk at a time. What the service has besides — append and page
// blobs, leases, snapshots, versions, tiers, copies, tags, access
// policies, service properties — is answered with 501 NotImplemented.
package blobapi

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/internal/timefmt"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// DefaultVersion is the protocol version answered when a request names
// none.
const DefaultVersion = "2025-01-05"

// MaxXMLBody is the largest XML request body read: a block list of 50,000
// ids of 64 bytes, in Base64 and tags, fits.
const MaxXMLBody = 8 << 20

// Options configure a Server.
type Options struct {
	// Verifier authenticates requests. Nil means the development account
	// by SAS only (its SharedKey unset), and no anonymous access.
	Verifier *auth.Verifier
	// NewID returns request ids; nil uses random ones.
	NewID func() string
}

// Server answers Blob service requests. It implements api.Service.
type Server struct {
	svc      *blob.Service
	verifier *auth.Verifier
	newID    func() string
}

var _ api.Service = (*Server)(nil)

// NewServer returns a protocol server over svc. It reads the service's
// clock, the store's, for Date headers, error times and authentication.
// A nil svc makes a server that answers every request with an error.
func NewServer(svc *blob.Service, opts Options) *Server {
	s := &Server{svc: svc, verifier: opts.Verifier, newID: opts.NewID}
	if s.newID == nil {
		s.newID = randomID
	}
	if s.verifier == nil {
		s.verifier = &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	}
	return s
}

// randomID returns a random id in the form of a UUID, as the service's
// request ids are.
func randomID() string {
	// encoding/hex would link fmt into the browser build, through its
	// error type.
	const digits = "0123456789abcdef"
	hi, lo := rand.Uint64(), rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12 // version 4
	lo = lo&^(0x3<<62) | 0x2<<62 // the RFC 4122 variant
	var b [36]byte
	j := 0
	for i := 0; i < 32; i++ {
		if i == 8 || i == 12 || i == 16 || i == 20 {
			b[j] = '-'
			j++
		}
		n := hi
		if i >= 16 {
			n = lo
		}
		b[j] = digits[(n>>(60-4*(i%16)))&15]
		j++
	}
	return string(b[:])
}

func (s *Server) now() time.Time {
	if s.svc == nil {
		return time.Now()
	}
	return s.svc.Now()
}

// call is the state of one request being answered.
type call struct {
	s     *Server
	svc   *blob.Service
	req   *api.Request
	rt    *route
	grant auth.Grant
	resp  *api.Response
	id    string
	now   time.Time
}

func (s *Server) newCall(req *api.Request) *call {
	c := &call{s: s, svc: s.svc, req: req, resp: &api.Response{}, id: s.newID(), now: s.now()}
	api.SetCommonHeaders(&c.resp.Header, req, c.id, DefaultVersion, httpDate(c.now))
	return c
}

// Serve answers one request. It never panics on any input; every failure
// becomes an error response in the service's format.
func (s *Server) Serve(req *api.Request) *api.Response {
	c := s.newCall(req)
	if req.Method == "OPTIONS" {
		// A preflight carries no credentials: it is answered before
		// authentication.
		return c.fail(api.RefusePreflight(req))
	}
	return api.Guard(c.resp, c.serve, c.fail)
}

// Error answers req with err in the service's XML error format, for
// failures a host finds before it has a whole request, such as an
// oversized body.
func (s *Server) Error(req *api.Request, err error) *api.Response {
	return s.newCall(req).fail(err)
}

// fail turns err into the response. A read's failed If-None-Match or
// If-Modified-Since is 304 Not Modified, without a body.
func (c *call) fail(err error) *api.Response {
	if c.resp.BodyStream != nil {
		c.resp.BodyStream.Close()
	}
	c.resp.BodyStream, c.resp.BodyLength, c.resp.Body = nil, 0, nil
	if err == blob.ErrNotModified {
		c.resp.Status = 304
		return c.resp
	}
	e := svcerr.From(err)
	c.resp.Status = e.Status()
	c.resp.Header.Set("x-ms-error-code", string(e.Code))
	if c.req.Method == "HEAD" {
		return c.resp
	}
	c.resp.Header.Set("Content-Type", "application/xml")
	c.resp.Body = xmlwire.AppendError(nil, e.Code, e.Message, c.id, c.now)
	return c.resp
}

func notImplemented(what string) error {
	return svcerr.With(svcerr.NotImplemented, what+" is not implemented by tablelab.")
}

func unsupportedVerb(method string) error {
	return svcerr.With(svcerr.UnsupportedHTTPVerb, "The resource doesn't support the HTTP verb "+method+".")
}

func invalidParam(name, value string) error {
	return svcerr.With(svcerr.InvalidQueryParameterValue,
		"Value for one of the query parameters specified in the request URI is invalid: "+name+"="+strconv.Quote(value)+".")
}

func invalidHeader(name string) error {
	return svcerr.With(svcerr.InvalidHeaderValue,
		"The value for one of the HTTP headers is not in the correct format: "+name+".")
}

// httpDate formats t as HTTP dates and the listings' times are written.
func httpDate(t time.Time) string {
	return t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")
}

// parseHTTPDate reads an HTTP date in any of the three forms HTTP/1.1
// allows.
func parseHTTPDate(s string) (time.Time, bool) {
	for _, layout := range [...]timefmt.Layout{timefmt.RFC1123, timefmt.RFC850, timefmt.ANSIC} {
		if t, ok := timefmt.Parse(layout, s); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

func (c *call) setStamp(etag string, modified time.Time) {
	c.resp.Header.Set("ETag", etag)
	c.resp.Header.Set("Last-Modified", httpDate(modified))
}

func (c *call) xml(status int, body []byte) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", "application/xml")
	if c.req.Method != "HEAD" {
		c.resp.Body = body
	}
}
