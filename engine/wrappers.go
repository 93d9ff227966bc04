package engine

import "io"

// These wrappers keep engine/durable building while it moves to the
// Recovery handle; they go once it has.

// Deprecated: use Recovery.Replay.
func (s *Store) Replay(rec []byte, at Place) error { return (&Recovery{s}).Replay(rec, at) }

// Deprecated: use Recovery.Load.
func (s *Store) Load(r io.Reader, at Place) error { return (&Recovery{s}).Load(r, at) }

// Deprecated: use Recovery.Checkpoint.
func (s *Store) Checkpoint(begin func()) *Checkpoint { return (&Recovery{s}).Checkpoint(begin) }

// Deprecated: use Recovery.Settle.
func (s *Store) Settle(read func(settle func(rec []byte, at Place) error) error) error {
	return (&Recovery{s}).Settle(read)
}

// Deprecated: use Recovery.SettleCheckpoint.
func (s *Store) SettleCheckpoint(c *Checkpoint, at Place, hot bool) {
	(&Recovery{s}).SettleCheckpoint(c, at, hot)
}

// Deprecated: use Recovery.Unsettle.
func (s *Store) Unsettle() error { return (&Recovery{s}).Unsettle() }

// Deprecated: use Recovery.DataBytes.
func (s *Store) DataBytes() int64 { return (&Recovery{s}).DataBytes() }

// Deprecated: use Recovery.Residency.
func (s *Store) Residency() Residency { return (&Recovery{s}).Residency() }
