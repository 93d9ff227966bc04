// Package persist makes an engine.Store durable on disk with engine/wal:
// every committed mutation is logged and fsynced (with group commit)
// before it is acknowledged, and the log is compacted into snapshots in
// the background, without stopping writes, whenever it has grown past the
// size of the live data — so the directory stays within about twice the
// live data.
package persist

import (
	"io"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/wal"
)

// Options configure Open.
type Options struct {
	// Logf reports recovery and compaction; nil discards.
	Logf func(format string, args ...any)
	// Now is the store's clock; nil is time.Now.
	Now func() time.Time
	// MinCompactBytes is the log size below which no snapshot is taken;
	// zero means 8 MiB.
	MinCompactBytes int64
	// CheckEvery is how often the compactor looks at the log; zero means
	// a quarter of a second.
	CheckEvery time.Duration
	// NoSync skips fsync. Only for tests of things other than durability.
	NoSync bool
}

// DB is a durable store.
type DB struct {
	Store *engine.Store
	log   *wal.Log
	logf  func(string, ...any)
	min   int64

	compactMu sync.Mutex // one snapshot at a time
	stop      chan struct{}
	done      chan struct{}
}

// journal feeds the store's committed mutations to the log.
type journal struct{ log *wal.Log }

// Append implements engine.Journal.
func (j journal) Append(rec []byte) engine.Waiter { return j.log.Append(rec) }

// Open opens (or creates) the store in dir, restoring its state from the
// newest snapshot and the log after it. Only one process may hold dir.
func Open(dir string, opts Options) (*DB, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	l, err := wal.Open(dir, wal.Options{Logf: logf, NoSync: opts.NoSync})
	if err != nil {
		return nil, err
	}
	store := engine.New(engine.Options{Now: opts.Now, Journal: journal{l}})
	start := time.Now()
	if err := l.Replay(store.Load, store.Replay); err != nil {
		l.Close()
		return nil, err
	}
	logf("persist: restored %d entities from %s in %s", store.Len(), dir, time.Since(start).Round(time.Millisecond))
	db := &DB{Store: store, log: l, logf: logf, min: opts.MinCompactBytes, stop: make(chan struct{}), done: make(chan struct{})}
	if db.min <= 0 {
		db.min = 8 << 20
	}
	every := opts.CheckEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	go db.compactor(every)
	return db, nil
}

func (db *DB) compactor(every time.Duration) {
	defer close(db.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
			st := db.log.Stats()
			if st.LogBytes >= db.min && st.LogBytes >= st.SnapshotBytes {
				if err := db.Snapshot(); err != nil {
					db.logf("persist: snapshot failed: %v", err)
				}
			}
		}
	}
}

// Snapshot writes the store's state to a new snapshot and drops the log it
// covers. Writes go on while it runs.
func (db *DB) Snapshot() error {
	db.compactMu.Lock()
	defer db.compactMu.Unlock()
	var point *wal.SnapshotPoint
	cp := db.Store.Checkpoint(func() { point = db.log.BeginSnapshot() })
	start := time.Now()
	err := db.log.WriteSnapshot(point, func(w io.Writer) error {
		_, err := cp.WriteTo(w)
		return err
	})
	if err == nil {
		db.logf("persist: snapshot of %d entities in %s", cp.Len(), time.Since(start).Round(time.Millisecond))
	}
	return err
}

// Close stops compaction, flushes the log and releases the directory.
func (db *DB) Close() error {
	close(db.stop)
	<-db.done
	return db.log.Close()
}
