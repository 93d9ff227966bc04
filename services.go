//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"encoding/base64"
	"log"
	"net"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/auth/bearer"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	accountsettings "github.com/tablelab/tablelab/engine/api/settings"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/valyala/fasthttp"
)

// A service is one storage service the server runs: its protocol core
// over its own store, and the front end that serves it.
type service struct {
	name   string // "Blob", "Queue" or "Table", as the log says it
	flag   string // the flag of its address
	addr   string
	core   api.Service
	config apifasthttp.Config
	ln     net.Listener
	http   *fasthttp.Server
}

// openServices opens the stores of the services the flags ask for (the
// tables' is open already) and makes their protocol cores, in the order
// of their ports: Blob, Queue, Table. The returned func closes the
// stores it opened; it is never nil.
func openServices(cfg config, tables *engine.Store, accounts []auth.Account, logger *log.Logger) ([]*service, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	// Each core has a verifier of its own: they cache what they have
	// verified, and a SAS for one service says nothing of another.
	verifier := func() *auth.Verifier {
		v := &auth.Verifier{Accounts: accounts, AllowAnonymous: cfg.loose, SharedKey: auth.VerifySharedKey}
		if cfg.oauth == "basic" {
			v.Bearer = bearer.Basic
		}
		return v
	}
	var services []*service
	if cfg.blobAddr != "" {
		store, closeStore, err := openStore(cfg, logger, blobStore)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, closeStore)
		svc, err := blob.New(store)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, discardStaged(svc, stagedSweep, logger))
		services = append(services, &service{name: "Blob", flag: "blob-addr", addr: cfg.blobAddr,
			core:   blobapi.NewServer(svc, blobapi.Options{Verifier: verifier()}),
			config: apifasthttp.Config{Stream: true}})
	}
	if cfg.queueAddr != "" {
		store, closeStore, err := openStore(cfg, logger, queueStore)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, closeStore)
		svc, err := queue.New(store)
		if err != nil {
			return nil, closeAll, err
		}
		services = append(services, &service{name: "Queue", flag: "queue-addr", addr: cfg.queueAddr,
			core: queueapi.NewServer(svc, queueapi.Options{Verifier: verifier()})})
	}
	if cfg.tableAddr != "" {
		settings, closeSettings, err := openStore(cfg, logger, settingsStore)
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, closeSettings)
		services = append(services, &service{name: "Table", flag: "table-addr", addr: cfg.tableAddr,
			core: api.NewServer(tables, api.Options{Verifier: verifier(), Settings: accountsettings.New(settings), Cosmos: cfg.cosmos, Paging: cfg.prod.pagingOf()})})
	}
	if err := cfg.prod.instruments(services, tables.Now, logger); err != nil {
		return nil, closeAll, err
	}
	return services, closeAll, nil
}

// stagedSweep is how often the Blob service looks for uncommitted blocks
// past their lifetime: the service's rule is a week, so an hour is early
// enough and costs nothing.
const stagedSweep = time.Hour

// discardStaged discards, every period, the uncommitted blocks no commit
// took within blob.StagedLifetime, as the service does, so an abandoned
// upload does not hold its data forever. The returned func stops it and
// waits for a sweep under way.
func discardStaged(svc *blob.Service, period time.Duration, logger *log.Logger) func() {
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				n, err := svc.DiscardStaged(blob.StagedLifetime)
				switch {
				case err != nil:
					logger.Printf("tablelab: discarding week-old uncommitted blocks: %v", err)
				case n > 0:
					logger.Printf("tablelab: discarded the uncommitted blocks of %d blobs, staged over a week ago", n)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}

// connectionString is the development account's connection string with
// the endpoint of every service served: what the startup log prints for
// SDKs to take as it is.
func connectionString(scheme string, services []*service) string {
	var b strings.Builder
	b.WriteString("DefaultEndpointsProtocol=" + scheme + ";AccountName=devstoreaccount1;AccountKey=")
	b.WriteString(base64.StdEncoding.EncodeToString(auth.DevAccount().Keys[0]))
	for _, s := range services {
		b.WriteString(";" + s.name + "Endpoint=" + scheme + "://" + s.ln.Addr().String() + "/devstoreaccount1")
		if s.name == "Table" {
			// Go's aztables builds a broken URL in GetTableSASURL from
			// an endpoint without it (README.md); the other SDKs take
			// either.
			b.WriteString("/")
		}
	}
	return b.String()
}
