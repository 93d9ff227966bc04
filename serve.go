//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

// Command tablelab runs the local server: the Azure Table service on
// 127.0.0.1:10002 (where the SDKs' development connection strings point),
// durable on disk by default.
//
//	go run .                     # data in ./tablelab-data
//	go run . -memory             # nothing on disk
//	go run . -data /tmp/t -loose # anonymous access allowed
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"syscall"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/dump"
	"github.com/tablelab/tablelab/engine/durable/persist"
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
	tableAddr string
	dataDir   string
	memory    bool
	loose     bool
	accounts  string
	quiet     bool
	compact   int64
	keep      bool
	holdMiB   int64
	siteAddr  string
	importAt  string
	exportTo  string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("tablelab", flag.ContinueOnError)
	fs.StringVar(&c.tableAddr, "table-addr", "127.0.0.1:10002", "address of the Table service `host:port`")
	fs.StringVar(&c.dataDir, "data", "tablelab-data", "`directory` that holds the durable store")
	fs.BoolVar(&c.memory, "memory", false, "keep everything in memory; nothing is written to disk")
	fs.BoolVar(&c.keep, "keep-in-memory", false, "with -data, hold every entity in memory too, rather than reading it back from the data files once it is durable")
	fs.Int64Var(&c.holdMiB, "hold-mib", persist.DefaultHoldBytes>>20, "with -data, hold entities in memory while they total at most this many `MiB`; past that, read them back from the data files")
	fs.BoolVar(&c.loose, "loose", false, "accept requests without credentials (anonymous access)")
	fs.StringVar(&c.accounts, "accounts", os.Getenv("AZURITE_ACCOUNTS"), "extra accounts as `name:key[:key2];…` (default from AZURITE_ACCOUNTS); the development account is always present")
	fs.BoolVar(&c.quiet, "quiet", false, "do not log each request")
	fs.StringVar(&c.importAt, "import", "", "before serving, read the tables of an export (the playground's Export writes one) from `file` into the store; entities with the same keys are replaced")
	fs.StringVar(&c.exportTo, "export", "", "write the store's tables to `file` (- for standard output) in the format -import reads, and exit without serving")
	fs.StringVar(&c.siteAddr, "site-addr", "127.0.0.1:8080", "address of the docs site and playground `host:port`, built from content/ into dist/ when missing or older than its sources; empty serves no site")
	fs.Int64Var(&c.compact, "compact-bytes", 0, "log size in `bytes` past which a snapshot may be taken (default 8 MiB; the log is also kept below the live data size)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: tablelab [flags]\n\nThe Azure Table service on http://%s/devstoreaccount1 (see README.md).\n\n", "127.0.0.1:10002")
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

	store, closeStore, err := openStore(cfg, logger)
	if err != nil {
		return err
	}
	defer closeStore()
	if done, err := moveTables(cfg, store, logger); done || err != nil {
		return err
	}
	// Only once the store is open: replay allocates fast and briefly, and
	// under the tighter limit a million-entity restart slowed by half
	// again, close to its budget (docs/benchmarks.md).
	if gogcUnset && os.Getenv("GOMEMLIMIT") == "" {
		stopTighten := tightenHeap()
		defer stopTighten()
	}

	srv := api.NewServer(store, api.Options{Verifier: &auth.Verifier{Accounts: accounts, AllowAnonymous: cfg.loose}})
	// -quiet drops the log of each request; the lines of startup and
	// shutdown below still go to logger.
	requestLog := logger
	if cfg.quiet {
		requestLog = nil
	}
	httpSrv := frontEnd(srv, apifasthttp.Config{}, requestLog)

	ln, err := net.Listen("tcp", cfg.tableAddr)
	if err != nil {
		return err
	}
	logger.Printf("tablelab: Table service on http://%s/devstoreaccount1", ln.Addr())
	if cfg.loose {
		logger.Printf("tablelab: -loose: requests without credentials are accepted")
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.siteAddr != "" {
		// The site builds in the background: the Table service does not
		// wait for it. Its log is its own, kept under -quiet too.
		siteLog := log.New(os.Stderr, "", log.LstdFlags|log.Lmicroseconds)
		site := &sitehttp.Server{Root: ".", Dir: "dist", Logf: siteLog.Printf}
		go func() {
			if err := site.ListenAndServe(ctx, cfg.siteAddr); err != nil {
				siteLog.Printf("site: not served: %v", err)
			}
		}()
	}
	errc := make(chan error, 1)
	go func() { errc <- httpSrv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Printf("tablelab: shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return httpSrv.ShutdownWithContext(shutdown)
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

// frontEnd is the HTTP server over srv; with a logger, it logs every
// request, those refused before the handler included.
func frontEnd(srv *api.Server, c apifasthttp.Config, logger *log.Logger) *fasthttp.Server {
	var wrap func(fasthttp.RequestHandler) fasthttp.RequestHandler
	if logger != nil {
		wrap = func(next fasthttp.RequestHandler) fasthttp.RequestHandler { return logRequests(logger, next) }
	}
	return apifasthttp.NewServer(srv, c, wrap)
}

// logRequests logs each request with its status, time and query plan,
// and a request refused before the handler with the reason; "- -"
// stands for the method and target of a request line that did not
// parse.
func logRequests(logger *log.Logger, next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		start := time.Now()
		next(ctx)
		h := &ctx.Response.Header
		method, target, note := string(ctx.Method()), string(ctx.RequestURI()), ""
		if p := h.Peek("X-Tablelab-Plan"); len(p) > 0 {
			note = fmt.Sprintf(" plan=%s examined=%s returned=%s", p, h.Peek("X-Tablelab-Examined"), h.Peek("X-Tablelab-Returned"))
		}
		if r := apifasthttp.RefusalOf(ctx); r != nil {
			if r.Unparsed {
				method, target = "-", "-"
			}
			note = fmt.Sprintf(" refused: %v", r.Err)
		}
		logger.Printf("%s %s %d %s%s", method, target, ctx.Response.StatusCode(), time.Since(start).Round(time.Microsecond), note)
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

// openStore opens the store the flags ask for.
func openStore(cfg config, logger *log.Logger) (*engine.Store, func(), error) {
	if cfg.memory {
		logger.Printf("tablelab: -memory: nothing is written to disk")
		return engine.New(engine.Options{}), func() {}, nil
	}
	db, err := persist.Open(cfg.dataDir, persist.Options{Logf: logger.Printf, MinCompactBytes: cfg.compact, KeepInMemory: cfg.keep, HoldBytes: holdBytes(cfg.holdMiB)})
	if err != nil {
		return nil, nil, err
	}
	logger.Printf("tablelab: data in %s", cfg.dataDir)
	return db.Store, func() {
		if err := db.Close(); err != nil {
			logger.Printf("tablelab: closing the store: %v", err)
		}
	}, nil
}
