//go:build !js

// Files, locks and fsync: not in the browser, where a store keeps its log
// in IndexedDB instead.

// Package persist makes an engine.Store durable in a directory: the
// policy of engine/durable (every committed mutation logged and synced
// before it is acknowledged, snapshots that compact the log in the
// background) on the files of engine/durable/wal.
//
// The files are also where the entities live. Once a write is durable, a
// settler tells the store where in the log its entities lie, and the store
// drops them from memory, keeping their keys; a snapshot moves them to
// itself. The heap holds keys, and the page cache the data.
package persist

import (
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/durable/wal"
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
	// KeepInMemory holds every entity in memory as well as on disk, as
	// the store did before it read entities back from its files.
	KeepInMemory bool
	// HoldBytes is how large the store's entities may grow, all
	// together, before they are read back from the files rather than
	// held in memory: a small store scans faster from memory and costs
	// little of it. Zero means DefaultHoldBytes; a negative value holds
	// none.
	HoldBytes int64
	// SettleEvery is how often the settler hands durable writes to the
	// store to drop from memory; zero means every 50 ms.
	SettleEvery time.Duration
	// OpenKeys makes a store whose keys may hold any text (see
	// engine.Options.OpenKeys): the Queue and Blob services' stores.
	OpenKeys bool
	// CaseSensitiveTableNames makes table names differ by case (see
	// engine.Options.CaseSensitiveTableNames).
	CaseSensitiveTableNames bool
}

// DefaultHoldBytes is the size of data a store holds in memory before it
// reads entities back from its files.
const DefaultHoldBytes = 32 << 20

// DB is a durable store.
type DB struct {
	Store *engine.Store
	db    *durable.DB
	rec   *engine.Recovery
	log   *wal.Log
	files *files // nil when entities stay in memory
	hold  int64
	logf  func(string, ...any)
}

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
	db := &DB{log: l, hold: opts.HoldBytes, logf: logf}
	if db.hold == 0 {
		db.hold = DefaultHoldBytes
	}
	dopts := durable.Options{
		Logf:                    logf,
		Now:                     opts.Now,
		MinCompactBytes:         opts.MinCompactBytes,
		CheckEvery:              opts.CheckEvery,
		HoldBytes:               db.hold,
		OpenKeys:                opts.OpenKeys,
		CaseSensitiveTableNames: opts.CaseSensitiveTableNames,
	}
	if !opts.KeepInMemory {
		db.files = newFiles(l)
		dopts.Values = db.files
		// The store has moved its entities to the snapshot: the files it
		// replaced close once no reader is left in them.
		dopts.Snapshotted = func(at engine.Place) { db.files.retire(wal.FileNumber(at.File)) }
	}
	logf("persist: restoring %s", dir)
	db.db, err = durable.Open(&medium{log: l, files: db.files}, dopts)
	if err != nil {
		return nil, err
	}
	db.Store, db.rec = db.db.Store, db.db.Recovery()
	if db.files != nil {
		// Say how the restored store sits in memory: what a user sizing
		// -hold-mib wants to know, and the one thing a restart decides.
		r := db.rec.Residency()
		logf("persist: %d of %d entities read back from the files, %d MiB held in memory", r.Settled, r.Entities, r.HeldBytes>>20)
		settle := opts.SettleEvery
		if settle <= 0 {
			settle = 50 * time.Millisecond
		}
		// The settler starts from the end of the replay, before any write.
		db.db.Every(settle, db.settler())
	}
	return db, nil
}

// settler returns a step that follows the durable end of the log and
// settles what was written there, so that memory holds a write's
// entities only until it is durable (and a little longer).
func (db *DB) settler() func() {
	at := db.log.Durable() // replay settled everything before
	over := db.rec.DataBytes() > db.hold
	return func() {
		end := db.log.Durable()
		if end.File != at.File {
			// A snapshot began a new segment. The one before is in the
			// snapshot, which settles its entities when it is done.
			at = wal.Pos{File: end.File}
		}
		data := db.rec.DataBytes()
		if data <= db.hold {
			// Small enough to hold: settle nothing, and start from here
			// once the store outgrows the hold. Only well under it does
			// the store count as small again, so that a store at the
			// hold does not snapshot over and over.
			over = over && data > db.hold/2
			return
		}
		if !over {
			// The store has just outgrown the hold. What it held came
			// from earlier segments too, which the settler has passed;
			// a snapshot places every entity, and settles them.
			over = true
			if err := db.Snapshot(); err != nil {
				db.logf("persist: snapshot failed: %v", err)
			}
			return
		}
		if end.Off <= at.Off {
			// Nothing new: let the store tidy up after what it settled.
			_ = db.rec.Settle(func(func([]byte, engine.Place) error) error { return nil })
			return
		}
		err := db.files.add(at.File)
		if err == nil {
			err = db.rec.Settle(func(settle func([]byte, engine.Place) error) error {
				return db.log.ReadRecords(at.File, at.Off, end.Off, func(rec []byte, off int64) error {
					return settle(rec, engine.Place{File: at.File, Off: off})
				})
			})
		}
		if err != nil {
			if now := db.log.Durable(); now.File != at.File {
				// A snapshot replaced the segment while it was read; it
				// settles what was left, and the new segment is read
				// from its start.
				at = wal.Pos{File: now.File}
				return
			}
			// Leave these records' entities in memory; the next
			// snapshot settles them.
			db.logf("persist: settling %d from %d: %v", at.File, at.Off, err)
		}
		at.Off = end.Off
	}
}

// Snapshot writes the store's state to a new snapshot and drops the log it
// covers. Writes go on while it runs.
func (db *DB) Snapshot() error { return db.db.Snapshot() }

// Close stops the settler and compaction, flushes the log and releases
// the directory. Later calls return what the first returned.
func (db *DB) Close() error {
	// The policy stops its compactor and the settler before it closes
	// the files.
	return db.db.Close()
}
