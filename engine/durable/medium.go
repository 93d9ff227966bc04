package durable

import (
	"io"

	"github.com/tablelab/tablelab/engine"
)

// Medium is where a durable store keeps its state: a snapshot and the log
// of records appended after it. The store's records and snapshots are
// opaque to it. Files implement it on disk (engine/durable/persist), and
// durabletest in memory; a browser's IndexedDB or a Durable Object's
// storage may implement it too.
//
// Its methods are called from one store, Append and BeginSnapshot under
// the store's write lock, so a medium needs no ordering of its own beyond
// the order of those calls.
type Medium interface {
	// Replay restores what the medium holds: it calls load with the
	// newest snapshot, if there is one, then apply with each record
	// appended after that snapshot, in order. A record is only valid
	// during its call. at is where the snapshot's or the record's first
	// byte lies, for a store that reads settled entities back from the
	// medium; a medium the store cannot read from passes the zero Place.
	// Replay is called once, before any Append.
	Replay(load func(snapshot io.Reader, at engine.Place) error, apply func(rec []byte, at engine.Place) error) error

	// Append adds a record to the log and returns without waiting for it
	// to be durable; the Waiter blocks until it is, or says why it never
	// will be. A medium may make many records durable at once (the files
	// share one fsync among the writers waiting), but in the order they
	// were appended: once one has failed, every later one fails too, so
	// that a restore never skips a record. A medium whose writes complete
	// asynchronously (IndexedDB) completes the Waiter from its callback.
	// rec is only valid during the call, as engine.Journal says.
	Append(rec []byte) engine.Waiter

	// BeginSnapshot marks the end of the log for a snapshot: the records
	// appended before belong to it, and those appended after stay in the
	// log that follows it. It may wait for the records appended before to
	// be durable.
	BeginSnapshot() (Snapshot, error)

	// Sizes reports how large the log and the snapshot it follows are.
	Sizes() Sizes

	// Close makes what was appended durable, as far as it can, and
	// releases the medium.
	Close() error
}

// Snapshot is a snapshot begun at a point of a Medium's log.
type Snapshot interface {
	// Write writes the snapshot with fill, which is told where its first
	// byte will lie (the zero Place on a medium the store cannot read
	// from). Once the snapshot is durable, Write drops the snapshot and
	// records it replaces. A crash before then restores what was there
	// before.
	Write(fill func(w io.Writer, at engine.Place) error) error
}

// Sizes are the sizes, in bytes, of what a Medium holds.
type Sizes struct {
	// LogBytes is the size of the records appended since the snapshot.
	LogBytes int64
	// SnapshotBytes is the size of the snapshot.
	SnapshotBytes int64
}
