//go:build js && wasm

package promise

import (
	"syscall/js"
	"testing"
)

func TestAwait(t *testing.T) {
	p := js.Global().Get("Promise")
	if v, err := Await(p.Call("resolve", 42)); err != nil || v.Int() != 42 {
		t.Fatalf("resolved: %v %v", v, err)
	}
	// Settled later, by a timer: Await waits while the event loop runs.
	later := p.New(js.FuncOf(func(_ js.Value, args []js.Value) any {
		js.Global().Call("setTimeout", args[0], 10, "late")
		return nil
	}))
	if v, err := Await(later); err != nil || v.String() != "late" {
		t.Fatalf("settled by a timer: %v %v", v, err)
	}
	for reason, want := range map[string]string{"an Error": "boom", "a string": "plain", "a number": "7"} {
		var r js.Value
		switch reason {
		case "an Error":
			r = js.Global().Get("Error").New("boom")
		case "a string":
			r = js.ValueOf("plain")
		default:
			r = js.ValueOf(7)
		}
		if _, err := Await(p.Call("reject", r)); err == nil || err.Error() != want {
			t.Errorf("rejected with %s: %v, want %q", reason, err, want)
		}
	}
}

func TestArg(t *testing.T) {
	args := []js.Value{js.ValueOf(1)}
	if Arg(args, 0).Int() != 1 || !Arg(args, 1).IsUndefined() || !Arg(nil, 0).IsUndefined() {
		t.Fatal("Arg")
	}
}
