//go:build js && wasm

package main

import (
	"unsafe"

	"github.com/tablelab/tablelab/wasm/stores"
)

// direct is the state of the direct bridge: WebAssembly exports are plain
// functions, with no receiver to hold it.
var direct struct {
	set   *stores.Set
	buf   []byte // the request on the way in, the response on the way out
	store string // the store the last request named
}

// tablelabBuffer returns the address of a buffer of at least n bytes in
// the module's memory, for JavaScript to write a request into or read a
// response from. The buffer only grows, and only in a call that asks for
// more than it holds: the address holds until then.
//
//go:wasmexport tablelabBuffer
func tablelabBuffer(n int32) uint32 {
	if int(n) > len(direct.buf) {
		direct.buf = make([]byte, max(int(n), 2*len(direct.buf), 64<<10))
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(direct.buf))))
}

// tablelabServeDirect serves the request in the buffer — the raw HTTP/1.1
// request (reqLen bytes), then the store's name (storeLen bytes) — and
// leaves the response at the buffer's start, returning its length. A
// response longer than the buffer grows it, as tablelabBuffer does: it is
// written there, not copied. It is a plain call: no JavaScript values,
// references or events, which cost a call through syscall/js several
// times a point read's own work. It must not block, so only the stores in
// memory take this way; the playground waits for IndexedDB and goes
// through tablelabStart.
//
//go:wasmexport tablelabServeDirect
func tablelabServeDirect(storeLen, reqLen int32) int32 {
	if storeLen < 0 || reqLen < 0 || int(storeLen)+int(reqLen) > len(direct.buf) {
		return -1
	}
	msg := direct.buf[:reqLen]
	// Requests come to one store after another, so the name is kept
	// rather than made again for each.
	if name := direct.buf[reqLen : reqLen+storeLen]; string(name) != direct.store {
		direct.store = string(name)
	}
	if direct.store == playground {
		return -1
	}
	// The next call overwrites the buffer, which no service keeps any of:
	// the message is served where it lies, body and all.
	resp := direct.set.AppendServeBytes(direct.buf[:0], direct.store, msg)
	if cap(resp) > len(direct.buf) {
		direct.buf = resp[:cap(resp)] // the response outgrew the buffer
	}
	return int32(len(resp))
}
