package stores

import (
	"bytes"
	"errors"
	"sync"

	"github.com/tablelab/tablelab/engine"
)

// Medium keeps one store's state where it survives the host: its latest
// snapshot and the journal records appended since, each numbered.
type Medium interface {
	// Load returns what the medium keeps.
	Load() (State, error)
	// Append stores record seq, which follows every record appended
	// before it. It must not block: it starts the write and returns a
	// wait that returns once the record is durable. A record is stored
	// whole or not at all.
	Append(seq uint64, rec []byte) (wait func() error)
	// Compact replaces the snapshot with snapshot, which holds every
	// record up to and including upto, and drops those records, all in
	// one step: a failure leaves the old state.
	Compact(snapshot []byte, upto uint64) error
	// Clear forgets everything, after the writes already started.
	Clear() error
}

// State is what a Medium keeps.
type State struct {
	Snapshot []byte   // nil when there is none
	Records  [][]byte // the records appended after the snapshot, in order
	Seq      uint64   // the number of the last record, or the snapshot's
}

// journal is the engine.Journal of a store kept on a Medium: it numbers
// the store's records, hands them to the medium, and compacts the log
// into a snapshot once it has grown past the last snapshot's size (and
// CompactBytes), which keeps the medium within about twice the live data.
type journal struct {
	m            Medium
	compactBytes int64
	store        *engine.Recovery

	mu         sync.Mutex
	seq        uint64
	logBytes   int64 // bytes appended since the snapshot
	snapBytes  int64
	compacting bool
	compacted  chan struct{} // closed when the running compaction ends
	closed     bool
}

var errClosed = errors.New("the store was reset")

// load reads the medium's state into st, the Recovery handle of an
// empty store whose journal j is.
func (j *journal) load(st *engine.Recovery) error {
	state, err := j.m.Load()
	if err != nil {
		return err
	}
	// Load and Replay do not journal what they apply.
	if err := loadState(st, state); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.store, j.seq = st, state.Seq
	j.snapBytes = int64(len(state.Snapshot))
	for _, r := range state.Records {
		j.logBytes += int64(len(r))
	}
	return nil
}

type waitFunc func() error

func (w waitFunc) Wait() error { return w() }

// Append implements engine.Journal.
func (j *journal) Append(rec []byte) engine.Waiter {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return waitFunc(func() error { return errClosed })
	}
	j.seq++
	seq := j.seq
	j.logBytes += int64(len(rec))
	j.mu.Unlock()
	wait := j.m.Append(seq, rec)
	return waitFunc(func() error {
		if err := wait(); err != nil {
			return err
		}
		j.maybeCompact()
		return nil
	})
}

// maybeCompact starts a compaction in the background when the log has
// outgrown the snapshot.
func (j *journal) maybeCompact() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed || j.compacting || j.store == nil || j.logBytes < max(j.snapBytes, j.compactBytes) {
		return
	}
	j.compacting = true
	j.compacted = make(chan struct{})
	go j.compact()
}

// compact writes a snapshot of the store and has the medium replace the
// log it covers with it.
func (j *journal) compact() {
	var upto uint64
	var covered int64
	// The store calls this with its write lock held, the lock Append is
	// called under: no record slips between the count and the snapshot.
	cp := j.store.Checkpoint(func() {
		j.mu.Lock()
		upto, covered = j.seq, j.logBytes
		j.mu.Unlock()
	})
	var snap bytes.Buffer
	_, err := cp.WriteTo(&snap)
	cp.Close()
	if err == nil {
		err = j.m.Compact(snap.Bytes(), upto)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err == nil {
		j.logBytes -= covered
		j.snapBytes = int64(snap.Len())
	}
	// A failed compaction leaves the log as it was; the next write
	// tries again.
	j.compacting = false
	close(j.compacted)
}

// close detaches the journal: later writes to its store fail.
func (j *journal) close() {
	j.mu.Lock()
	j.closed = true
	j.mu.Unlock()
}
