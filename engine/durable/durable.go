// Package durable makes an engine.Store durable on a Medium, whatever the
// medium is: files on disk, or another store of bytes.
//
// The policy is the same on every medium:
//   - every committed mutation is one record appended to the log, and the
//     store acknowledges it only once the record is durable; a batch is
//     one record, so it survives a crash whole or not at all;
//   - a restore loads the newest snapshot, then replays the records
//     appended after it, in order;
//   - the log is compacted into a new snapshot in the background, without
//     stopping writes, whenever it has grown past the snapshot (and past a
//     minimum), which keeps the medium within about twice the live data;
//   - once a record fails to become durable, the store refuses every
//     later write, since it could no longer promise to keep it.
//
// A medium the store can read entities back from (engine.Values) lets it
// keep in memory only their keys once they are durable; Options.Values
// and Options.HoldBytes say how.
package durable

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
)

// Options configure Open.
type Options struct {
	// Logf reports restores and snapshots; nil discards.
	Logf func(format string, args ...any)
	// Now is the store's clock; nil is time.Now.
	Now func() time.Time
	// MinCompactBytes is the log size below which no snapshot is taken;
	// zero means 8 MiB.
	MinCompactBytes int64
	// CheckEvery is how often the log's size is checked; zero means a
	// quarter of a second.
	CheckEvery time.Duration

	// Values, when not nil, reads entities back from the medium, where
	// the Places of Replay and Snapshot.Write point.
	Values engine.Values
	// HoldBytes is, with Values, how large the store's entities may be,
	// all together, for a restore or a snapshot to leave them in memory;
	// past it they are read back from the medium. Zero or negative holds
	// none.
	HoldBytes int64
	// Snapshotted, when not nil, is called once a snapshot is durable and
	// the store points into it instead of into what it replaced, with the
	// Place of its first byte.
	Snapshotted func(at engine.Place)
	// OpenKeys makes a store whose keys may hold any text (see
	// engine.Options.OpenKeys): the Queue and Blob services' stores.
	OpenKeys bool
	// CaseSensitiveTableNames makes table names differ by case (see
	// engine.Options.CaseSensitiveTableNames).
	CaseSensitiveTableNames bool
}

// DB is a store kept durable on a medium.
type DB struct {
	// Store is the durable store.
	Store *engine.Store

	rec         *engine.Recovery
	medium      Medium
	values      bool
	hold        int64
	min         int64
	logf        func(string, ...any)
	snapshotted func(engine.Place)

	compactMu sync.Mutex // one snapshot at a time
	stop      chan struct{}
	tickMu    sync.Mutex
	tickers   []*time.Ticker // Every's, which Close wakes
	done      sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Open restores a store from m and keeps it durable there, compacting the
// log in the background until Close. The DB owns m from then on, and
// closes it if the restore fails.
func Open(m Medium, opts Options) (*DB, error) {
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	db := &DB{
		medium:      m,
		values:      opts.Values != nil,
		hold:        opts.HoldBytes,
		min:         opts.MinCompactBytes,
		logf:        logf,
		snapshotted: opts.Snapshotted,
		stop:        make(chan struct{}),
	}
	if db.min <= 0 {
		db.min = 8 << 20
	}
	// The medium is the store's journal: its Append is the journal's.
	db.Store, db.rec = engine.NewDurable(engine.Options{Now: opts.Now, Journal: m, Values: opts.Values, OpenKeys: opts.OpenKeys, CaseSensitiveTableNames: opts.CaseSensitiveTableNames})
	start := time.Now()
	if err := m.Replay(db.rec.Load, db.rec.Replay); err != nil {
		m.Close()
		return nil, err
	}
	if db.values && db.rec.DataBytes() <= db.hold {
		// Small enough to hold: back into memory.
		if err := db.rec.Unsettle(); err != nil {
			m.Close()
			return nil, err
		}
	}
	// Durations are logged as whole milliseconds: a time.Duration passed
	// as an interface would keep its String method, and the formatting
	// behind it, in the browser build.
	logf("durable: restored %d entities in %d ms", db.Store.Len(), time.Since(start).Milliseconds())
	every := opts.CheckEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	db.Every(every, db.compact)
	return db, nil
}

// Every runs fn every period, on a goroutine of its own, until Close: the
// compactor, and what a medium adds to the policy (the files' settler),
// which must stop before the medium closes. The loop receives from its
// ticker alone, and Close wakes it: a select on the ticker and the stop
// channel would link the runtime's select, which nothing else in the
// browser build uses (docs/benchmarks.md).
func (db *DB) Every(period time.Duration, fn func()) {
	t := time.NewTicker(period)
	db.tickMu.Lock()
	db.tickers = append(db.tickers, t)
	db.tickMu.Unlock()
	db.done.Add(1)
	go func() {
		defer db.done.Done()
		defer t.Stop()
		for range t.C {
			if db.closed() {
				return
			}
			fn()
		}
	}()
}

// closed reports whether Close has begun.
func (db *DB) closed() bool {
	select {
	case <-db.stop:
		return true
	default:
		return false
	}
}

// Recovery returns the store's recovery handle, for what a medium adds to
// the policy: reading entities back from it, and settling them there.
func (db *DB) Recovery() *engine.Recovery { return db.rec }

// compact takes a snapshot when the log has outgrown the snapshot.
func (db *DB) compact() {
	s := db.medium.Sizes()
	if s.LogBytes < db.min || s.LogBytes < s.SnapshotBytes {
		return
	}
	if err := db.Snapshot(); err != nil {
		db.logf("durable: snapshot failed: %v", err)
	}
}

// Snapshot writes the store's state to a new snapshot and drops the log it
// covers. Writes go on while it runs.
func (db *DB) Snapshot() error {
	db.compactMu.Lock()
	defer db.compactMu.Unlock()
	if db.closed() {
		return errors.New("durable: snapshot of a closed store")
	}
	var snap Snapshot
	var err error
	cp := db.rec.Checkpoint(func() { snap, err = db.medium.BeginSnapshot() })
	defer cp.Close()
	if err != nil {
		return err
	}
	start := time.Now()
	var at engine.Place
	err = snap.Write(func(w io.Writer, first engine.Place) error {
		at = first
		_, err := cp.WriteTo(w)
		return err
	})
	if err != nil {
		return err
	}
	if db.values {
		// The entities move to the snapshot; the store no longer points
		// into what it replaced.
		db.rec.SettleCheckpoint(cp, at, db.rec.DataBytes() <= db.hold)
	}
	if db.snapshotted != nil {
		db.snapshotted(at)
	}
	db.logf("durable: snapshot of %d entities in %d ms", cp.Len(), time.Since(start).Milliseconds())
	return nil
}

// Close stops compaction and closes the medium, which makes what was
// appended durable first. Later calls return what the first returned.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		close(db.stop)
		db.tickMu.Lock()
		for _, t := range db.tickers {
			t.Reset(time.Nanosecond) // the loop sees stop at its next tick
		}
		db.tickMu.Unlock()
		db.done.Wait()
		// A snapshot under way finishes first; none starts after.
		db.compactMu.Lock()
		defer db.compactMu.Unlock()
		db.closeErr = db.medium.Close()
	})
	return db.closeErr
}
