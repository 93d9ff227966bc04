//go:build js && wasm

package main

import (
	"errors"
	"syscall/js"

	"github.com/tablelab/tablelab/wasm/stores"
)

// indexedDB is a stores.Medium over the IndexedDB functions worker.js
// puts on globalThis.tablelabIDB, each returning a Promise:
//
//	load(name)               → {snapshot: Uint8Array|null, records: [Uint8Array], seq}
//	append(name, seq, bytes) → once the record's transaction has committed
//	compact(name, bytes, upto)
//	clear(name)
//
// The JavaScript side keeps the IndexedDB work (one transaction per call,
// so a record, a batch's included, is stored whole or not at all); this
// side only moves bytes and waits.
type indexedDB struct {
	js   js.Value
	name string
}

func (m *indexedDB) Load() (stores.State, error) {
	v, err := await(m.js.Call("load", m.name))
	if err != nil {
		return stores.State{}, err
	}
	var st stores.State
	if snap := v.Get("snapshot"); snap.Truthy() {
		if st.Snapshot, err = bytesOf(snap); err != nil {
			return stores.State{}, err
		}
	}
	recs := v.Get("records")
	for i, n := 0, recs.Length(); i < n; i++ {
		rec, err := bytesOf(recs.Index(i))
		if err != nil {
			return stores.State{}, err
		}
		st.Records = append(st.Records, rec)
	}
	st.Seq = uint64(v.Get("seq").Float())
	return st, nil
}

func (m *indexedDB) Append(seq uint64, rec []byte) func() error {
	p := m.js.Call("append", m.name, float64(seq), jsBytes(rec))
	return func() error {
		_, err := await(p)
		return err
	}
}

func (m *indexedDB) Compact(snapshot []byte, upto uint64) error {
	_, err := await(m.js.Call("compact", m.name, jsBytes(snapshot), float64(upto)))
	return err
}

func (m *indexedDB) Clear() error {
	_, err := await(m.js.Call("clear", m.name))
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
