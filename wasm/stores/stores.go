// Package stores is what a WebAssembly host serves: a set of named engine
// stores, each behind the same protocol core as the local server, taking
// and answering requests as raw HTTP/1.1 text. One store may be kept on a
// Medium (the browser's IndexedDB) so that it survives a reload; the
// others live in memory, as fresh as their first request.
package stores

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/dump"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/svcerr"
	"github.com/tablelab/tablelab/wasm/httptext"
)

// Medium keeps the persistent store: a durable.Medium that can also
// forget everything it holds, for Reset.
type Medium interface {
	durable.Medium
	// Clear forgets the snapshot and the log, after the writes already
	// started. It is called on a medium that is closed or was never
	// replayed.
	Clear() error
}

// Options configure a Set.
type Options struct {
	// Persistent names the store kept on a medium; "" keeps none.
	Persistent string
	// OpenMedium returns the persistent store's medium, opened afresh
	// each time the store is opened (at first use, and after a Reset).
	// Nil keeps that store in memory like the others.
	OpenMedium func() (Medium, error)
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
	// errors answers requests that reach no store.
	errors *api.Server
	ids    *requestIDs

	mu     sync.Mutex
	byName map[string]*instance
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
	ids := newRequestIDs()
	return &Set{
		opts:   opts,
		errors: api.NewServer(nil, api.Options{NewID: ids.New}),
		ids:    ids,
		byName: make(map[string]*instance),
	}
}

// instance is one named store, opened on first use.
type instance struct {
	open   sync.Once
	err    error // why the store could not be opened
	store  *engine.Store
	server *api.Server
	db     *durable.DB // the persistent store's; nil for one in memory
	medium Medium
}

// get returns the named store, opening it on first use: the persistent
// one is restored from its medium, which may take a while, and requests
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

func (s *Set) openInstance(in *instance, name string) error {
	if name != s.opts.Persistent || s.opts.OpenMedium == nil {
		in.store = engine.New(engine.Options{Now: s.opts.Now})
		in.server = api.NewServer(in.store, api.Options{NewID: s.ids.New})
		return nil
	}
	m, err := s.opts.OpenMedium()
	if err != nil {
		return err
	}
	db, err := durable.Open(m, durable.Options{Now: s.opts.Now, MinCompactBytes: s.opts.CompactBytes, CheckEvery: s.opts.CompactEvery})
	if err != nil {
		return err
	}
	in.db, in.medium, in.store = db, m, db.Store
	in.server = api.NewServer(in.store, api.Options{NewID: s.ids.New})
	return nil
}

// Serve answers one request given as raw HTTP/1.1 text with the response
// as raw HTTP/1.1 text. Any failure, malformed text included, is an
// error response in the service's format.
func (s *Set) Serve(name, request string) string {
	var resp *api.Response
	req, err := httptext.ParseRequest(request)
	switch {
	case err != nil:
		e := svcerr.Newf(svcerr.InvalidInput, "The request is not HTTP/1.1 text: %v", err)
		resp = s.errors.Error(&api.Request{}, e)
	default:
		in, err := s.get(name)
		if err != nil {
			e := svcerr.Newf(svcerr.InternalError, "The store %q could not be opened: %v", name, err)
			resp = s.errors.Error(req, e)
			break
		}
		resp = in.server.Serve(req)
	}
	return string(httptext.AppendResponse(make([]byte, 0, 512+len(resp.Body)), resp))
}

// Reset empties the named store: the persistent one loses what its
// medium kept; any other is forgotten, and its name starts afresh.
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
		if in.db != nil {
			// Closed first, the store refuses writes, so none lands
			// after the medium is cleared.
			in.db.Close()
			return in.medium.Clear()
		}
	}
	// Not open here (or it failed to open): its medium may still hold a
	// store.
	m, err := s.opts.OpenMedium()
	if err != nil {
		return err
	}
	return m.Clear()
}

// Export returns the named store's tables in engine/dump's format.
func (s *Set) Export(name string) (string, error) {
	in, err := s.get(name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := dump.Export(in.store, &b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Import writes tables in engine/dump's format into the named store.
func (s *Set) Import(name, text string) error {
	in, err := s.get(name)
	if err != nil {
		return err
	}
	return dump.Import(in.store, strings.NewReader(text))
}

// SAS returns an account SAS query string for the development account
// granting every permission on every resource type. A page's SDK uses it
// because shared-key signing does not run in a browser.
func SAS() string {
	dev := auth.DevAccount()
	return auth.NewAccountSAS(dev.Name, dev.Keys[0], auth.AccountSAS{
		Permissions:   "rwdlacu",
		ResourceTypes: "sco",
		// Long after any page using the token has closed.
		Expiry: time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC),
	})
}
