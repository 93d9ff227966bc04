// Package persist makes an engine.Store durable on disk with engine/wal:
// every committed mutation is logged and fsynced (with group commit)
// before it is acknowledged, and the log is compacted into snapshots in
// the background, without stopping writes, whenever it has grown past the
// size of the live data — so the directory stays within about twice the
// live data.
//
// The files are also where the entities live. Once a write is durable, a
// settler tells the store where in the log its entities lie, and the store
// drops them from memory, keeping their keys; a snapshot moves them to
// itself. The heap holds keys, and the page cache the data.
package persist

import (
	"io"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
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
}

// DB is a durable store.
type DB struct {
	Store *engine.Store
	log   *wal.Log
	files *files // nil when entities stay in memory
	hold  int64
	logf  func(string, ...any)
	min   int64

	compactMu sync.Mutex // one snapshot at a time
	stop      chan struct{}
	done      sync.WaitGroup
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
	db := &DB{log: l, logf: logf, min: opts.MinCompactBytes, hold: opts.HoldBytes, stop: make(chan struct{})}
	if db.hold == 0 {
		db.hold = DefaultHoldBytes
	}
	var values engine.Values
	if !opts.KeepInMemory {
		db.files = newFiles(l)
		values = db.files
	}
	db.Store = engine.New(engine.Options{Now: opts.Now, Journal: journal{l}, Values: values})
	start := time.Now()
	if err := l.Replay(func(r io.Reader, at wal.Pos) error {
		p, err := db.place(at)
		if err != nil {
			return err
		}
		return db.Store.Load(r, p)
	}, func(rec []byte, at wal.Pos) error {
		p, err := db.place(at)
		if err != nil {
			return err
		}
		return db.Store.Replay(rec, p)
	}); err != nil {
		db.closeFiles()
		l.Close()
		return nil, err
	}
	if db.files != nil && db.Store.DataBytes() <= db.hold {
		// Small enough to hold: back into memory. The settler takes over
		// if the store outgrows the hold.
		if err := db.Store.Unsettle(); err != nil {
			db.closeFiles()
			l.Close()
			return nil, err
		}
	}
	logf("persist: restored %d entities from %s in %s", db.Store.Len(), dir, time.Since(start).Round(time.Millisecond))
	if db.min <= 0 {
		db.min = 8 << 20
	}
	every := opts.CheckEvery
	if every <= 0 {
		every = 250 * time.Millisecond
	}
	db.every(every, db.compact)
	if db.files != nil {
		settle := opts.SettleEvery
		if settle <= 0 {
			settle = 50 * time.Millisecond
		}
		db.every(settle, db.settler())
	}
	return db, nil
}

// DefaultHoldBytes is the size of data a store holds in memory before it
// reads entities back from its files.
const DefaultHoldBytes = 32 << 20

// place opens the file at lies in, so that the store may point into it.
func (db *DB) place(at wal.Pos) (engine.Place, error) {
	if db.files == nil {
		return engine.Place{}, nil
	}
	if err := db.files.add(at.File); err != nil {
		return engine.Place{}, err
	}
	return engine.Place{File: at.File, Off: at.Off}, nil
}

func (db *DB) closeFiles() {
	if db.files != nil {
		db.files.close()
	}
}

// every runs fn every period on its own goroutine until Close.
func (db *DB) every(period time.Duration, fn func()) {
	db.done.Add(1)
	go func() {
		defer db.done.Done()
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-db.stop:
				return
			case <-t.C:
				fn()
			}
		}
	}()
}

// settler returns a step that follows the durable end of the log and
// settles what was written there, so that memory holds a write's
// entities only until it is durable (and a little longer).
func (db *DB) settler() func() {
	at := db.log.Durable() // replay settled everything before
	over := db.Store.DataBytes() > db.hold
	return func() {
		end := db.log.Durable()
		if end.File != at.File {
			// A snapshot began a new segment. The one before is in the
			// snapshot, which settles its entities when it is done.
			at = wal.Pos{File: end.File}
		}
		data := db.Store.DataBytes()
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
			_ = db.Store.Settle(func(func([]byte, engine.Place) error) error { return nil })
			return
		}
		p, err := db.place(at)
		if err == nil {
			err = db.Store.Settle(func(settle func([]byte, engine.Place) error) error {
				return db.log.ReadRecords(at.File, at.Off, end.Off, func(rec []byte, off int64) error {
					return settle(rec, engine.Place{File: p.File, Off: off})
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

// compact takes a snapshot when the log has outgrown the live data.
func (db *DB) compact() {
	st := db.log.Stats()
	if st.LogBytes >= db.min && st.LogBytes >= st.SnapshotBytes {
		if err := db.Snapshot(); err != nil {
			db.logf("persist: snapshot failed: %v", err)
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
	defer cp.Close()
	start := time.Now()
	var at wal.Pos
	err := db.log.WriteSnapshot(point, func(w io.Writer, pos wal.Pos) error {
		at = pos
		_, err := cp.WriteTo(w)
		return err
	})
	if err != nil {
		return err
	}
	if db.files != nil {
		// Move the entities to the snapshot, then let go of the files it
		// replaced (the log has deleted them; the handles kept them).
		p, err := db.place(at)
		if err != nil {
			return err
		}
		db.Store.SettleCheckpoint(cp, p, db.Store.DataBytes() <= db.hold)
		db.files.retire(wal.FileNumber(at.File))
	}
	db.logf("persist: snapshot of %d entities in %s", cp.Len(), time.Since(start).Round(time.Millisecond))
	return nil
}

// Close stops compaction, flushes the log and releases the directory.
func (db *DB) Close() error {
	close(db.stop)
	db.done.Wait()
	err := db.log.Close()
	db.closeFiles()
	return err
}
