// Package queueapi is the Azure Queue service's REST protocol over
// engine/queue: routing, authentication, the query parameters and their
// ranges, the XML bodies and the service's error format. Like engine/api
// it is a function from a request value to a response value and imports
// nothing of a host, so the local server, the browser and the Worker
// share it.
//
// The service's operations are all here: list, create and delete queues,
// queue metadata (with the approximate message count), put, get, peek,
// update, delete and clear messages. What the service has besides —
// service properties and statistics, queue access policies, user
// delegation keys — is answered with 501 NotImplemented.
package queueapi

import (
	"io"
	"strconv"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// DefaultVersion is the protocol version answered when a request names none.
const DefaultVersion = "2024-08-04"

// MaxBodyBytes is the largest request body the service reads: a message
// of 64 KiB, escaped.
const MaxBodyBytes = 1 << 20

// Options configure a Server.
type Options struct {
	// Verifier authenticates requests. Nil means the development account
	// by SAS only (its SharedKey unset), and no anonymous access.
	Verifier *auth.Verifier
	// NewID returns request ids, message ids and pop receipts, in the order
	// a request needs them; nil uses random ones. Examples inject a counter
	// to get the same ids on every run. A pop receipt must be 1 to 64
	// characters of base64 or a UUID (see queue.PutOptions.NewID).
	NewID func() string
}

// Server answers Queue service requests.
type Server struct {
	svc      *queue.Service
	verifier *auth.Verifier
	newID    func() string
	// ids is what the model draws message ids and pop receipts from: nil
	// (random ones) unless Options.NewID is set.
	ids func() string
}

var _ api.Service = (*Server)(nil)

// NewServer returns a protocol server over svc. It reads the service's
// clock, the store's, for Date headers, error times, authentication and
// every message time, so whoever sets the store's clock sets the server's.
// A nil svc makes a server that answers every request with an error.
func NewServer(svc *queue.Service, opts Options) *Server {
	s := &Server{svc: svc, verifier: opts.Verifier, newID: opts.NewID, ids: opts.NewID}
	if s.newID == nil {
		s.newID = queue.RandomID
	}
	if s.verifier == nil {
		s.verifier = &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	}
	return s
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
	req   *api.Request
	rt    *route
	grant auth.Grant
	resp  *api.Response
	id    string
	now   time.Time
}

func (s *Server) newCall(req *api.Request) *call {
	c := &call{s: s, req: req, resp: &api.Response{}, id: s.newID(), now: s.now()}
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

// Error answers req with err in the service's format, for failures a host
// finds before it has a whole request, such as an oversized body.
func (s *Server) Error(req *api.Request, err error) *api.Response {
	return s.newCall(req).fail(err)
}

// paramError is a failure about one query parameter; the service names the
// parameter, its value and the range allowed in elements of the error body.
type paramError struct {
	err              *svcerr.Error
	name, value      string
	minimum, maximum string
	reason           string
}

func (e *paramError) Error() string { return e.err.Error() }
func (e *paramError) Unwrap() error { return e.err }

// fail turns err into the response.
func (c *call) fail(err error) *api.Response {
	e := svcerr.From(err)
	c.resp.Status = e.Status()
	c.resp.Header.Set("x-ms-error-code", string(e.Code))
	c.resp.BodyStream, c.resp.BodyLength = nil, 0
	if c.req.Method == "HEAD" {
		c.resp.Body = nil
		return c.resp
	}
	c.resp.Header.Set("Content-Type", "application/xml")
	b := xmlwire.AppendError(nil, e.Code, e.Message, c.id, c.now)
	// A parameter error reaches fail as it was made, never wrapped: a
	// type assertion does, and errors.As would link reflection into the
	// browser build.
	if pe, ok := err.(*paramError); ok {
		b = appendDetails(b, pe)
	}
	c.resp.Body = b
	return c.resp
}

// appendDetails puts a parameter error's details inside the error body,
// after the message, as the service does.
func appendDetails(b []byte, pe *paramError) []byte {
	const end = "</Error>"
	if len(b) < len(end) || string(b[len(b)-len(end):]) != end {
		return b
	}
	b = b[:len(b)-len(end)]
	b = xmlwire.AppendElement(b, "QueryParameterName", pe.name)
	b = xmlwire.AppendElement(b, "QueryParameterValue", pe.value)
	if pe.minimum != "" {
		b = xmlwire.AppendElement(b, "MinimumAllowed", pe.minimum)
		b = xmlwire.AppendElement(b, "MaximumAllowed", pe.maximum)
	}
	if pe.reason != "" {
		b = xmlwire.AppendElement(b, "Reason", pe.reason)
	}
	return append(b, end...)
}

// An operation is one row of the routing table: a comp value on a kind of
// resource and a method, and the handler that serves it. The message
// resources take no comp: theirs is "". One table and one loop cost the
// browser build far less code than the same choices as nested switches.
type operation struct {
	kind   resourceKind
	comp   string
	method string
	serve  func(*call) error
}

var operations = [...]operation{
	{resService, "list", "GET", (*call).listQueues},
	{resService, "list", "HEAD", (*call).listQueues},
	{resQueue, "", "PUT", (*call).createQueue},
	{resQueue, "", "DELETE", (*call).deleteQueue},
	{resQueue, "metadata", "GET", (*call).getMetadata},
	{resQueue, "metadata", "HEAD", (*call).getMetadata},
	{resQueue, "metadata", "PUT", (*call).setMetadata},
	{resMessages, "", "POST", (*call).putMessage},
	// Not HEAD: a Get Messages without its answer would hide messages
	// nobody received.
	{resMessages, "", "GET", (*call).receiveMessages},
	{resMessages, "", "DELETE", (*call).clearMessages},
	{resMessage, "", "PUT", (*call).updateMessage},
	{resMessage, "", "DELETE", (*call).deleteMessage},
}

// serve routes the request to its operation.
func (c *call) serve() error {
	if c.s.svc == nil {
		return svcerr.With(svcerr.InternalError, "The queue service has no store.")
	}
	rt, err := parseRoute(c.req)
	if err != nil {
		return err
	}
	c.rt = rt
	ar := api.AuthRequest(c.req, auth.Queue, rt.account, c.now)
	ar.Container = rt.queue
	if c.grant, err = c.s.verifier.Verify(ar); err != nil {
		return err
	}
	comp := rt.query.Get("comp")
	if rt.kind == resService {
		if rt.query.Get("restype") == "service" && (comp == "properties" || comp == "stats") ||
			comp == "userdelegationkey" || comp == "batch" {
			return notImplemented("Queue service " + comp)
		}
	} else {
		if err := queue.ValidateName(rt.queue); err != nil {
			return err
		}
		if rt.kind == resQueue && comp == "acl" {
			if err := c.grant.CheckOwner(); err != nil {
				return err
			}
			return notImplemented("Queue access policies")
		}
		if rt.kind != resQueue {
			comp = ""
		}
	}
	method := c.req.Method
	known := false
	for i := range operations {
		op := &operations[i]
		if op.kind != rt.kind || op.comp != comp {
			continue
		}
		if op.method == method {
			return op.serve(c)
		}
		known = true
	}
	if known {
		return unsupportedVerb(method)
	}
	return invalidComp(comp)
}

// receiveMessages is Get Messages, or Peek Messages with peekonly=true.
func (c *call) receiveMessages() error {
	if c.rt.query.Get("peekonly") == "true" {
		return c.peekMessages()
	}
	return c.getMessages()
}

func notImplemented(what string) error {
	return svcerr.With(svcerr.NotImplemented, what+" is not implemented by tablelab.")
}

func unsupportedVerb(method string) error {
	return svcerr.With(svcerr.UnsupportedHTTPVerb, "The resource doesn't support the HTTP verb "+method+".")
}

func invalidComp(comp string) error {
	return &paramError{
		err:   svcerr.New(svcerr.InvalidQueryParameterValue),
		name:  "comp",
		value: comp,
	}
}

// body returns the request body, at most MaxBodyBytes of it.
func (c *call) body() ([]byte, error) {
	if c.req.BodyStream == nil {
		if len(c.req.Body) > MaxBodyBytes {
			return nil, svcerr.New(svcerr.RequestBodyTooLarge)
		}
		return c.req.Body, nil
	}
	b, err := io.ReadAll(io.LimitReader(c.req.BodyStream, MaxBodyBytes+1))
	if err != nil {
		return nil, svcerr.With(svcerr.InvalidInput, "The request body could not be read.")
	}
	if len(b) > MaxBodyBytes {
		return nil, svcerr.New(svcerr.RequestBodyTooLarge)
	}
	return b, nil
}

func (c *call) xml(status int, body []byte) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", "application/xml")
	if c.req.Method != "HEAD" {
		c.resp.Body = body
	}
}

// httpDate formats t as HTTP and the service's XML write times.
func httpDate(t time.Time) string {
	return t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")
}

// intParam reads an integer query parameter in [min, max]: absent gives
// ok false; not an integer fails with InvalidQueryParameterValue, out of
// range with OutOfRangeQueryParameterValue.
func (c *call) intParam(name string, min, max int64) (n int64, ok bool, err error) {
	if !c.rt.query.Has(name) {
		return 0, false, nil
	}
	v := c.rt.query.Get(name)
	n, perr := strconv.ParseInt(v, 10, 64)
	if perr != nil {
		return 0, false, &paramError{err: svcerr.New(svcerr.InvalidQueryParameterValue), name: name, value: v}
	}
	if n < min || n > max {
		return 0, false, &paramError{
			err:     svcerr.New(svcerr.OutOfRangeQueryParameterValue),
			name:    name,
			value:   v,
			minimum: strconv.FormatInt(min, 10),
			maximum: strconv.FormatInt(max, 10),
		}
	}
	return n, true, nil
}

func seconds(n int64) time.Duration { return time.Duration(n) * time.Second }
