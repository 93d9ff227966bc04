//go:build js && wasm

package main

import (
	"bytes"
	"unsafe"

	"github.com/tablelab/tablelab/wasm/stores"
)

// direct is the state of the direct bridge: WebAssembly exports are plain
// functions, with no receiver to hold it.
var direct struct {
	set *stores.Set
	buf []byte // the request on the way in, the response on the way out
}

// tablelabBuffer returns the address of a buffer of at least n bytes in
// the module's memory, for JavaScript to write a request into or read a
// response from. The address holds until the next call that may grow it.
//
//go:wasmexport tablelabBuffer
func tablelabBuffer(n int32) uint32 {
	if int(n) > cap(direct.buf) {
		direct.buf = make([]byte, max(int(n), 2*cap(direct.buf), 64<<10))
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(direct.buf[:cap(direct.buf)]))))
}

// tablelabServeDirect serves the request in the buffer — the store's
// name (storeLen bytes), then the raw HTTP/1.1 request (reqLen bytes) —
// and leaves the response in the buffer, returning its length. It is a
// plain call: no JavaScript values, references or events, which cost a
// call through syscall/js several times a point read's own work. It must
// not block, so only the stores in memory take this way; the playground
// waits for IndexedDB and goes through tablelabStart.
//
//go:wasmexport tablelabServeDirect
func tablelabServeDirect(storeLen, reqLen int32) int32 {
	if storeLen < 0 || reqLen < 0 || int(storeLen)+int(reqLen) > cap(direct.buf) {
		return -1
	}
	b := direct.buf[:cap(direct.buf)]
	store := string(b[:storeLen])
	if store == playground {
		return -1
	}
	// A copy: the buffer is overwritten by the next call, and a service
	// may keep what it was sent (a blob's bytes).
	resp := direct.set.ServeBytes(store, bytes.Clone(b[storeLen:storeLen+reqLen]))
	tablelabBuffer(int32(len(resp)))
	return int32(copy(direct.buf[:cap(direct.buf)], resp))
}
