//go:build !js

package server

import (
	"os"
	"path/filepath"
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
	"github.com/tablelab/tablelab/engine/durable/osfile"
	"github.com/tablelab/tablelab/engine/durable/persist"
	"github.com/tablelab/tablelab/engine/queue"
)

// A storeKind is where a service keeps its store and what keys it needs.
type storeKind struct {
	name string // as the log says it
	// dir is the store's directory under the account's: the tables' is
	// the account's directory itself, as it was before the other
	// services came, so that a data directory written then still opens.
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

// open opens the stores of the services the config asks for and makes
// their protocol cores, in the order of their ports: Blob, Queue, Table.
// Every account's stores are opened here, before any request: an
// account's first request then waits for no restore, and a store that
// cannot be opened (its lock held, its files damaged) stops the server at
// its start rather than failing one account's requests later. What it
// opened is closed by closeStores, on failure too.
func (s *Server) open() error {
	cfg := s.cfg
	// Each core has a verifier of its own: they cache what they have
	// verified, and a SAS for one service says nothing of another.
	verifier := func() *auth.Verifier {
		v := &auth.Verifier{Accounts: s.accounts, AllowAnonymous: cfg.Loose, SharedKey: auth.VerifySharedKey}
		if cfg.Bearer {
			v.Bearer = bearer.Basic
		}
		return v
	}
	for _, a := range s.accounts {
		if s.account(a.Name) != nil {
			continue // named twice
		}
		acct := &account{name: a.Name}
		s.data = append(s.data, acct)
		if cfg.TableAddr != "" {
			tables, err := s.openStore(tableStore, a.Name)
			if err != nil {
				return err
			}
			acct.tables = tables
		}
		if cfg.BlobAddr != "" {
			store, err := s.openStore(blobStore, a.Name)
			if err != nil {
				return err
			}
			svc, err := blob.New(store)
			if err != nil {
				return err
			}
			acct.blobs = svc
			s.closers = append(s.closers, discardStaged(svc, stagedSweep, cfg.Logf))
		}
	}
	// Each service's cores, one per account, in the order of s.data.
	var names []string
	for _, acct := range s.data {
		names = append(names, acct.name)
	}
	if cfg.BlobAddr != "" {
		var cores []api.Service
		for _, acct := range s.data {
			cores = append(cores, blobapi.NewServer(acct.blobs, blobapi.Options{Verifier: verifier()}))
		}
		s.services = append(s.services, &Service{Name: "Blob", Addr: cfg.BlobAddr,
			Core: route(names, cores), Front: apifasthttp.Config{Stream: true}})
	}
	if cfg.QueueAddr != "" {
		store, err := s.openStore(queueStore, auth.DevAccountName)
		if err != nil {
			return err
		}
		svc, err := queue.New(store)
		if err != nil {
			return err
		}
		s.queues = svc
		s.services = append(s.services, &Service{Name: "Queue", Addr: cfg.QueueAddr,
			Core: queueapi.NewServer(svc, queueapi.Options{Verifier: verifier()})})
	}
	if cfg.TableAddr != "" {
		store, err := s.openStore(settingsStore, auth.DevAccountName)
		if err != nil {
			return err
		}
		s.settings = accountsettings.New(store)
		var cores []api.Service
		for _, acct := range s.data {
			cores = append(cores, api.NewServer(acct.tables, api.Options{Verifier: verifier(), Settings: s.settings, Cosmos: cfg.Cosmos, Paging: cfg.Paging}))
		}
		s.services = append(s.services, &Service{Name: "Table", Addr: cfg.TableAddr, Core: route(names, cores)})
	}
	return nil
}

// openStore opens the store of kind k of the account named, as the
// config asks for it; closeStores closes it. The Queue service's and the
// settings' stores, which hold every account's, are the development
// account's.
func (s *Server) openStore(k storeKind, account string) (*engine.Store, error) {
	cfg := s.cfg
	// Cosmos DB for Table's table names differ by case.
	exact := cfg.Cosmos && k == tableStore
	if cfg.Memory {
		return engine.New(engine.Options{OpenKeys: k.openKeys, CaseSensitiveTableNames: exact}), nil
	}
	dir := filepath.Join(cfg.DataDir, accountDir(account), k.dir)
	if err := makeDir(cfg.DataDir, dir); err != nil {
		return nil, err
	}
	db, err := persist.Open(dir, persist.Options{Logf: s.storeLogf, NoSync: cfg.NoSync, MinCompactBytes: cfg.CompactBytes, KeepInMemory: cfg.KeepInMemory, HoldBytes: cfg.HoldBytes, OpenKeys: k.openKeys, CaseSensitiveTableNames: exact})
	if err != nil {
		return nil, err
	}
	what := k.name
	if k == tableStore || k == blobStore {
		what += " of " + account
	}
	cfg.Debugf("tablelab: %s in %s", what, dir)
	s.closers = append(s.closers, func() {
		if err := db.Close(); err != nil {
			cfg.Logf("tablelab: closing the store of %s: %v", what, err)
		}
	})
	return db.Store, nil
}

// routine are the formats of the stores' log lines that report work done
// as it should be: they go to Debugf, and every other line (a snapshot
// that failed, a log cut short after a crash) to Logf.
var routine = map[string]bool{
	"persist: restoring %s":                  true,
	"durable: restored %d entities in %d ms": true,
	"persist: %d of %d entities read back from the files, %d MiB held in memory": true,
	"durable: snapshot of %d entities in %d ms":                                  true,
}

func (s *Server) storeLogf(format string, args ...any) {
	if routine[format] {
		s.cfg.Debugf(format, args...)
		return
	}
	s.cfg.Logf(format, args...)
}

// makeDir creates dir, the data directory root or a directory under it,
// with every missing directory between, and makes each new entry
// durable: the log inside dir syncs its own files, but not the
// directories that hold them. root itself is made as the log makes its
// directory, without a sync, as it always was.
func makeDir(root, dir string) error {
	if dir == filepath.Clean(root) {
		return os.MkdirAll(dir, 0o755)
	}
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if err := makeDir(root, parent); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return err
	}
	return osfile.SyncDir(parent)
}

// stagedSweep is how often the Blob service looks for uncommitted blocks
// past their lifetime: the service's rule is a week, so an hour is early
// enough and costs nothing.
const stagedSweep = time.Hour

// discardStaged discards, every period, the uncommitted blocks no commit
// took within blob.StagedLifetime, as the service does, so an abandoned
// upload does not hold its data forever. The returned func stops it and
// waits for a sweep under way.
func discardStaged(svc *blob.Service, period time.Duration, logf func(string, ...any)) func() {
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
					logf("tablelab: discarding week-old uncommitted blocks: %v", err)
				case n > 0:
					logf("tablelab: discarded the uncommitted blocks of %d blobs, staged over a week ago", n)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
	}
}
