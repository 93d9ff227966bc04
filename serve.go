//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

// Command tablelab runs the local server: the Azure Blob, Queue and Table
// services on 127.0.0.1:10000, 10001 and 10002 (where the SDKs'
// development connection strings point), durable on disk by default.
//
//	go run .                     # data in ./tablelab-data
//	go run . -memory             # nothing on disk
//	go run . -reset              # the data emptied first
//	go run . -data /tmp/t -loose # anonymous access allowed
//	go run . -blob-addr=         # no Blob service
//	go run . -v                  # every request logged
//
// It prints each service's endpoint, the docs site's address and the
// connection string first, each on a line of its own; the log follows on
// standard error. Every service port also answers /ready, /alive and
// POST /_tablelab/reset (package internal/server).
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"syscall"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/dump"
	"github.com/tablelab/tablelab/engine/durable/persist"
	"github.com/tablelab/tablelab/internal/server"
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
	verbose  bool
	reset    bool
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
	fs.StringVar(&c.dataDir, "data", "tablelab-data", "`directory` that holds the durable stores: the development account's tables in it and its blobs in blobs/, another account's in accounts/NAME/ and accounts/NAME/blobs/, every account's queues in queues/")
	fs.BoolVar(&c.memory, "memory", false, "keep everything in memory; nothing is written to disk")
	fs.BoolVar(&c.keep, "keep-in-memory", false, "with -data, hold every entity in memory too, rather than reading it back from the data files once it is durable")
	fs.Int64Var(&c.holdMiB, "hold-mib", persist.DefaultHoldBytes>>20, "with -data, hold entities in memory while they total at most this many `MiB`; past that, read them back from the data files")
	fs.BoolVar(&c.loose, "loose", false, "accept requests without credentials (anonymous access)")
	fs.StringVar(&c.accounts, "accounts", os.Getenv("AZURITE_ACCOUNTS"), "extra accounts as `name:key[:key2];…` (default from AZURITE_ACCOUNTS), each with data of its own; the development account is always present")
	fs.BoolVar(&c.quiet, "quiet", false, "log no request, not even those the server fails")
	fs.BoolVar(&c.verbose, "v", false, "log every request (by default only those the server fails, 5xx, or cannot read), and the stores' routine: restores, snapshots")
	fs.BoolVar(&c.reset, "reset", false, "empty the stores at start: every account's tables, queues and blob containers, and what accounts set (POST /_tablelab/reset[?account=NAME] does it while running)")
	fs.StringVar(&c.importAt, "import", "", "before serving, read the tables of an export (the playground's Export writes one) from `file` into the development account's tables; entities with the same keys are replaced, and a file with anything wrong is refused whole")
	fs.StringVar(&c.exportTo, "export", "", "write the development account's tables to `file` (- for standard output) in the format -import reads, and exit without serving")
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
	if (c.importAt != "" || c.exportTo != "") && c.tableAddr == "" {
		return c, errors.New("-import and -export move the Table service's tables: they need -table-addr")
	}
	if c.quiet && c.verbose {
		return c, errors.New("-quiet and -v: choose one")
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

// serverConfig is the server the flags ask for, its notes to logger (the
// routine ones under -v only) and its front ends wrapped in wrap.
func serverConfig(cfg config, accounts []auth.Account, logger *log.Logger, wrap func(string, fasthttp.RequestHandler) fasthttp.RequestHandler) server.Config {
	sc := server.Config{
		BlobAddr: cfg.blobAddr, QueueAddr: cfg.queueAddr, TableAddr: cfg.tableAddr,
		// A default address someone else holds (Azurite, another
		// tablelab) does not stop the other services.
		MayBeTaken: map[string]bool{"Blob": !cfg.given["blob-addr"], "Queue": !cfg.given["queue-addr"]},
		DataDir:    cfg.dataDir, Memory: cfg.memory, Reset: cfg.reset,
		KeepInMemory: cfg.keep, HoldBytes: holdBytes(cfg.holdMiB), CompactBytes: cfg.compact,
		Accounts: accounts, Loose: cfg.loose, Bearer: cfg.oauth == "basic",
		Cosmos: cfg.cosmos, Paging: cfg.prod.pagingOf(),
		Instrument: func(services []*server.Service, now func() time.Time) error {
			return cfg.prod.instruments(services, now, logger)
		},
		Wrap: wrap,
		Logf: logger.Printf,
	}
	if cfg.verbose {
		sc.Debugf = logger.Printf
	}
	return sc
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
	if cfg.exportTo != "" {
		// An export reads the tables and ends: the other stores stay shut.
		cfg.blobAddr, cfg.queueAddr = "", ""
	}
	tlsConfig, err := loadTLS(cfg)
	if err != nil {
		return err
	}
	// The inspector watches the services' front ends for the site's
	// inspector page; without a site nobody can watch, and the front ends
	// go without its hook.
	var hub *inspect.Hub
	if cfg.siteAddr != "" && cfg.exportTo == "" {
		hub = inspect.NewHub(0, 0)
	}
	sc := serverConfig(cfg, accounts, logger, wrapFrontEnd(requestLog(cfg, logger), hub))
	sc.TLS = tlsConfig
	srv, err := server.Open(sc)
	if err != nil {
		return err
	}
	defer srv.Close()
	if done, err := moveTables(cfg, srv.Tables(), logger); done || err != nil {
		return err
	}
	// Only once the stores are open: replay allocates fast and briefly,
	// and under the tighter limit a million-entity restart slowed by half
	// again, close to its budget (docs/benchmarks.md).
	if gogcUnset && os.Getenv("GOMEMLIMIT") == "" {
		stopTighten := tightenHeap()
		defer stopTighten()
	}
	if err := srv.Listen(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var site *sitehttp.Server
	var siteLn net.Listener
	if cfg.siteAddr != "" {
		if siteLn, err = net.Listen("tcp", cfg.siteAddr); err != nil {
			logger.Printf("tablelab: site not served: %v (-site-addr sets another address; empty turns it off)", err)
		} else {
			// Its log is its own, kept under -quiet too.
			siteLog := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
			site = &sitehttp.Server{Root: ".", Dir: "dist", Logf: siteLog.Printf, Tools: tools(srv.Serving(), accounts, hub)}
		}
	}
	srv.Serve()
	printEndpoints(os.Stdout, cfg, srv, siteLn, site != nil && site.WillBuild())
	if site != nil {
		// The site builds in the background: the services do not wait
		// for it.
		go func() {
			if err := site.Serve(ctx, siteLn); err != nil {
				site.Logf("site: not served: %v", err)
			}
		}()
	}
	var serveErr error
	select {
	case serveErr = <-srv.Err():
	case <-ctx.Done():
		logger.Printf("tablelab: shutting down")
	}
	// Every front end stops before any store closes: a request under
	// way finishes, or fails, against an open store.
	return errors.Join(serveErr, srv.Close())
}

// printEndpoints writes what the reader needs first, each on a line of
// its own and ready to paste: the services' endpoints, the site's address
// and the connection string; then what the flags change.
func printEndpoints(w io.Writer, cfg config, srv *server.Server, siteLn net.Listener, siteBuilding bool) {
	var b strings.Builder
	for _, s := range srv.Serving() {
		fmt.Fprintf(&b, "%-6s %s\n", s.Name, srv.URL(s.Name))
	}
	if siteLn != nil {
		fmt.Fprintf(&b, "%-6s http://%s/", "Site", siteLn.Addr())
		if siteBuilding {
			b.WriteString("  (building the docs site first: a minute or so on a first run)")
		}
		b.WriteString("\n")
	}
	b.WriteString("Connection string:\n" + srv.ConnectionString() + "\n\n")
	if accounts := srv.Accounts(); len(accounts) > 1 {
		var names []string
		for _, a := range accounts[1:] {
			names = append(names, a.Name)
		}
		b.WriteString("Accounts besides " + accounts[0].Name + " (-accounts), each with data of its own: " + strings.Join(names, ", ") + ".\n")
	}
	if cfg.memory {
		b.WriteString("Data in memory only (-memory): nothing is written to disk.\n")
	} else {
		b.WriteString("Data in " + cfg.dataDir + " (-reset empties it at start).\n")
	}
	if cfg.loose {
		b.WriteString("-loose: requests without credentials are accepted.\n")
	}
	if cfg.cosmos {
		b.WriteString("-cosmos: the Table service answers as Azure Cosmos DB for Table differs from Table storage (a model, see docs/compatibility.md).\n")
	}
	switch {
	case cfg.quiet:
		b.WriteString("No request is logged (-quiet).")
	case cfg.verbose:
		b.WriteString("Every request is logged (-v).")
	default:
		b.WriteString("A request is logged when the server fails it (5xx) or cannot read it; -v logs every one.")
	}
	b.WriteString(" Ctrl-C stops the server.\n")
	io.WriteString(w, b.String())
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

// wrapFrontEnd is what each front end's handler is wrapped in: the
// inspector's hook when there is a hub, then the request log when there
// is one (logRequests).
func wrapFrontEnd(rl *requestLogger, hub *inspect.Hub) func(string, fasthttp.RequestHandler) fasthttp.RequestHandler {
	if rl == nil && hub == nil {
		return nil
	}
	return func(name string, next fasthttp.RequestHandler) fasthttp.RequestHandler {
		if hub != nil {
			next = hub.Hook(name, next)
		}
		if rl != nil {
			next = rl.wrap(name, next)
		}
		return next
	}
}

// tools is what the site answers under sitehttp.ToolsPrefix: the
// inspector's event stream over hub and the explorer's way into the
// services served, for accounts.
func tools(serving []*server.Service, accounts []auth.Account, hub *inspect.Hub) http.Handler {
	var cores []explore.Service
	for _, s := range serving {
		cores = append(cores, explore.Service{Name: s.Name, Core: s.Core, Stream: s.Front.Stream})
	}
	mux := http.NewServeMux()
	mux.Handle(inspect.Prefix, hub.Handler())
	mux.Handle(explore.Prefix, explore.New(cores, accounts, hub))
	return mux
}

// A requestLogger logs requests: every one, or (the default) those
// that need a look: a server error tablelab did not inject on purpose, or
// a request it could not read. A terminal that scrolls with every request
// hides the one that matters; the site's inspector shows them all.
type requestLogger struct {
	logger *log.Logger
	all    bool
}

// requestLog is the request log the flags ask for: none under -quiet,
// every request under -v.
func requestLog(cfg config, logger *log.Logger) *requestLogger {
	if cfg.quiet {
		return nil
	}
	return &requestLogger{logger: logger, all: cfg.verbose}
}

// worthLogging reports whether a request's line goes to the log.
func (rl *requestLogger) worthLogging(ctx *fasthttp.RequestCtx) bool {
	if rl.all || apifasthttp.RefusalOf(ctx) != nil {
		return true
	}
	return ctx.Response.StatusCode() >= 500 && len(ctx.Response.Header.Peek("X-Tablelab-Fault")) == 0
}

// wrap logs each request worth it with the service's name, its status,
// time and query plan (and a query's warning), and a request refused before the handler with the
// reason; "- -" stands for the method and target of a request line that
// did not parse.
func (rl *requestLogger) wrap(name string, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		start := time.Now()
		next(ctx)
		if !rl.worthLogging(ctx) {
			return
		}
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
		rl.logger.Printf("%s %s %s %d %s%s", name, method, target, ctx.Response.StatusCode(), time.Since(start).Round(time.Microsecond), note)
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
