// Package stores is what a WebAssembly host serves: a set of named stores,
// each holding the three storage services (Table, Queue and Blob) behind
// the same protocol cores as the local server, taking and answering
// requests as raw HTTP/1.1 messages. One store may be kept on Media (the
// browser's IndexedDB) so that it survives a reload; the others live in
// memory, as fresh as their first request.
package stores

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/dump"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/engine/svcerr"
	"github.com/tablelab/tablelab/wasm/httptext"
)

// Service is one of the storage services a store holds.
type Service uint8

// The services, in the order of their development storage ports.
const (
	Blob  Service = iota // 127.0.0.1:10000
	Queue                // 127.0.0.1:10001
	Table                // 127.0.0.1:10002
)

var services = [...]Service{Blob, Queue, Table}

// String returns "blob", "queue" or "table".
func (s Service) String() string {
	switch s {
	case Blob:
		return "blob"
	case Queue:
		return "queue"
	}
	return "table"
}

// ServiceOf returns the service a request's Host header names, as the
// SDKs address the development storage: port 10000 is Blob, 10001 Queue,
// anything else Table. Host-style names (account.blob.…, account.queue.…)
// are read too.
func ServiceOf(host string) Service {
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		name, port = host[:i], host[i+1:]
	}
	switch {
	case port == "10000":
		return Blob
	case port == "10001":
		return Queue
	case port == "10002":
		return Table
	}
	// Only the service label right after the account counts.
	_, rest, _ := strings.Cut(name, ".")
	switch {
	case strings.HasPrefix(rest, "blob."):
		return Blob
	case strings.HasPrefix(rest, "queue."):
		return Queue
	}
	return Table
}

// CosmosPrefix begins the name of a store whose Table service answers
// under the Azure Cosmos DB for Table profile (api.Options.Cosmos, with
// case-sensitive table names): a page runs an example against
// "cosmos:"+name to show what that service would answer.
const CosmosPrefix = "cosmos:"

// Medium keeps one service of the persistent store: a durable.Medium that
// can also forget everything it holds, for Reset.
type Medium interface {
	durable.Medium
	// Clear forgets the snapshot and the log, after the writes already
	// started. It is called on a medium that is closed or was never
	// replayed.
	Clear() error
}

// Options configure a Set.
type Options struct {
	// Persistent names the store kept on media; "" keeps none.
	Persistent string
	// OpenMedium returns the medium of each service of the persistent
	// store, opened afresh each time the store is opened (at first use,
	// and after a Reset). Each service has a medium of its own, so that
	// each keeps one durable log and a record (a batch of entities, a
	// message, a blob's commit) is stored whole or not at all. Nil keeps
	// that store in memory like the others.
	OpenMedium func(Service) (Medium, error)
	// CompactBytes is the log size below which the persistent store is
	// not compacted into a snapshot (past it, it is once the log has
	// outgrown the snapshot); zero means DefaultCompactBytes.
	CompactBytes int64
	// CompactEvery is how often the log's size is looked at; zero means
	// DefaultCompactEvery.
	CompactEvery time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// DefaultCompactBytes and DefaultCompactEvery are the persistent store's
// compaction defaults: a page's data is small, and each look wakes the
// runtime.
const (
	DefaultCompactBytes = 1 << 20
	DefaultCompactEvery = 2 * time.Second
)

// Set is a set of named stores. It is safe for concurrent use.
type Set struct {
	opts Options
	// errors answer requests that reach no store, each service in its
	// own format; they stand on empty stores in memory.
	errors [len(services)]api.Service
	ids    *requestIDs

	mu     sync.Mutex
	byName map[string]*instance
	// scratch is a buffer a page of entities is built in (a request's
	// Scratch), taken under mu by one request at a time: the page is
	// copied into the response text at once, so its buffer serves the
	// next query instead of being garbage as large as the page.
	scratch []byte
}

// New returns an empty set.
func New(opts Options) *Set {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.CompactBytes <= 0 {
		opts.CompactBytes = DefaultCompactBytes
	}
	if opts.CompactEvery <= 0 {
		opts.CompactEvery = DefaultCompactEvery
	}
	s := &Set{opts: opts, ids: newRequestIDs(), byName: make(map[string]*instance)}
	for _, svc := range services {
		var err error
		if s.errors[svc], err = s.server(svc, nil, s.opts.Now, false); err != nil {
			// An empty store in memory cannot fail to open; a service
			// that says otherwise answers with the table's errors.
			s.errors[svc] = api.NewServer(nil, api.Options{NewID: s.ids.New})
		}
	}
	return s
}

// instance is one named store, opened on first use.
type instance struct {
	open  sync.Once
	err   error // why the store could not be opened
	parts [len(services)]part
	// skew is how far the store's clock runs ahead of the set's, in
	// nanoseconds: Advance moves it, so that an example can let a
	// message's visibility timeout pass in an instant.
	skew atomic.Int64
	// held, when not zero, is the instant (Unix nanoseconds on the set's
	// clock) where Hold stopped the store's clock: until Release it reads
	// that instant plus skew, so a run's writes all happen in one second
	// however long the page takes over them.
	held atomic.Int64
}

// part is one service of a store.
type part struct {
	store  *engine.Store
	server api.Service
	db     *durable.DB // the persistent store's; nil for one in memory
	medium Medium
}

func (in *instance) now(base func() time.Time) func() time.Time {
	return func() time.Time {
		if h := in.held.Load(); h != 0 {
			return time.Unix(0, h).UTC().Add(time.Duration(in.skew.Load()))
		}
		return base().Add(time.Duration(in.skew.Load()))
	}
}

// get returns the named store, opening it on first use: the persistent
// one is restored from its media, which may take a while, and requests
// to it wait for that.
func (s *Set) get(name string) (*instance, error) {
	s.mu.Lock()
	in, ok := s.byName[name]
	if !ok {
		in = &instance{}
		s.byName[name] = in
	}
	s.mu.Unlock()
	in.open.Do(func() { in.err = s.openInstance(in, name) })
	return in, in.err
}

// server makes the protocol server of svc over store (over an empty store
// in memory when store is nil); cosmos puts the Table service under the
// Cosmos DB for Table profile.
func (s *Set) server(svc Service, store *engine.Store, now func() time.Time, cosmos bool) (api.Service, error) {
	if store == nil {
		store = engine.New(engine.Options{Now: now, OpenKeys: svc != Table})
	}
	switch svc {
	case Queue:
		q, err := queue.New(store)
		if err != nil {
			return nil, err
		}
		return queueapi.NewServer(q, queueapi.Options{Verifier: verifier(), NewID: s.ids.New}), nil
	case Blob:
		b, err := blob.New(store)
		if err != nil {
			return nil, err
		}
		return blobapi.NewServer(b, blobapi.Options{Verifier: verifier(), NewID: s.ids.New}), nil
	}
	return api.NewServer(store, api.Options{NewID: s.ids.New, Cosmos: cosmos}), nil
}

// verifier authenticates the Queue and Blob requests of a page: the
// development account by SAS only, as the Table service has it by
// default. The page's SDKs sign with the account SAS the engine issues
// (SAS), so the build carries no Shared Key check.
func verifier() *auth.Verifier {
	return &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
}

func (s *Set) openInstance(in *instance, name string) error {
	now := in.now(s.opts.Now)
	persistent := name == s.opts.Persistent && s.opts.OpenMedium != nil
	cosmos := strings.HasPrefix(name, CosmosPrefix)
	for _, svc := range services {
		exact := cosmos && svc == Table
		p := &in.parts[svc]
		if persistent {
			m, err := s.opts.OpenMedium(svc)
			if err != nil {
				in.closeAll()
				return err
			}
			db, err := durable.Open(m, durable.Options{Now: now, OpenKeys: svc != Table, CaseSensitiveTableNames: exact, MinCompactBytes: s.opts.CompactBytes, CheckEvery: s.opts.CompactEvery})
			if err != nil {
				in.closeAll()
				return errors.New("the " + svc.String() + " service: " + err.Error())
			}
			p.db, p.medium, p.store = db, m, db.Store
		} else {
			p.store = engine.New(engine.Options{Now: now, OpenKeys: svc != Table, CaseSensitiveTableNames: exact})
		}
		srv, err := s.server(svc, p.store, now, exact)
		if err != nil {
			in.closeAll()
			return errors.New("the " + svc.String() + " service: " + err.Error())
		}
		p.server = srv
	}
	return nil
}

// closeAll closes the media opened so far, waiting for the writes
// started on them.
func (in *instance) closeAll() {
	for i := range in.parts {
		if db := in.parts[i].db; db != nil {
			db.Close()
		}
	}
}

// Serve answers one request given as raw HTTP/1.1 text with the response
// as raw HTTP/1.1 text. Any failure, malformed text included, is an
// error response in the service's format.
func (s *Set) Serve(name, request string) string {
	req, err := httptext.ParseRequest(request)
	return string(s.serve(nil, name, req, err))
}

// ServeBytes is Serve for a message held as bytes, as a page sends one
// whose body is binary (a blob's). The request's body aliases msg.
func (s *Set) ServeBytes(name string, msg []byte) []byte {
	req, err := httptext.ParseRequestBytes(msg)
	return s.serve(nil, name, req, err)
}

// AppendServeBytes is ServeBytes appending the response to dst, so that a
// host answers into the buffer the request came in. dst may share msg's
// memory, and msg may be overwritten once the call returns: the parser
// copies the head, no service keeps a body's memory (the Table and Queue
// services decode theirs, the Blob service reads its into chunks of its
// own), and the response is written once the request has been served.
func (s *Set) AppendServeBytes(dst []byte, name string, msg []byte) []byte {
	req, err := httptext.ParseRequestBytes(msg)
	return s.serve(dst, name, req, err)
}

// serve answers req, appending the response's text to dst; a nil dst is
// a new buffer sized for the response.
func (s *Set) serve(dst []byte, name string, req *api.Request, err error) []byte {
	var resp *api.Response
	switch {
	case err != nil:
		e := svcerr.With(svcerr.InvalidInput, "The request is not HTTP/1.1 text: "+err.Error())
		resp = s.errors[Table].Error(&api.Request{}, e)
	default:
		svc := ServiceOf(req.Host)
		in, err := s.get(name)
		if err != nil {
			e := svcerr.With(svcerr.InternalError, "The store "+strconv.Quote(name)+" could not be opened: "+err.Error())
			resp = s.errors[svc].Error(req, e)
			break
		}
		srv := in.parts[svc].server
		if svc == Table && len(req.Body) > api.MaxBodyBytes {
			// The servers' HTTP front ends refuse such a body before the
			// service reads it; a page's requests reach the service here.
			resp = srv.Error(req, svcerr.New(svcerr.RequestBodyTooLarge))
			break
		}
		req.Scratch = s.swapScratch(nil)
		resp = drain(srv, req, srv.Serve(req))
		text := httptext.AppendResponse(sized(dst, resp), resp)
		// A body is the response's own memory, copied into the text
		// now: the larger of it and the buffer is kept.
		buf := req.Scratch
		if cap(resp.Body) > cap(buf) {
			buf = resp.Body
		}
		s.swapScratch(buf)
		return text
	}
	return httptext.AppendResponse(sized(dst, resp), resp)
}

// sized is dst, or when dst is nil a buffer with room for resp's text.
func sized(dst []byte, resp *api.Response) []byte {
	if dst == nil {
		dst = make([]byte, 0, 512+len(resp.Body))
	}
	return dst
}

// swapScratch makes b the buffer kept for the next page, unless it is
// larger than is worth holding on to, and returns the one kept before:
// swapScratch(nil) takes it.
func (s *Set) swapScratch(b []byte) []byte {
	if cap(b) > maxScratch {
		b = nil
	}
	s.mu.Lock()
	old := s.scratch
	s.scratch = b[:0]
	s.mu.Unlock()
	return old
}

// maxScratch is the largest page buffer a Set keeps for the next query.
const maxScratch = 4 << 20

// drain reads a streamed response body (a blob's download) into the
// response: the message crosses to the page whole. A stream that fails
// becomes the service's error.
func drain(srv api.Service, req *api.Request, resp *api.Response) *api.Response {
	if resp.BodyStream == nil {
		return resp
	}
	body := make([]byte, resp.BodyLength)
	_, err := io.ReadFull(resp.BodyStream, body)
	resp.BodyStream.Close()
	if err != nil {
		return srv.Error(req, svcerr.With(svcerr.InternalError, "The blob could not be read: "+err.Error()))
	}
	resp.BodyStream, resp.Body = nil, body
	return resp
}

// Reset empties the named store, all three services: the persistent one
// loses what its media kept; any other is forgotten, and its name starts
// afresh.
func (s *Set) Reset(name string) error {
	s.mu.Lock()
	in := s.byName[name]
	delete(s.byName, name)
	s.mu.Unlock()
	if name != s.opts.Persistent || s.opts.OpenMedium == nil {
		return nil
	}
	if in != nil {
		in.open.Do(func() { in.err = errors.New("reset before it opened") })
	}
	var errs []error
	for _, svc := range services {
		if in != nil && in.parts[svc].db != nil {
			// Closed first, the store refuses writes, so none lands
			// after the medium is cleared.
			in.parts[svc].db.Close()
			errs = append(errs, in.parts[svc].medium.Clear())
			continue
		}
		// Not open here (or it failed to open): its medium may still
		// hold a store.
		m, err := s.opts.OpenMedium(svc)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, m.Clear())
	}
	return errors.Join(errs...)
}

// Advance moves the named store's clock d ahead, for all three services:
// visibility timeouts, expiry times and timestamps all follow it. The
// move lasts as long as the store is open; a reload or a Reset starts
// again from the set's clock.
func (s *Set) Advance(name string, d time.Duration) error {
	if d < 0 {
		return errors.New("the clock only moves forward")
	}
	in, err := s.get(name)
	if err != nil {
		return err
	}
	in.skew.Add(int64(d))
	return nil
}

// Hold stops the named store's clock, for all three services, at the
// next whole second of the set's clock: from then on only Advance moves
// it, so a burst of writes lands in one second and a second boundary
// falls only where the code slept. Timestamps and ETags stay unique (the
// engine moves each write's past the last). Holding a held clock changes
// nothing.
func (s *Set) Hold(name string) error {
	in, err := s.get(name)
	if err != nil {
		return err
	}
	t := s.opts.Now()
	at := t.Truncate(time.Second)
	if at.Before(t) {
		at = at.Add(time.Second)
	}
	in.held.CompareAndSwap(0, at.UnixNano())
	return nil
}

// Release lets the named store's clock run with the set's again. Where the
// set's clock is still short of the held instant, the store's skew takes
// up the difference, so the clock never moves back.
func (s *Set) Release(name string) error {
	in, err := s.get(name)
	if err != nil {
		return err
	}
	h := in.held.Swap(0)
	if h == 0 {
		return nil
	}
	if behind := h - s.opts.Now().UnixNano(); behind > 0 {
		in.skew.Add(behind)
	}
	return nil
}

// Export returns the named store's tables in engine/dump's format. Queues
// and blobs are not exported: the format, and the local server's import,
// hold tables.
func (s *Set) Export(name string) (string, error) {
	in, err := s.get(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := dump.Export(in.parts[Table].store, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Import writes tables in engine/dump's format into the named store:
// each entity replaces any with its keys. The whole text is checked
// first, and one with anything wrong changes nothing; the error says
// what and where (a *dump.Error).
func (s *Set) Import(name, text string) error {
	in, err := s.get(name)
	if err != nil {
		return err
	}
	return dump.Import(in.parts[Table].store, strings.NewReader(text))
}

// Replace puts the tables of text, in engine/dump's format, in place of
// every table of the named store, as one write: the persistent store
// keeps the tables before it or those after it, never a mixture, however
// the page ends. Queues and blobs are untouched. The whole text is
// checked first, and one with anything wrong changes nothing; the error
// says what and where (a *dump.Error).
func (s *Set) Replace(name, text string) error {
	in, err := s.get(name)
	if err != nil {
		return err
	}
	return dump.Replace(in.parts[Table].store, strings.NewReader(text))
}

// Clone makes target a store in memory holding a copy of everything
// source holds now: its tables, queues and blobs. A store already named
// target is replaced; the copy's clock is the set's, wherever source's
// had been moved. The two are independent from then on: a write to one
// never shows in the other. The copy costs next to nothing however large
// source is (engine.Store.Clone).
//
// The persistent store can be a source but not a target: it changes only
// through its own requests, Replace, Import and Reset. Cloning a store
// into itself changes nothing.
func (s *Set) Clone(source, target string) error {
	if target == s.opts.Persistent && target != "" {
		return errors.New("the store " + strconv.Quote(target) + " is the persistent one and cannot be the target of a clone: it changes only by its own requests, replace, import or reset")
	}
	if source == target {
		return nil
	}
	src, err := s.get(source)
	if err != nil {
		return err
	}
	in := &instance{}
	in.open.Do(func() {})
	now := in.now(s.opts.Now)
	cosmos := strings.HasPrefix(target, CosmosPrefix)
	for _, svc := range services {
		exact := cosmos && svc == Table
		store, err := src.parts[svc].store.Clone(engine.Options{Now: now, CaseSensitiveTableNames: exact})
		if err != nil {
			return errors.New("the " + svc.String() + " service of " + strconv.Quote(source) + " cannot be copied to " + strconv.Quote(target) + ": " + err.Error())
		}
		srv, err := s.server(svc, store, now, exact)
		if err != nil {
			return errors.New("the " + svc.String() + " service: " + err.Error())
		}
		in.parts[svc] = part{store: store, server: srv}
	}
	s.mu.Lock()
	s.byName[target] = in
	s.mu.Unlock()
	return nil
}

// SAS returns an account SAS query string for the development account
// granting every permission on every resource type of all three services.
// A page's SDKs use it because shared-key signing does not run in a
// browser.
func SAS() string {
	dev := auth.DevAccount()
	return auth.NewAccountSAS(dev.Name, dev.Keys[0], auth.AccountSAS{
		Services:      "bqt",
		Permissions:   "rwdlacup",
		ResourceTypes: "sco",
		// Long after any page using the token has closed.
		Expiry: time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC),
	})
}
