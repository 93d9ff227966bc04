//go:build js && wasm

// Command browser is the storage engine built for a Web Worker
// (GOOS=js GOARCH=wasm): the same protocol cores as the local server
// (Table, Queue and Blob), reached through a function call instead of a
// socket. worker.js wraps it into globalThis.tablelab, whose methods
// return Promises:
//
//	tablelab.serve(store, request)   → response   raw HTTP/1.1 each way: a
//	                                              string, or a Uint8Array
//	                                              for a binary body
//	tablelab.reset(store)            → undefined  all three services emptied
//	tablelab.export(store)           → JSON text  (engine/dump's format)
//	tablelab.import(store, text)     → undefined  the text's tables merged in:
//	                                              entities with the same keys
//	                                              replaced
//	tablelab.replace(store, text)    → undefined  every table of the store
//	                                              deleted and the text's put
//	                                              in their place, as one write
//	                                              (queues and blobs stay)
//	tablelab.clone(store, target)    → undefined  target becomes a store in
//	                                              memory holding a copy of
//	                                              store's tables, queues and
//	                                              blobs (never "playground")
//	tablelab.advance(store, seconds) → undefined  the store's clock moved on
//	tablelab.hold(store)             → undefined  the store's clock stands
//	                                              still (only advance moves it)
//	tablelab.release(store)          → undefined  …and runs again
//	tablelab.sas()                   → an account SAS query string
//
// A request goes to the service its Host header names: 127.0.0.1:10000
// Blob, :10001 Queue, :10002 Table, the development storage's endpoints.
//
// import and replace read and check the whole text before they change
// anything: a text with anything wrong leaves the store as it was, and
// the Promise rejects with where and what, such as "line 14, column 2:
// table Orders, entity 12 (PartitionKey 'x', RowKey 'y'): its RowKey
// holds '/', which a key may not hold …". A replace of "playground" is
// kept whole or not at all, however the page ends. A clone costs next to
// nothing whatever the store's size: the copy shares the original's memory
// until either is written. Cloning into a name that exists replaces that
// store; the copy's clock is the set's.
//
// A request to a store in memory goes straight through the module's
// exports (direct.go). Everything else, and the playground's requests,
// which wait for IndexedDB, take the general way: JavaScript calls
// tablelabStart(id, "op\nstore\ndata") (or, for a request held as bytes,
// tablelabStart(id, "serve\nstore\n", bytes)), which returns at once; the work runs on another goroutine (blocking inside a
// JavaScript callback would deadlock the runtime, which has one thread)
// and ends with a call of tablelabSettle(id, result, error). A
// Promise made on the Go side would cost a js.Func and half a dozen
// js.Values per call, each with a finalizer, and their bookkeeping made a
// call several times slower than the work behind it.
//
// A store is named by the page. The one named "playground" is kept in
// IndexedDB through globalThis.tablelabIDB, which worker.js provides, a
// log of its own per service; any other name is a fresh store in memory,
// so each docs example runs alone. A name that begins with "cosmos:"
// (stores.CosmosPrefix) is a store whose Table service answers as Azure
// Cosmos DB for Table differs from Table storage.
package main

import (
	"errors"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/tablelab/tablelab/wasm/promise"
	"github.com/tablelab/tablelab/wasm/stores"
)

// playground is the store kept in IndexedDB.
const playground = "playground"

func main() {
	opts := stores.Options{Persistent: playground}
	if idb := js.Global().Get("tablelabIDB"); idb.Type() == js.TypeObject {
		opts.OpenMedium = func(svc stores.Service) (stores.Medium, error) {
			return &indexedDB{js: idb, name: mediumName(svc)}, nil
		}
	}
	set := stores.New(opts)
	direct.set = set
	settle := js.Global().Get("tablelabSettle")
	ops := map[string]func(store, data string) (any, error){
		"serve": func(store, data string) (any, error) { return set.Serve(store, data), nil },
		"reset": func(store, _ string) (any, error) { return nil, set.Reset(store) },
		"export": func(store, _ string) (any, error) {
			text, err := set.Export(store)
			return text, err
		},
		"import":  func(store, data string) (any, error) { return nil, set.Import(store, data) },
		"replace": func(store, data string) (any, error) { return nil, set.Replace(store, data) },
		"clone":   func(store, data string) (any, error) { return nil, set.Clone(store, data) },
		"advance": func(store, data string) (any, error) { return nil, advance(set, store, data) },
		"hold":    func(store, _ string) (any, error) { return nil, set.Hold(store) },
		"release": func(store, _ string) (any, error) { return nil, set.Release(store) },
		"sas":     func(string, string) (any, error) { return stores.SAS(), nil },
	}
	// The calls run on a few long-lived goroutines rather than one new
	// goroutine each: serving a request grows a goroutine's stack several
	// times, and growing a stack in wasm walks every frame, which made a
	// point read half again as slow. More than one, so that a call
	// waiting for IndexedDB does not hold up the others.
	calls := make(chan func(), 1024)
	for range 4 {
		go func() {
			for call := range calls {
				call()
			}
		}()
	}
	js.Global().Set("tablelabStart", js.FuncOf(func(_ js.Value, args []js.Value) any {
		// One string, "op\nstore\ndata", crosses instead of three: each
		// crossing is an encoding and a reference on each side.
		id := promise.Arg(args, 0)
		op, rest, _ := strings.Cut(stringArg(args, 1), "\n")
		store, data, _ := strings.Cut(rest, "\n")
		var call func()
		if msg := promise.Arg(args, 2); op == "serve" && msg.Type() == js.TypeObject {
			// A request held as bytes is answered as bytes: its body
			// (a blob's) need not be text.
			req, err := bytesOf(msg)
			call = func() {
				if err != nil {
					settle.Invoke(id, nil, err.Error())
					return
				}
				settle.Invoke(id, jsBytes(set.ServeBytes(store, req)), nil)
			}
		} else {
			call = func() {
				fn, ok := ops[op]
				if !ok {
					settle.Invoke(id, nil, "unknown op "+op)
					return
				}
				result, err := fn(store, data)
				if err != nil {
					settle.Invoke(id, nil, err.Error())
					return
				}
				settle.Invoke(id, result, nil)
			}
		}
		select {
		case calls <- call:
		default:
			// Never block inside a callback: a full queue gets a
			// goroutine of its own.
			go call()
		}
		return nil
	}))
	if started := js.Global().Get("tablelabStarted"); started.Type() == js.TypeFunction {
		started.Invoke()
	}
	select {}
}

// mediumName is the IndexedDB name of a service's log in the playground's
// store. The Table service keeps the name it had before the store held
// three services, so a reader's tables survive the upgrade.
func mediumName(svc stores.Service) string {
	if svc == stores.Table {
		return playground
	}
	return playground + "/" + svc.String()
}

// advance moves store's clock on by seconds, a decimal number.
func advance(set *stores.Set, store, seconds string) error {
	f, err := strconv.ParseFloat(seconds, 64)
	// Up to a year: an example waits for a visibility timeout, not an age.
	if err != nil || !(f >= 0 && f <= 366*24*3600) { // NaN too
		return errors.New("advance takes a number of seconds from 0 to a year, not " + strconv.Quote(seconds))
	}
	return set.Advance(store, time.Duration(f*float64(time.Second)))
}

// stringArg returns args[i] as a string, or "" when it is missing or not
// a string.
func stringArg(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}
