//go:build !js

package persist

import (
	"io"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/durable/wal"
)

// medium is the durable.Medium of a directory: its wal.Log. When the store
// reads entities back from the files, every Place it is given lies in a
// file that files holds open; otherwise every Place is the zero Place.
type medium struct {
	log   *wal.Log
	files *files // nil when entities stay in memory
}

// place opens the file at lies in, so that the store may point into it.
func (m *medium) place(at wal.Pos) (engine.Place, error) {
	if m.files == nil {
		return engine.Place{}, nil
	}
	if err := m.files.add(at.File); err != nil {
		return engine.Place{}, err
	}
	return engine.Place{File: at.File, Off: at.Off}, nil
}

// Replay implements durable.Medium.
func (m *medium) Replay(load func(io.Reader, engine.Place) error, apply func([]byte, engine.Place) error) error {
	return m.log.Replay(func(r io.Reader, at wal.Pos) error {
		p, err := m.place(at)
		if err != nil {
			return err
		}
		return load(r, p)
	}, func(rec []byte, at wal.Pos) error {
		p, err := m.place(at)
		if err != nil {
			return err
		}
		return apply(rec, p)
	})
}

// Append implements durable.Medium.
func (m *medium) Append(rec []byte) engine.Waiter { return m.log.Append(rec) }

// BeginSnapshot implements durable.Medium.
func (m *medium) BeginSnapshot() (durable.Snapshot, error) {
	// The log keeps a failure to begin and reports it from WriteSnapshot.
	return &snapshot{m: m, point: m.log.BeginSnapshot()}, nil
}

// Sizes implements durable.Medium.
func (m *medium) Sizes() durable.Sizes {
	st := m.log.Stats()
	return durable.Sizes{LogBytes: st.LogBytes, SnapshotBytes: st.SnapshotBytes}
}

// Close implements durable.Medium.
func (m *medium) Close() error {
	err := m.log.Close()
	if m.files != nil {
		m.files.close()
	}
	return err
}

// snapshot is a snapshot begun at a point of the log.
type snapshot struct {
	m     *medium
	point *wal.SnapshotPoint
}

// Write implements durable.Snapshot. The snapshot's file is open for the
// store to read from when Write returns.
func (s *snapshot) Write(fill func(io.Writer, engine.Place) error) error {
	var at wal.Pos
	err := s.m.log.WriteSnapshot(s.point, func(w io.Writer, first wal.Pos) error {
		at = first
		if s.m.files == nil {
			return fill(w, engine.Place{})
		}
		return fill(w, engine.Place{File: first.File, Off: first.Off})
	})
	if err != nil {
		return err
	}
	// Open only now: the snapshot has its name once it is complete.
	_, err = s.m.place(at)
	return err
}
