// Package durabletest provides a durable.Medium held in memory, for tests
// of what is built on one: it can crash, keeping only what it had made
// durable, and it can fail, as a disk does.
package durabletest

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
)

// Medium is a durable.Medium in memory. A record is durable once a Waiter
// of it, or of a record appended after it, has returned: records awaited
// together share that moment, as they share an fsync on disk.
type Medium struct {
	mu        sync.Mutex
	snapshot  []byte   // nil: none
	log       [][]byte // the records appended since the snapshot
	durable   int      // how many of log are durable
	logBytes  int64
	snapshots int   // snapshots written whole
	dropped   int   // records ever appended that a snapshot replaced
	err       error // sticky: the failure every later append meets
	replayed  bool
	closed    bool
}

// NewMedium returns an empty medium.
func NewMedium() *Medium { return &Medium{} }

// Crash returns a new medium holding what m had made durable, as a
// restart after a crash finds it: the snapshot last written whole and the
// durable records after it. Records not yet durable are lost, and so is a
// snapshot still being written. m itself goes on as before.
func (m *Medium) Crash() *Medium {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crashAfter(m.durable)
}

// CrashAfter is Crash keeping only the first n durable records after the
// snapshot, as a crash that tore the log there would.
func (m *Medium) CrashAfter(n int) *Medium {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.crashAfter(min(n, m.durable))
}

func (m *Medium) crashAfter(n int) *Medium {
	c := &Medium{snapshot: m.snapshot, log: make([][]byte, n), durable: n}
	copy(c.log, m.log[:n])
	for _, rec := range c.log {
		c.logBytes += int64(len(rec))
	}
	return c
}

// Fail makes the medium fail from now on, with err: every record not yet
// durable, and every one appended later, fails to become durable, and so
// does every snapshot.
func (m *Medium) Fail(err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

// Records returns the number of records appended since the snapshot,
// durable or not.
func (m *Medium) Records() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.log)
}

// Snapshots returns the number of snapshots written whole since NewMedium
// (or Crash, which starts from zero).
func (m *Medium) Snapshots() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snapshots
}

// Replay implements durable.Medium. Every Place is the zero Place: a store
// does not read entities back from memory.
func (m *Medium) Replay(load func(io.Reader, engine.Place) error, apply func([]byte, engine.Place) error) error {
	m.mu.Lock()
	if m.replayed {
		m.mu.Unlock()
		return errors.New("durabletest: Replay called twice")
	}
	m.replayed = true
	snapshot, log := m.snapshot, m.log[:m.durable]
	m.mu.Unlock()
	if snapshot != nil {
		if err := load(bytes.NewReader(snapshot), engine.Place{}); err != nil {
			return err
		}
	}
	for _, rec := range log {
		// The callee may not keep the record; a copy catches one that
		// changes it.
		if err := apply(bytes.Clone(rec), engine.Place{}); err != nil {
			return err
		}
	}
	return nil
}

// Append implements durable.Medium.
func (m *Medium) Append(rec []byte) engine.Waiter {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err == nil && (m.closed || !m.replayed) {
		m.err = errors.New("durabletest: append to a medium that is closed or not replayed")
	}
	m.log = append(m.log, bytes.Clone(rec))
	m.logBytes += int64(len(rec))
	return &waiter{m: m, seq: m.dropped + len(m.log)}
}

// waiter is a record on its way to being durable: the seq-th ever
// appended.
type waiter struct {
	m   *Medium
	seq int
}

// Wait implements engine.Waiter.
func (w *waiter) Wait() error {
	m := w.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if w.seq <= m.dropped+m.durable {
		return nil
	}
	if m.err != nil {
		return m.err
	}
	m.durable = w.seq - m.dropped
	return nil
}

// BeginSnapshot implements durable.Medium. Like the files, it makes the
// records appended so far durable first.
func (m *Medium) BeginSnapshot() (durable.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return nil, m.err
	}
	m.durable = len(m.log)
	return &snapshot{m: m, upto: m.dropped + len(m.log)}, nil
}

// snapshot is a snapshot of the first upto records ever appended.
type snapshot struct {
	m    *Medium
	upto int
}

// Write implements durable.Snapshot.
func (s *snapshot) Write(fill func(io.Writer, engine.Place) error) error {
	var buf bytes.Buffer
	if err := fill(&buf, engine.Place{}); err != nil {
		return err
	}
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.err != nil:
		return m.err
	case s.upto < m.dropped:
		return errors.New("durabletest: a later snapshot was written first")
	}
	covers := s.upto - m.dropped
	m.snapshot = buf.Bytes()
	m.log = append([][]byte(nil), m.log[covers:]...)
	m.durable -= covers
	m.dropped = s.upto
	m.logBytes = 0
	for _, rec := range m.log {
		m.logBytes += int64(len(rec))
	}
	m.snapshots++
	return nil
}

// Sizes implements durable.Medium.
func (m *Medium) Sizes() durable.Sizes {
	m.mu.Lock()
	defer m.mu.Unlock()
	return durable.Sizes{LogBytes: m.logBytes, SnapshotBytes: int64(len(m.snapshot))}
}

// Close implements durable.Medium: what was appended becomes durable,
// unless the medium has failed.
func (m *Medium) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.err != nil {
		return m.err
	}
	m.durable = len(m.log)
	return nil
}
