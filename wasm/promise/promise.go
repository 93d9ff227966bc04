//go:build js && wasm

// Package promise waits for JavaScript Promises from Go, for the two hosts
// built with GOOS=js: the browser's Web Worker (wasm/browser) and the
// Cloudflare Worker (wasm/worker).
package promise

import (
	"errors"
	"syscall/js"
)

// Await waits for p to settle and returns the value it resolved to, or
// its rejection's reason as an error. It must be called from a goroutine,
// never from a JavaScript callback: the runtime has one thread, and the
// callback that settles p could not run. Both callbacks are released once
// p has settled.
func Await(p js.Value) (js.Value, error) {
	type outcome struct {
		v   js.Value
		err error
	}
	done := make(chan outcome, 1)
	onResolve := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- outcome{v: Arg(args, 0)}
		return nil
	})
	onReject := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- outcome{err: Error(Arg(args, 0))}
		return nil
	})
	p.Call("then", onResolve, onReject)
	o := <-done
	onResolve.Release()
	onReject.Release()
	return o.v, o.err
}

// Arg returns args[i], or undefined when a caller passed fewer.
func Arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// Error turns a rejection's reason into an error: an Error's message, or
// the reason as JavaScript's String() writes it.
func Error(reason js.Value) error {
	if reason.Type() == js.TypeObject {
		if m := reason.Get("message"); m.Type() == js.TypeString {
			return errors.New(m.String())
		}
	}
	return errors.New(js.Global().Get("String").Invoke(reason).String())
}
