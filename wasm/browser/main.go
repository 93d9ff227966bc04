//go:build js && wasm

// Command browser is the table engine built for a Web Worker
// (GOOS=js GOARCH=wasm): the same protocol core as the local server,
// reached through functions on globalThis.tablelab instead of sockets.
//
// Every function returns a Promise and does its work on a goroutine of its
// own: blocking inside a JavaScript callback would deadlock the runtime,
// which has one thread.
//
//	tablelab.serve(store, request)  → response   raw HTTP/1.1 text each way
//	tablelab.reset(store)           → undefined  the store emptied
//	tablelab.export(store)          → JSON text  (engine/dump's format)
//	tablelab.import(store, text)    → undefined
//	tablelab.sas(store)             → an account SAS query string
//
// A store is named by the page. The one named "playground" is kept in
// IndexedDB through globalThis.tablelabIDB, which worker.js provides; any
// other name is a fresh store in memory, so each docs example runs alone.
package main

import (
	"syscall/js"

	"github.com/tablelab/tablelab/wasm/stores"
)

// playground is the store kept in IndexedDB.
const playground = "playground"

func main() {
	opts := stores.Options{Persistent: playground}
	if idb := js.Global().Get("tablelabIDB"); idb.Type() == js.TypeObject {
		opts.Medium = &indexedDB{js: idb, name: playground}
	}
	set := stores.New(opts)
	api := js.Global().Get("Object").New()
	export := func(name string, fn func(args []js.Value) (js.Value, error)) {
		api.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any {
			return promise(func() (js.Value, error) { return fn(args) })
		}))
	}
	export("serve", func(args []js.Value) (js.Value, error) {
		return js.ValueOf(set.Serve(stringArg(args, 0), stringArg(args, 1))), nil
	})
	export("reset", func(args []js.Value) (js.Value, error) {
		return js.Undefined(), set.Reset(stringArg(args, 0))
	})
	export("export", func(args []js.Value) (js.Value, error) {
		text, err := set.Export(stringArg(args, 0))
		return js.ValueOf(text), err
	})
	export("import", func(args []js.Value) (js.Value, error) {
		return js.Undefined(), set.Import(stringArg(args, 0), stringArg(args, 1))
	})
	export("sas", func([]js.Value) (js.Value, error) {
		return js.ValueOf(stores.SAS()), nil
	})
	js.Global().Set("tablelab", api)
	if started := js.Global().Get("tablelabStarted"); started.Type() == js.TypeFunction {
		started.Invoke()
	}
	select {}
}

// stringArg returns args[i] as a string, or "" when it is missing or not
// a string.
func stringArg(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

// promise returns a Promise settled by run, which runs on a goroutine of
// its own so that it may wait for other promises.
func promise(run func() (js.Value, error)) js.Value {
	var executor js.Func
	executor = js.FuncOf(func(_ js.Value, args []js.Value) any {
		resolve, reject := args[0], args[1]
		executor.Release()
		go func() {
			v, err := run()
			if err != nil {
				reject.Invoke(js.Global().Get("Error").New(err.Error()))
				return
			}
			resolve.Invoke(v)
		}()
		return nil
	})
	return js.Global().Get("Promise").New(executor)
}

// await waits for p to settle. It must not be called from a JavaScript
// callback, only from a goroutine.
func await(p js.Value) (js.Value, error) {
	type outcome struct {
		v   js.Value
		err error
	}
	done := make(chan outcome, 1)
	var onResolve, onReject js.Func
	onResolve = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- outcome{v: arg0(args)}
		return nil
	})
	onReject = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- outcome{err: jsError(arg0(args))}
		return nil
	})
	p.Call("then", onResolve, onReject)
	o := <-done
	onResolve.Release()
	onReject.Release()
	return o.v, o.err
}

func arg0(args []js.Value) js.Value {
	if len(args) == 0 {
		return js.Undefined()
	}
	return args[0]
}

// jsError turns a rejection reason into an error.
type jsError js.Value

func (e jsError) Error() string {
	v := js.Value(e)
	if v.Type() == js.TypeObject {
		if m := v.Get("message"); m.Type() == js.TypeString {
			return m.String()
		}
	}
	return js.Global().Get("String").Invoke(v).String()
}
