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

// stores are the models the services keep their data in, each over a
// store of its own; nil for a service not run.
type stores struct {
	queues   *queue.Service
	blobs    *blob.Service
	settings *accountsettings.Store
}

// A storeKind is where a service keeps its store and what keys it needs.
type storeKind struct {
	name string // as the log says it
	// dir is the store's directory under the data directory: the
	// tables' is the data directory itself, as it was before the other
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
// What it opened is closed by closeStores, on failure too.
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
	if cfg.TableAddr != "" {
		tables, err := s.openStore(tableStore)
		if err != nil {
			return err
		}
		s.tables = tables
	}
	if cfg.BlobAddr != "" {
		store, err := s.openStore(blobStore)
		if err != nil {
			return err
		}
		svc, err := blob.New(store)
		if err != nil {
			return err
		}
		s.state.blobs = svc
		s.closers = append(s.closers, discardStaged(svc, stagedSweep, cfg.Logf))
		s.services = append(s.services, &Service{Name: "Blob", Addr: cfg.BlobAddr,
			Core:  blobapi.NewServer(svc, blobapi.Options{Verifier: verifier()}),
			Front: apifasthttp.Config{Stream: true}})
	}
	if cfg.QueueAddr != "" {
		store, err := s.openStore(queueStore)
		if err != nil {
			return err
		}
		svc, err := queue.New(store)
		if err != nil {
			return err
		}
		s.state.queues = svc
		s.services = append(s.services, &Service{Name: "Queue", Addr: cfg.QueueAddr,
			Core: queueapi.NewServer(svc, queueapi.Options{Verifier: verifier()})})
	}
	if cfg.TableAddr != "" {
		store, err := s.openStore(settingsStore)
		if err != nil {
			return err
		}
		s.state.settings = accountsettings.New(store)
		s.services = append(s.services, &Service{Name: "Table", Addr: cfg.TableAddr,
			Core: api.NewServer(s.tables, api.Options{Verifier: verifier(), Settings: s.state.settings, Cosmos: cfg.Cosmos, Paging: cfg.Paging})})
	}
	return nil
}

// openStore opens the store of kind k the config asks for; closeStores
// closes it.
func (s *Server) openStore(k storeKind) (*engine.Store, error) {
	cfg := s.cfg
	// Cosmos DB for Table's table names differ by case.
	exact := cfg.Cosmos && k == tableStore
	if cfg.Memory {
		return engine.New(engine.Options{OpenKeys: k.openKeys, CaseSensitiveTableNames: exact}), nil
	}
	dir := cfg.DataDir
	if k.dir != "" {
		dir = filepath.Join(dir, k.dir)
		if err := makeDir(dir); err != nil {
			return nil, err
		}
	}
	db, err := persist.Open(dir, persist.Options{Logf: s.storeLogf, NoSync: cfg.NoSync, MinCompactBytes: cfg.CompactBytes, KeepInMemory: cfg.KeepInMemory, HoldBytes: cfg.HoldBytes, OpenKeys: k.openKeys, CaseSensitiveTableNames: exact})
	if err != nil {
		return nil, err
	}
	cfg.Debugf("tablelab: %s in %s", k.name, dir)
	s.closers = append(s.closers, func() {
		if err := db.Close(); err != nil {
			cfg.Logf("tablelab: closing the store of %s: %v", k.name, err)
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
