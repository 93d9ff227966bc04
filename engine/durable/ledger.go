package durable

import (
	"bytes"
	"io"
	"sync"

	"github.com/tablelab/tablelab/engine"
)

// A Ledger is the bookkeeping of a Medium whose log and snapshot live in
// a store that numbers records for it (IndexedDB in the browser, a
// Durable Object's SQLite in the Worker): the number of the last record,
// the bytes of the log since the snapshot and of the snapshot, and the
// first failure, after which every append and snapshot fails, so that a
// restore never skips a record. A medium embeds one, for its Sizes, and
// writes the bytes through its Append and BeginSnapshot. Its methods are
// safe for concurrent use; the zero Ledger is empty.
type Ledger struct {
	mu        sync.Mutex
	seq       uint64
	logBytes  int64
	snapBytes int64
	failed    error
}

// Restored records what a replay found: the snapshot's size, the
// records after it, their size, and the number of the last one.
func (l *Ledger) Restored(snapBytes, logBytes int64, seq uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snapBytes, l.logBytes, l.seq = snapBytes, logBytes, seq
}

// Append numbers a record of n bytes and calls write with its number,
// under the ledger's lock, so that records are written in the order
// they are numbered. write's error is the ledger's failure from then on;
// after a failure write is not called and the failure is returned.
func (l *Ledger) Append(n int, write func(seq uint64) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return l.failed
	}
	l.seq++
	if err := write(l.seq); err != nil {
		l.failed = err
		return err
	}
	l.logBytes += int64(n)
	return nil
}

// Fail makes err the ledger's failure, unless it has one, and returns
// the failure: a medium that learns of a write's outcome later (an
// IndexedDB transaction) reports it here.
func (l *Ledger) Fail(err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed == nil {
		l.failed = err
	}
	return l.failed
}

// Err returns the ledger's failure, or nil.
func (l *Ledger) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}

// BeginSnapshot implements Medium's BeginSnapshot for a medium that
// stores a snapshot whole: the Snapshot it returns fills a buffer and
// hands it to write with the number of the last record it holds; write
// stores it and drops the records up to that one. It returns the
// ledger's failure instead, if it has one.
func (l *Ledger) BeginSnapshot(write func(snapshot []byte, upto uint64) error) (Snapshot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return nil, l.failed
	}
	return &ledgerSnapshot{l: l, write: write, upto: l.seq, covered: l.logBytes}, nil
}

// ledgerSnapshot is a snapshot of the records up to upto, which were
// covered bytes of the log.
type ledgerSnapshot struct {
	l       *Ledger
	write   func([]byte, uint64) error
	upto    uint64
	covered int64
}

func (s *ledgerSnapshot) Write(fill func(io.Writer, engine.Place) error) error {
	var buf bytes.Buffer
	if err := fill(&buf, engine.Place{}); err != nil {
		return err
	}
	if err := s.write(buf.Bytes(), s.upto); err != nil {
		return err
	}
	s.l.mu.Lock()
	defer s.l.mu.Unlock()
	// The records appended since the snapshot began stay in the log.
	s.l.logBytes -= s.covered
	s.l.snapBytes = int64(buf.Len())
	return nil
}

// Sizes implements Medium's Sizes.
func (l *Ledger) Sizes() Sizes {
	l.mu.Lock()
	defer l.mu.Unlock()
	return Sizes{LogBytes: l.logBytes, SnapshotBytes: l.snapBytes}
}
