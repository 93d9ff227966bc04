//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

// Command tablelab runs the local server: the Azure Blob, Queue and Table
// services on 127.0.0.1:10000, 10001 and 10002 (where the SDKs'
// development connection strings point), durable on disk by default.
//
//	go run .                     # data in ./tablelab-data
//	go run . -memory             # nothing on disk
//	go run . -data /tmp/t -loose # anonymous access allowed
//	go run . -blob-addr=         # no Blob service
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/dump"
	"github.com/tablelab/tablelab/engine/durable/osfile"
	"github.com/tablelab/tablelab/engine/durable/persist"
	"github.com/tablelab/tablelab/site/explore"
	"github.com/tablelab/tablelab/site/inspect"
	"github.com/tablelab/tablelab/site/sitehttp"
	"github.com/valyala/fasthttp"
)

func main() {
	err := run(os.Args[1:])
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		// -h asked for the flags, which the flag package has printed:
		// that is a success.
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "tablelab:", err)
		os.Exit(1)
	}
}

// errUsage is a command line that does not parse; the flag package has
// said why and printed the flags.
var errUsage = errors.New("usage")

type config struct {
	blobAddr  string
	queueAddr string
	tableAddr string
	// given holds the flags set on the command line: a Blob or Queue
	// address left at its default may be taken by something else, and
	// the server then goes on without that service.
	given    map[string]bool
	dataDir  string
	memory   bool
	loose    bool
	accounts string
	quiet    bool
	compact  int64
	keep     bool
	holdMiB  int64
	siteAddr string
	importAt string
	exportTo string
	certFile string
	keyFile  string
	oauth    string
	// cosmos runs the Table service under the Azure Cosmos DB for Table
	// profile (api.Options.Cosmos).
	cosmos bool
	// prod holds the flags of production's behaviour: scans, throttling,
	// faults, paging.
	prod production
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("tablelab", flag.ContinueOnError)
	fs.StringVar(&c.blobAddr, "blob-addr", "127.0.0.1:10000", "address of the Blob service `host:port`; empty turns it off (left at its default and taken, it is off with a warning)")
	fs.StringVar(&c.queueAddr, "queue-addr", "127.0.0.1:10001", "address of the Queue service `host:port`; empty turns it off (left at its default and taken, it is off with a warning)")
	fs.StringVar(&c.tableAddr, "table-addr", "127.0.0.1:10002", "address of the Table service `host:port`; empty turns it off")
	fs.StringVar(&c.dataDir, "data", "tablelab-data", "`directory` that holds the durable stores: the tables' in it, the queues' and blobs' in its queues/ and blobs/")
	fs.BoolVar(&c.memory, "memory", false, "keep everything in memory; nothing is written to disk")
	fs.BoolVar(&c.keep, "keep-in-memory", false, "with -data, hold every entity in memory too, rather than reading it back from the data files once it is durable")
	fs.Int64Var(&c.holdMiB, "hold-mib", persist.DefaultHoldBytes>>20, "with -data, hold entities in memory while they total at most this many `MiB`; past that, read them back from the data files")
	fs.BoolVar(&c.loose, "loose", false, "accept requests without credentials (anonymous access)")
	fs.StringVar(&c.accounts, "accounts", os.Getenv("AZURITE_ACCOUNTS"), "extra accounts as `name:key[:key2];…` (default from AZURITE_ACCOUNTS); the development account is always present")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log each request")
	fs.StringVar(&c.importAt, "import", "", "before serving, read the tables of an export (the playground's Export writes one) from `file` into the store; entities with the same keys are replaced, and a file with anything wrong is refused whole")
	fs.StringVar(&c.exportTo, "export", "", "write the store's tables to `file` (- for standard output) in the format -import reads, and exit without serving")
	fs.StringVar(&c.siteAddr, "site-addr", "127.0.0.1:8080", "address of the docs site and playground `host:port`, built from content/ into dist/ when missing or older than its sources; empty serves no site")
	fs.StringVar(&c.certFile, "cert", "", "serve HTTPS with the certificate in this PEM `file` (with -key), as Azurite's --cert")
	fs.StringVar(&c.keyFile, "key", "", "the private key, a PEM `file`, of -cert")
	fs.StringVar(&c.oauth, "oauth", "", "`basic` accepts OAuth bearer tokens (needs -cert): a JWT's audience, issuer and lifetime are checked as Azurite's --oauth basic does, its signature is not")
	fs.BoolVar(&c.cosmos, "cosmos", false, "answer table requests as Azure Cosmos DB for Table differs from Table storage: results not in key order, every property indexed, RowKey at most 255 bytes, batch at most 2 MiB, case-sensitive table names (a model for design, not Cosmos DB)")
	fs.Int64Var(&c.compact, "compact-bytes", 0, "log size in `bytes` past which a snapshot may be taken (default 8 MiB; the log is also kept below the live data size)")
	c.prod.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tablelab [flags]\n\nThe Azure Blob, Queue and Table services on http://127.0.0.1:10000, 10001 and 10002/devstoreaccount1 (see README.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, errUsage
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	c.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.given[f.Name] = true })
	if err := c.prod.check(c.given); err != nil {
		return c, err
	}
	if (c.certFile == "") != (c.keyFile == "") {
		return c, errors.New("-cert and -key go together")
	}
	switch c.oauth {
	case "":
	case "basic":
		if c.certFile == "" {
			return c, errors.New("-oauth basic needs HTTPS (-cert and -key): the service accepts bearer tokens over HTTPS only")
		}
	default:
		return c, fmt.Errorf("-oauth %q: the only level is basic", c.oauth)
	}
	return c, nil
}

// holdBytes turns -hold-mib into persist.Options.HoldBytes, where zero
// would mean the default: -hold-mib 0 holds nothing.
func holdBytes(mib int64) int64 {
	if mib <= 0 {
		return -1
	}
	return mib << 20
}

func run(args []string) error {
	cfg, err := parseFlags(args)
	if err != nil {
		return err
	}
	// The store's heap is nearly all live entities, so the collector's
	// default of letting the heap double between collections doubles the
	// server's memory. Collecting at +50% cut peak RSS markedly in the
	// load benchmark at no cost in throughput (docs/benchmarks.md); past
	// a few hundred MiB of live data, headroom follows the live heap more
	// tightly still (tightenHeap). GOGC and GOMEMLIMIT still override
	// both.
	gogcUnset := os.Getenv("GOGC") == ""
	if gogcUnset {
		debug.SetGCPercent(50)
	}
	logger := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)

	accounts := []auth.Account{auth.DevAccount()}
	if cfg.accounts != "" {
		extra, err := auth.ParseAccounts(cfg.accounts)
		if err != nil {
			return fmt.Errorf("-accounts: %w", err)
		}
		accounts = append(accounts, extra...)
	}

	store, closeStore, err := openStore(cfg, logger, tableStore)
	if err != nil {
		return err
	}
	defer closeStore()
	if done, err := moveTables(cfg, store, logger); done || err != nil {
		return err
	}
	services, closeServices, err := openServices(cfg, store, accounts, logger)
	defer closeServices()
	if err != nil {
		return err
	}
	// Only once the stores are open: replay allocates fast and briefly,
	// and under the tighter limit a million-entity restart slowed by half
	// again, close to its budget (docs/benchmarks.md).
	if gogcUnset && os.Getenv("GOMEMLIMIT") == "" {
		stopTighten := tightenHeap()
		defer stopTighten()
	}
	// -quiet drops the log of each request; the lines of startup and
	// shutdown below still go to logger.
	requestLog := logger
	if cfg.quiet {
		requestLog = nil
	}
	tlsConfig, err := loadTLS(cfg)
	if err != nil {
		return err
	}
	// The inspector watches the services' front ends for the site's
	// inspector page; without a site nobody can watch, and the front ends
	// go without its hook.
	var hub *inspect.Hub
	if cfg.siteAddr != "" {
		hub = inspect.NewHub(0, 0)
	}
	var serving []*service
	for _, s := range services {
		ln, err := net.Listen("tcp", s.addr)
		if err != nil && !cfg.given[s.flag] && s.flag != "table-addr" {
			// A default address someone else holds (Azurite, another
			// tablelab) does not stop the other services.
			logger.Printf("tablelab: %s service not served: %v (-%s sets another address; empty turns it off)", s.name, err, s.flag)
			continue
		}
		if err != nil {
			closeAll(serving)
			return err
		}
		if tlsConfig != nil {
			ln = tls.NewListener(ln, tlsConfig)
		}
		s.ln = ln
		s.http = frontEnd(s.core, s.config, requestLog, s.name, hub)
		serving = append(serving, s)
	}
	if len(serving) == 0 {
		return errors.New("no service to serve: -blob-addr, -queue-addr and -table-addr are all empty or taken")
	}
	for _, s := range serving {
		logger.Printf("tablelab: %s service on %s://%s/devstoreaccount1", s.name, scheme(cfg), s.ln.Addr())
	}
	logger.Printf("tablelab: connection string %s", connectionString(scheme(cfg), serving))
	if cfg.loose {
		logger.Printf("tablelab: -loose: requests without credentials are accepted")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.siteAddr != "" {
		// The site builds in the background: the services do not wait for
		// it. Its log is its own, kept under -quiet too.
		siteLog := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
		site := &sitehttp.Server{Root: ".", Dir: "dist", Logf: siteLog.Printf, Tools: tools(serving, accounts, hub)}
		go func() {
			if err := site.ListenAndServe(ctx, cfg.siteAddr); err != nil {
				siteLog.Printf("site: not served: %v", err)
			}
		}()
	}
	errc := make(chan error, len(serving))
	for _, s := range serving {
		go func() {
			if err := s.http.Serve(s.ln); err != nil {
				errc <- fmt.Errorf("%s service: %w", s.name, err)
			}
		}()
	}
	var serveErr error
	select {
	case serveErr = <-errc:
	case <-ctx.Done():
		logger.Printf("tablelab: shutting down")
	}
	// Every front end stops before any store closes (the deferred
	// closes run after this returns): a request under way finishes, or
	// fails, against an open store.
	return errors.Join(serveErr, shutdown(serving))
}

// shutdown stops the services' front ends together, each finishing the
// requests it has under way, for ten seconds at most.
func shutdown(services []*service) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs := make([]error, len(services))
	var wg sync.WaitGroup
	for i, s := range services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.http.ShutdownWithContext(ctx); err != nil {
				errs[i] = fmt.Errorf("%s service: %w", s.name, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// closeAll closes the listeners of services not yet serving.
func closeAll(services []*service) {
	for _, s := range services {
		s.ln.Close()
	}
}

// tightenHeap keeps the collector's headroom at an eighth of the live heap
// plus 64 MiB, once that is less than GOGC's half: the heap of a large
// store is mostly entities that stay, and most of them are strings the
// collector need not scan, so collecting more often costs little while
// half the live heap of a large store is a lot of memory held for
// nothing. It
// sets a soft memory limit from the live heap the last collection found,
// rechecked ten times a second; the limit only ever leads the collector
// to run sooner, and an updated limit follows the heap as it grows.
func tightenHeap() (stop func()) {
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			live := int64(sample[0].Value.Uint64())
			debug.SetMemoryLimit(live + live/8 + 64<<20 + nonHeapAllowance)
		}
	}()
	return func() { close(done); debug.SetMemoryLimit(math.MaxInt64) }
}

// nonHeapAllowance is what the memory limit leaves for the runtime's own
// memory besides the heap (stacks, GC metadata, buffers), which the limit
// counts too.
const nonHeapAllowance = 32 << 20

// frontEnd is the HTTP server over the service srv, called name in the
// log; with a logger, it logs every request, those refused before the
// handler included, and with a hub it hands them to the inspector while
// anyone watches.
func frontEnd(srv api.Service, c apifasthttp.Config, logger *log.Logger, name string, hub *inspect.Hub) *fasthttp.Server {
	var wraps []func(fasthttp.RequestHandler) fasthttp.RequestHandler
	if hub != nil {
		wraps = append(wraps, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return hub.Hook(name, next) })
	}
	if logger != nil {
		wraps = append(wraps, func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return logRequests(logger, name, next) })
	}
	var wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler
	if len(wraps) > 0 {
		wrap = func(next fasthttp.RequestHandler) fasthttp.RequestHandler {
			for _, w := range wraps {
				next = w(next)
			}
			return next
		}
	}
	return apifasthttp.NewServer(srv, c, wrap)
}

// tools is what the site answers under sitehttp.ToolsPrefix: the
// inspector's event stream over hub and the explorer's way into the
// services served, for accounts.
func tools(serving []*service, accounts []auth.Account, hub *inspect.Hub) http.Handler {
	var cores []explore.Service
	for _, s := range serving {
		cores = append(cores, explore.Service{Name: s.name, Core: s.core, Stream: s.config.Stream})
	}
	mux := http.NewServeMux()
	mux.Handle(inspect.Prefix, hub.Handler())
	mux.Handle(explore.Prefix, explore.New(cores, accounts, hub))
	return mux
}

// logRequests logs each request with the service's name, its status,
// time and query plan (and a query's warning), and a request refused before the handler with the
// reason; "- -" stands for the method and target of a request line that
// did not parse.
func logRequests(logger *log.Logger, name string, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		start := time.Now()
		next(ctx)
		h := &ctx.Response.Header
		method, target, note := string(ctx.Method()), string(ctx.RequestURI()), ""
		if p := h.Peek("X-Tablelab-Plan"); len(p) > 0 {
			note = fmt.Sprintf(" plan=%s examined=%s returned=%s", p, h.Peek("X-Tablelab-Examined"), h.Peek("X-Tablelab-Returned"))
		}
		if w := h.Peek("X-Tablelab-Scan-Warning"); len(w) > 0 {
			note += " scan"
		}
		if f := h.Peek("X-Tablelab-Fault"); len(f) > 0 {
			note += fmt.Sprintf(" fault=%q", f)
		}
		if w := h.Peek(api.WarningHeader); len(w) > 0 {
			note += fmt.Sprintf(" warning: %s", w)
		}
		if r := apifasthttp.RefusalOf(ctx); r != nil {
			if r.Unparsed {
				method, target = "-", "-"
			}
			note = fmt.Sprintf(" refused: %v", r.Err)
		}
		logger.Printf("%s %s %s %d %s%s", name, method, target, ctx.Response.StatusCode(), time.Since(start).Round(time.Microsecond), note)
	}
}

// moveTables applies -import and then -export to store, and reports
// whether the server should stop there: it does after an export, which
// is a command of its own.
func moveTables(cfg config, store *engine.Store, logger *log.Logger) (done bool, err error) {
	if cfg.importAt != "" {
		f, err := os.Open(cfg.importAt)
		if err != nil {
			return true, fmt.Errorf("-import: %w", err)
		}
		err = dump.Import(store, f)
		f.Close()
		if err != nil {
			return true, fmt.Errorf("-import %s: %w", cfg.importAt, err)
		}
		logger.Printf("tablelab: imported the tables of %s", cfg.importAt)
	}
	if cfg.exportTo == "" {
		return false, nil
	}
	if cfg.exportTo == "-" {
		return true, dump.Export(store, os.Stdout)
	}
	f, err := os.Create(cfg.exportTo)
	if err != nil {
		return true, fmt.Errorf("-export: %w", err)
	}
	if err := dump.Export(store, f); err != nil {
		f.Close()
		return true, fmt.Errorf("-export %s: %w", cfg.exportTo, err)
	}
	return true, f.Close()
}

// A storeKind is where a service keeps its store and what keys it needs.
type storeKind struct {
	name string // as the log says it
	// dir is the store's directory under -data: the tables' is -data
	// itself, as it was before the other services came, so that a data
	// directory written then still opens.
	dir string
	// openKeys lets keys be any text (engine.Options.OpenKeys): blob
	// names hold '/', '?' and '#'.
	openKeys bool
}

var (
	tableStore = storeKind{name: "tables"}
	queueStore = storeKind{name: "queues", dir: "queues", openKeys: true}
	blobStore  = storeKind{name: "blobs", dir: "blobs", openKeys: true}
	// settingsStore holds what accounts set about the Table service (its
	// properties and CORS rules), as durable as the tables.
	settingsStore = storeKind{name: "settings", dir: "settings"}
)

// openStore opens the store of kind k the flags ask for.
func openStore(cfg config, logger *log.Logger, k storeKind) (*engine.Store, func(), error) {
	// Cosmos DB for Table's table names differ by case.
	exact := cfg.cosmos && k == tableStore
	if exact {
		logger.Printf("tablelab: -cosmos: the Table service answers as Azure Cosmos DB for Table differs from Table storage (a model, see docs/compatibility.md)")
	}
	if cfg.memory {
		if k == tableStore {
			logger.Printf("tablelab: -memory: nothing is written to disk")
		}
		return engine.New(engine.Options{OpenKeys: k.openKeys, CaseSensitiveTableNames: exact}), func() {}, nil
	}
	dir := cfg.dataDir
	if k.dir != "" {
		dir = filepath.Join(dir, k.dir)
		if err := makeDir(dir); err != nil {
			return nil, nil, err
		}
	}
	db, err := persist.Open(dir, persist.Options{Logf: logger.Printf, MinCompactBytes: cfg.compact, KeepInMemory: cfg.keep, HoldBytes: holdBytes(cfg.holdMiB), OpenKeys: k.openKeys, CaseSensitiveTableNames: exact})
	if err != nil {
		return nil, nil, err
	}
	logger.Printf("tablelab: %s in %s", k.name, dir)
	return db.Store, func() {
		if err := db.Close(); err != nil {
			logger.Printf("tablelab: closing the store of %s: %v", k.name, err)
		}
	}, nil
}

// makeDir creates dir, a sub-directory of the data directory, when it is
// missing, and makes its entry durable: the log inside it syncs its own
// files, but not the directory that holds them.
func makeDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return osfile.SyncDir(filepath.Dir(dir))
}

// loadTLS reads -cert and -key; nil when the server speaks plain HTTP.
func loadTLS(cfg config) (*tls.Config, error) {
	if cfg.certFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.certFile, cfg.keyFile)
	if err != nil {
		return nil, fmt.Errorf("-cert/-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// scheme is the URL scheme the services answer on.
func scheme(cfg config) string {
	if cfg.certFile != "" {
		return "https"
	}
	return "http"
}
