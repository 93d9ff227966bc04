//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"syscall/js"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/wasm/promise"
)

// indexedDB is a durable.Medium over the IndexedDB functions worker.js
// puts on globalThis.tablelabIDB, each returning a Promise:
//
//	load(name)               → {snapshot: Uint8Array|null, records: [Uint8Array], seq}
//	append(name, seq, bytes) → once the record's transaction has committed
//	compact(name, bytes, upto)
//	clear(name)
//
// The JavaScript side keeps the IndexedDB work: one transaction per call,
// so a record (a whole batch) is stored whole or not at all, and
// transactions commit in the order they were begun, which is the order
// of the records. This side numbers the records, moves bytes and waits.
type indexedDB struct {
	js   js.Value
	name string
	durable.Ledger

	mu     sync.Mutex
	closed bool
	last   func() error // the wait of the last record appended
}

func (m *indexedDB) Replay(load func(io.Reader, engine.Place) error, apply func([]byte, engine.Place) error) error {
	v, err := promise.Await(m.js.Call("load", m.name))
	if err != nil {
		return err
	}
	var snapBytes, logBytes int64
	if snap := v.Get("snapshot"); snap.Truthy() {
		b, err := bytesOf(snap)
		if err != nil {
			return err
		}
		snapBytes = int64(len(b))
		if err := load(bytes.NewReader(b), engine.Place{}); err != nil {
			return err
		}
	}
	recs := v.Get("records")
	for i, n := 0, recs.Length(); i < n; i++ {
		rec, err := bytesOf(recs.Index(i))
		if err != nil {
			return err
		}
		logBytes += int64(len(rec))
		if err := apply(rec, engine.Place{}); err != nil {
			return err
		}
	}
	m.Restored(snapBytes, logBytes, uint64(v.Get("seq").Float()))
	return nil
}

type waitFunc func() error

func (w waitFunc) Wait() error { return w() }

func (m *indexedDB) Append(rec []byte) engine.Waiter {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return waitFunc(func() error { return errors.New("IndexedDB: append after close") })
	}
	var p js.Value
	if err := m.Ledger.Append(len(rec), func(seq uint64) error {
		p = m.js.Call("append", m.name, float64(seq), jsBytes(rec))
		return nil
	}); err != nil {
		return waitFunc(func() error { return err })
	}
	var once sync.Once
	wait := func() error {
		once.Do(func() {
			if _, err := promise.Await(p); err != nil {
				m.Fail(err)
			}
		})
		// A later record is not durable once an earlier one failed:
		// the restore stops at the first gap.
		return m.Err()
	}
	m.last = wait
	return waitFunc(wait)
}

func (m *indexedDB) BeginSnapshot() (durable.Snapshot, error) {
	return m.Ledger.BeginSnapshot(func(snap []byte, upto uint64) error {
		// The compaction's transaction begins after every append's
		// before it, so it never drops a record it does not hold.
		_, err := promise.Await(m.js.Call("compact", m.name, jsBytes(snap), float64(upto)))
		return err
	})
}

// Close waits for the records appended so far: for the last, whose
// transaction commits after all the others.
func (m *indexedDB) Close() error {
	m.mu.Lock()
	m.closed = true
	last := m.last
	m.mu.Unlock()
	if last == nil {
		return nil
	}
	return last()
}

// Clear implements stores.Medium.
func (m *indexedDB) Clear() error {
	_, err := promise.Await(m.js.Call("clear", m.name))
	return err
}

// bytesOf copies a Uint8Array into Go memory. Anything else is an
// error: CopyBytesToGo would panic, and a panic ends the runtime.
func bytesOf(v js.Value) ([]byte, error) {
	if !v.InstanceOf(js.Global().Get("Uint8Array")) {
		return nil, errors.New("IndexedDB holds a value that is not a Uint8Array")
	}
	b := make([]byte, v.Length())
	js.CopyBytesToGo(b, v)
	return b, nil
}

// jsBytes copies b into a new Uint8Array.
func jsBytes(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}
