//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

// Package server is the local server's wiring: the Blob, Queue and Table
// services over their stores, each behind its fasthttp front end, with
// the health and reset endpoints every service port answers. Command
// tablelab runs one from its flags; package tablelabtest runs one inside
// a test. It links no part of the docs site: the site's tools reach the
// services through Services and Config.Wrap.
package server

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	accountsettings "github.com/tablelab/tablelab/engine/api/settings"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/valyala/fasthttp"
)

// Config is what a Server serves and where it keeps its data.
type Config struct {
	// BlobAddr, QueueAddr and TableAddr are where the services listen
	// (host:port; port 0 picks a free one); empty leaves a service out.
	BlobAddr, QueueAddr, TableAddr string
	// MayBeTaken names the services ("Blob", "Queue") that go without
	// when their address is taken, with a line to Logf, rather than stop
	// the server: an address left at its default that Azurite or another
	// tablelab holds.
	MayBeTaken map[string]bool

	// DataDir holds the durable stores: the development account's
	// tables in it and its blob containers in its blobs/; every other
	// account's tables in accounts/NAME/ and containers in
	// accounts/NAME/blobs/; every account's queues in queues/ and what
	// accounts set in settings/. Memory keeps everything in memory
	// instead, each account's tables and containers in stores of its own
	// there too.
	DataDir string
	Memory  bool
	// Reset empties every store once it is open, before any service
	// listens (the -reset flag).
	Reset bool
	// KeepInMemory, HoldBytes and CompactBytes are persist.Options'
	// KeepInMemory, HoldBytes and MinCompactBytes for every durable store.
	KeepInMemory bool
	HoldBytes    int64
	CompactBytes int64
	// NoSync writes the durable stores without syncing them: for a
	// server inside a test, whose data need not outlive the machine.
	NoSync bool

	// Accounts are the accounts the services know, each with its own
	// tables and containers; none means the development account alone.
	// The first is the one a request naming no known account reaches.
	// A name is 3 to 24 lowercase letters and digits, as Azure's are.
	Accounts []auth.Account
	// Loose accepts requests without credentials.
	Loose bool
	// Bearer accepts OAuth bearer tokens checked as Azurite's --oauth
	// basic does (auth/bearer.Basic); it needs TLS.
	Bearer bool
	// TLS, when set, makes every service speak HTTPS.
	TLS *tls.Config
	// Cosmos answers table requests under the Azure Cosmos DB for Table
	// profile (api.Options.Cosmos); Paging is the Table service's
	// (api.Options.Paging).
	Cosmos bool
	Paging engine.Paging

	// Instrument, when set, is called once the cores are made and before
	// any front end is: it may wrap each service's Core (the production
	// flags' layers). now is the tables' clock.
	Instrument func(services []*Service, now func() time.Time) error
	// Wrap, when set, wraps each front end's handler: the request log,
	// the inspector's hook. The health and reset endpoints answer before
	// it, so that probes neither fill a log nor reach the inspector.
	Wrap func(service string, next fasthttp.RequestHandler) fasthttp.RequestHandler

	// Logf receives what a person running the server should read: a
	// service not served, a store that failed to snapshot. Debugf
	// receives the routine (stores opened and restored, snapshots taken).
	// Nil discards.
	Logf, Debugf func(format string, args ...any)
}

// A Service is one storage service of a Server: its protocol core and,
// once the server listens, its front end.
type Service struct {
	Name string // "Blob", "Queue" or "Table"
	// Addr is the address asked for; Listener's is where it listens.
	Addr string
	// Core answers the service's requests; Config.Instrument may wrap it.
	Core api.Service
	// Front is the front end's configuration.
	Front apifasthttp.Config

	ln   net.Listener
	http *fasthttp.Server
}

// Listener returns where the service listens; nil before Listen, or when
// its address was taken and it may be (Config.MayBeTaken).
func (s *Service) Listener() net.Listener { return s.ln }

// A Server is the services of a Config over their stores. Open makes
// one, Listen binds its addresses, Serve answers; Close undoes all.
type Server struct {
	cfg      Config
	accounts []auth.Account
	// data holds each account's stores, in the order of accounts, each
	// name once; the first is the one a request for an unknown account
	// reaches.
	data []*account
	// queues and settings keep every account's, by account.
	queues   *queue.Service
	settings *accountsettings.Store
	services []*Service
	serving  []*Service
	closers  []func()
	// ready is set once every listener serves and cleared when the
	// server starts to stop: what /ready answers.
	ready atomic.Bool
	errc  chan error
	// resetMu serializes resets: two at once would each page through
	// what the other deletes.
	resetMu sync.Mutex
	closed  bool
}

// Start opens, listens and serves: the whole server in one call, as a
// test wants it. Close stops it.
func Start(cfg Config) (*Server, error) {
	s, err := Open(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.Listen(); err != nil {
		s.Close()
		return nil, err
	}
	s.Serve()
	return s, nil
}

// Open opens the stores of the services cfg asks for and makes their
// protocol cores; nothing listens yet. With cfg.Reset, the stores are
// emptied once open.
func Open(cfg Config) (*Server, error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Debugf == nil {
		cfg.Debugf = func(string, ...any) {}
	}
	if cfg.Bearer && cfg.TLS == nil {
		return nil, errors.New("bearer tokens need TLS: the service accepts them over HTTPS only")
	}
	s := &Server{cfg: cfg, accounts: cfg.Accounts, errc: make(chan error, 3)}
	if len(s.accounts) == 0 {
		s.accounts = []auth.Account{auth.DevAccount()}
	}
	if err := checkAccounts(s.accounts); err != nil {
		return nil, err
	}
	if err := s.open(); err != nil {
		s.closeStores()
		return nil, err
	}
	if cfg.Instrument != nil {
		now := time.Now
		if tables := s.data[0].tables; tables != nil {
			now = tables.Now
		}
		if err := cfg.Instrument(s.services, now); err != nil {
			s.closeStores()
			return nil, err
		}
	}
	if cfg.Reset {
		cleared, err := s.Reset("")
		if err != nil {
			s.closeStores()
			return nil, fmt.Errorf("-reset: %w", err)
		}
		cfg.Logf("tablelab: -reset: removed %s", cleared)
	}
	return s, nil
}

// Tables returns the store of the first account's tables (the
// development account's, unless Config.Accounts says otherwise): the
// -import and -export flags move tables in and out of it. It is nil
// without a Table service.
func (s *Server) Tables() *engine.Store { return s.data[0].tables }

// Services returns the services, in the order of their ports: Blob,
// Queue, Table. After Listen, those whose address was taken have no
// Listener.
func (s *Server) Services() []*Service { return s.services }

// Serving returns the services that listen, once Listen has returned.
func (s *Server) Serving() []*Service { return s.serving }

// Accounts returns the accounts the services know.
func (s *Server) Accounts() []auth.Account { return s.accounts }

// Listen binds every service's address and makes its front end.
func (s *Server) Listen() error {
	for _, svc := range s.services {
		ln, err := net.Listen("tcp", svc.Addr)
		if err != nil && s.cfg.MayBeTaken[svc.Name] {
			s.cfg.Logf("tablelab: %s service not served: %v (-%s-addr sets another address; empty turns it off)", svc.Name, err, strings.ToLower(svc.Name))
			continue
		}
		if err != nil {
			s.closeListeners()
			return err
		}
		ln = apifasthttp.Listener(ln)
		if s.cfg.TLS != nil {
			ln = tls.NewListener(ln, s.cfg.TLS)
		}
		svc.ln = ln
		svc.http = s.frontEnd(svc)
		s.serving = append(s.serving, svc)
	}
	if len(s.serving) == 0 {
		return errors.New("no service to serve: -blob-addr, -queue-addr and -table-addr are all empty or taken")
	}
	return nil
}

// frontEnd is the fasthttp server of svc: the health and reset endpoints,
// then Config.Wrap around the service's own handler.
func (s *Server) frontEnd(svc *Service) *fasthttp.Server {
	var wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler
	if s.cfg.Wrap != nil {
		wrap = func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return s.cfg.Wrap(svc.Name, next) }
	}
	front := apifasthttp.NewServer(svc.Core, svc.Front, wrap)
	service := front.Handler
	front.Handler = func(ctx *fasthttp.RequestCtx) {
		if !s.answerOwn(ctx) {
			service(ctx)
		}
	}
	return front
}

// Serve starts answering on every listener; Err reports a listener that
// fails.
func (s *Server) Serve() {
	for _, svc := range s.serving {
		go func() {
			if err := svc.http.Serve(svc.ln); err != nil {
				s.errc <- fmt.Errorf("%s service: %w", svc.Name, err)
			}
		}()
	}
	s.ready.Store(true)
}

// Err receives the error of a front end that stopped serving on its own.
func (s *Server) Err() <-chan error { return s.errc }

// Ready reports whether the server answers: its stores open and every
// listener serving. It turns false when the server starts to stop.
func (s *Server) Ready() bool { return s.ready.Load() }

// Shutdown stops the front ends together, each finishing the requests
// it has under way, until ctx ends. The stores stay open.
func (s *Server) Shutdown(ctx context.Context) error {
	s.ready.Store(false)
	errs := make([]error, len(s.serving))
	var wg sync.WaitGroup
	for i, svc := range s.serving {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := svc.http.ShutdownWithContext(ctx); err != nil {
				errs[i] = fmt.Errorf("%s service: %w", svc.Name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Close stops the front ends (for ten seconds at most) and then closes
// the stores: a request under way finishes, or fails, against an open
// store. Closing again does nothing.
func (s *Server) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.Shutdown(ctx)
	s.closeListeners()
	s.closeStores()
	return err
}

// closeListeners closes the listeners bound but not served.
func (s *Server) closeListeners() {
	for _, svc := range s.services {
		if svc.ln != nil && svc.http == nil {
			svc.ln.Close()
		}
	}
}

func (s *Server) closeStores() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
}

// Scheme is the URL scheme the services answer on.
func (s *Server) Scheme() string {
	if s.cfg.TLS != nil {
		return "https"
	}
	return "http"
}

// URL returns the development account's endpoint on the service named
// (Blob, Queue or Table), "" when it is not served.
func (s *Server) URL(name string) string { return s.AccountURL(name, auth.DevAccountName) }

// AccountURL returns account's endpoint on the service named, "" when
// the service is not served.
func (s *Server) AccountURL(service, account string) string {
	for _, svc := range s.serving {
		if svc.Name == service {
			return s.Scheme() + "://" + svc.ln.Addr().String() + "/" + account
		}
	}
	return ""
}

// ConnectionString is the development account's connection string with
// the endpoint of every service served, for SDKs to take as it is.
func (s *Server) ConnectionString() string { return s.connectionString(auth.DevAccount()) }

// AccountConnectionString is ConnectionString for the account named, ""
// when the server knows no such account.
func (s *Server) AccountConnectionString(name string) string {
	for _, a := range s.accounts {
		if a.Name == name {
			return s.connectionString(a)
		}
	}
	return ""
}

func (s *Server) connectionString(a auth.Account) string {
	var b strings.Builder
	b.WriteString("DefaultEndpointsProtocol=" + s.Scheme() + ";AccountName=" + a.Name + ";AccountKey=")
	b.WriteString(base64.StdEncoding.EncodeToString(a.Keys[0]))
	for _, svc := range s.serving {
		b.WriteString(";" + svc.Name + "Endpoint=" + s.AccountURL(svc.Name, a.Name))
		if svc.Name == "Table" {
			// Go's aztables builds a broken URL in GetTableSASURL from
			// an endpoint without it (README.md); the other SDKs take
			// either.
			b.WriteString("/")
		}
	}
	return b.String()
}
