// Package api is the Azure Table service's REST protocol over the engine:
// routing, the JSON wire formats, $batch, authentication, continuation
// and the service's error format. Its core is a function from a Request
// value to a Response value. It imports nothing of a host — not even
// net/http, which would triple the size of the browser build — so the
// same protocol serves the local server, the browser and the Worker,
// each through an adapter of a few lines (see engine/api/apihttp).
//
// Every read of entities — a query, or a point GET, found or not —
// carries its plan in the headers X-Tablelab-Plan (point, range,
// partition-scan or table-scan, and index under Options.Cosmos),
// X-Tablelab-Examined and X-Tablelab-Returned. A query whose filter
// compares a property with a literal of a type the property never had on
// the entities examined also carries X-Tablelab-Warning (WarningHeader).
package api

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// DefaultVersion is the protocol version answered when a request names none.
const DefaultVersion = "2019-02-02"

// MaxBodyBytes is the largest request body the service reads: a batch may
// be 4 MiB, and no single entity needs more.
const MaxBodyBytes = 4 << 20

// Options configure a Server.
type Options struct {
	// Verifier authenticates requests. Nil means the development account
	// by SAS only (its SharedKey unset), and no anonymous access: a host
	// that takes Shared Key signatures passes a Verifier that does, and
	// one that does not links none of their check. When its Policies is
	// nil, NewServer sets it to this server's stored access policies.
	Verifier *auth.Verifier
	// NewID returns request ids; nil uses random UUIDs.
	NewID func() string
	// Settings keeps what accounts set about the service (package
	// settings, over a store as durable as the tables'). Nil answers the
	// service's defaults and refuses to change them.
	Settings Settings
	// Cosmos answers as Azure Cosmos DB for Table differs from Table
	// storage where a design notices (see cosmos.go): query results not
	// in key order, filters on any property answered by an index, a
	// RowKey of at most 255 bytes, a batch of at most 2 MiB, and table
	// names that differ by case. For the last, the store must be made
	// with engine.Options.CaseSensitiveTableNames too.
	Cosmos bool
	// Paging says where query pages may end before they are full
	// (engine.Paging); the zero value ends them only at $top and the
	// store's budget.
	Paging engine.Paging
}

// Server answers Table service requests from one store.
type Server struct {
	store    *engine.Store
	verifier *auth.Verifier
	now      func() time.Time
	newID    func() string
	date     dateHeader
	settings Settings
	cosmos   bool
	paging   engine.Paging
}

// NewServer returns a protocol server over store. It reads the store's
// clock — for Date headers, error times and authentication — so that
// whoever sets the store's clock sets the server's. A nil store makes a
// server that answers every request with an error, on the system clock.
func NewServer(store *engine.Store, opts Options) *Server {
	s := &Server{store: store, verifier: opts.Verifier, now: time.Now, newID: opts.NewID, settings: opts.Settings, cosmos: opts.Cosmos, paging: opts.Paging}
	if s.settings == nil {
		s.settings = noSettings{}
	}
	if store != nil {
		s.now = store.Now
	}
	if s.newID == nil {
		s.newID = randomID
	}
	if s.verifier == nil {
		s.verifier = &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	}
	if s.verifier.Policies == nil {
		// SAS tokens naming a stored access policy read this server's.
		s.verifier.Policies = s.settings.Policy
	}
	return s
}

// randomID returns a random UUID in its canonical text form. A request
// id must be unique, not secret, so it comes from the runtime's seeded
// generator rather than crypto/rand, whose DRBG would link AES and SHA-3
// into every host, the browser's included.
func randomID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return edm.FormatUUID(b)
}

// call is the state of one request being answered.
type call struct {
	s      *Server
	req    *Request
	rt     *route
	grant  auth.Grant
	format jsonwire.Metadata
	resp   *Response
	id     string
	now    time.Time
}

// panicText words a recovered panic value for the InternalError message,
// as %v would for the values panics carry: runtime errors, errors and
// strings.
func panicText(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case interface{ String() string }:
		return v.String()
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	}
	return "a panic value that is not an error or a string"
}

// Serve answers one request. It never panics on any input; every failure
// becomes an error response in the service's format.
func (s *Server) Serve(req *Request) (resp *Response) {
	c := &call{s: s, req: req, resp: &Response{}, id: s.newID(), now: s.now()}
	c.commonHeaders()
	defer func() {
		// A bug must cost one request, not the host: the browser and the
		// Worker lose all in-memory state when the runtime dies.
		if p := recover(); p != nil {
			resp = c.fail(svcerr.With(svcerr.InternalError, "internal error: "+panicText(p)))
		}
	}()
	serve := c.serve
	if req.Method == "OPTIONS" {
		serve = c.preflight
	}
	if err := serve(); err != nil {
		resp = c.fail(err)
	} else {
		resp = c.resp
	}
	c.corsHeaders(resp)
	return resp
}

// Error answers req with err in the service's format. Hosts use it for
// failures found before a Request exists, such as an oversized body.
func (s *Server) Error(req *Request, err error) *Response {
	c := &call{s: s, req: req, resp: &Response{}, id: s.newID(), now: s.now()}
	c.commonHeaders()
	return c.fail(err)
}

func (c *call) commonHeaders() {
	h := &c.resp.Header
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	SetCommonHeaders(h, c.req, c.id, DefaultVersion, c.s.date.text(c.now))
}

// dateHeader is the Date header of the current second, kept because it
// changes once a second while the server answers many requests in it:
// under wasm, formatting it was 3% of the benchmark's time.
type dateHeader struct{ last atomic.Pointer[datedText] }

type datedText struct {
	unix int64
	text string
}

// text returns t as a Date header: RFC 1123, in GMT.
func (d *dateHeader) text(t time.Time) string {
	sec := t.Unix()
	if last := d.last.Load(); last != nil && last.unix == sec {
		return last.text
	}
	text := t.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")
	d.last.Store(&datedText{sec, text})
	return text
}

// validVersion reports whether v names a protocol version the way the
// service's do: a calendar date, YYYY-MM-DD. tablelab speaks one
// protocol, so any well-formed version is answered alike and echoed.
func validVersion(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	digits := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	y, ok1 := digits(v[:4])
	m, ok2 := digits(v[5:7])
	d, ok3 := digits(v[8:])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 {
		return false
	}
	return d <= time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// fail turns err into the response.
func (c *call) fail(err error) *Response {
	e := svcerr.From(err)
	c.resp.Status = e.Status()
	c.resp.Header.Set("Content-Type", jsonwire.MinimalMetadata.ContentType())
	if p := c.req.Header.Get("Prefer"); p != "" {
		c.resp.Header.Set("Preference-Applied", p)
	}
	c.resp.Body = jsonwire.AppendError(nil, e, c.id, c.now)
	return c.resp
}

func (c *call) serve() error {
	if v := c.req.Header.Get("x-ms-version"); v != "" && !validVersion(v) {
		return svcerr.With(svcerr.InvalidHeaderValue, "The value for one of the HTTP headers is not in the correct format: x-ms-version "+v+".")
	}
	rt, err := parseRoute(c.req)
	if err != nil {
		return err
	}
	c.rt = rt
	if c.grant, err = c.s.verifier.Verify(auth.Request{
		Method:   c.req.Method,
		RawPath:  rt.rawPath,
		Query:    rt.rawQuery,
		Header:   c.req.Header.Get,
		Account:  rt.account,
		Scheme:   c.req.Scheme,
		RemoteIP: c.req.RemoteIP,
		Now:      c.now,
	}); err != nil {
		return err
	}
	if c.format, err = jsonwire.ParseFormat(c.req.Header.Get("Accept"), rt.query.Get("$format")); err != nil && rt.kind != resService && rt.query.Get("comp") == "" {
		return err
	}
	method := c.req.Method
	if method == "POST" {
		if x := c.req.Header.Get("X-HTTP-Method"); x != "" {
			method = x
		}
	}
	if _, secondary := auth.Primary(rt.account); secondary && method != "GET" && method != "HEAD" {
		// The secondary location is a read-only copy.
		return svcerr.With(svcerr.AuthorizationFailure, "Write operations are not allowed on the secondary location "+rt.account+".")
	}
	switch rt.kind {
	case resService:
		return c.service(method)
	case resTables:
		switch method {
		case "GET":
			return c.queryTables()
		case "POST":
			return c.createTable()
		}
	case resTable:
		switch method {
		case "GET":
			return c.getTable()
		case "DELETE":
			return c.deleteTable()
		}
	case resBatch:
		if method == "POST" {
			return c.batch()
		}
	case resEntities:
		if comp := rt.query.Get("comp"); comp != "" {
			return c.tableComp(method, comp)
		}
		switch method {
		case "GET":
			return c.queryEntities()
		case "POST":
			return c.insert()
		}
	case resEntity:
		switch method {
		case "GET":
			return c.getEntity()
		case "PUT", "PATCH", "MERGE", "DELETE":
			return c.writeEntity(method)
		}
	}
	return svcerr.With(svcerr.MethodNotAllowed, "The requested method "+c.req.Method+" is not allowed on the specified resource.")
}

// jsonOptions are the wire options for this call's table.
func (c *call) jsonOptions(table string) jsonwire.Options {
	return jsonwire.Options{Metadata: c.format, BaseURL: c.rt.base, Account: c.rt.account, Table: table}
}

func (c *call) writeJSON(status int, body []byte) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", c.format.ContentType())
	c.resp.Body = body
}

// created answers a request that created a resource at loc: 201 with the
// body, or, when the client's Prefer header asks for no content, 204 with
// the resource's DataServiceId. A stated preference is echoed in
// Preference-Applied.
func (c *call) created(loc string, body func() []byte) {
	h := &c.resp.Header
	h.Set("Location", loc)
	switch strings.TrimSpace(c.req.Header.Get("Prefer")) {
	case "return-no-content":
		h.Set("Preference-Applied", "return-no-content")
		h.Set("DataServiceId", loc)
		c.resp.Status = 204
		return
	case "return-content":
		h.Set("Preference-Applied", "return-content")
	}
	c.writeJSON(201, body())
}

func (c *call) setPlan(p engine.Plan) { c.setNamedPlan(p.Class.String(), p) }

// setNamedPlan is setPlan for a plan the engine has no class for.
func (c *call) setNamedPlan(name string, p engine.Plan) {
	h := &c.resp.Header
	h.Set("X-Tablelab-Plan", name)
	h.Set("X-Tablelab-Examined", strconv.Itoa(p.Examined))
	h.Set("X-Tablelab-Returned", strconv.Itoa(p.Returned))
}

// WarningHeader carries what the engine noticed about a query's filter
// on the entities its page examined: a comparison of a property with a
// literal of a type the property never had there (odata.Mismatch), which
// the service answers without a word. Each warning is one English
// sentence without its period; several are joined by "; ". The value is
// printable ASCII: any other character, and a ';' inside a warning, is
// written as JSON writes it, \u and four hexadecimal digits.
const WarningHeader = "X-Tablelab-Warning"

// setWarnings sets WarningHeader from a page's mismatches, if any.
func (c *call) setWarnings(ms []odata.Mismatch) {
	if len(ms) == 0 {
		return
	}
	var b []byte
	for i, m := range ms {
		if i > 0 {
			b = append(b, "; "...)
		}
		b = appendHeaderText(b, m.String())
	}
	c.resp.Header.Set(WarningHeader, string(b))
}

// appendHeaderText appends s with every character that is not printable
// ASCII, and ';', escaped as \uXXXX (a pair of them past U+FFFF).
func appendHeaderText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	for _, r := range s {
		if r >= 0x20 && r < 0x7f && r != ';' {
			b = append(b, byte(r))
			continue
		}
		units := [2]rune{r, -1}
		if r > 0xffff {
			r -= 0x10000
			units = [2]rune{0xd800 + r>>10, 0xdc00 + r&0x3ff}
		}
		for _, u := range units {
			if u >= 0 {
				b = append(b, '\\', 'u', hex[u>>12&15], hex[u>>8&15], hex[u>>4&15], hex[u&15])
			}
		}
	}
	return b
}

// top reads $top: 0 to 1000. zero reports $top=0, which the service
// answers with an empty page and, when anything matches, the
// continuation where the first match is: a client learns whether more
// exists without reading it.
func (c *call) top() (n int, zero bool, err error) {
	v := c.rt.query.Get("$top")
	if v == "" {
		return 0, false, nil
	}
	n, err = strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < 0 || n > engine.MaxPageSize {
		return 0, false, svcerr.With(svcerr.InvalidInput, "The value '"+v+"' of $top is not valid; it must be an integer from 0 to "+strconv.Itoa(engine.MaxPageSize)+".")
	}
	if n == 0 {
		// One entity is read to find where the first match is; none is
		// returned.
		return 1, true, nil
	}
	return n, false, nil
}

// selectList reads $select.
func (c *call) selectList() []string {
	v := c.rt.query.Get("$select")
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "*" {
			out = append(out, f)
		}
	}
	return out
}
