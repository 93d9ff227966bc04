package main

import "github.com/tablelab/tablelab/engine/durable"

// storage is what one Durable Object keeps its state in: the logs and
// snapshots of its stores, and a few keyed values of its own (whether a
// partition is registered or dropped, a directory's tables and
// partitions). On Cloudflare it is the object's storage.sql
// (sqlmedium_js.go); the tests keep it in memory.
//
// Every method is synchronous: writes made without yielding to the event
// loop commit together, as one implicit transaction of the object.
type storage interface {
	// medium is the log and snapshot set called name ("" for the
	// object's main store).
	medium(name string) (durable.Medium, error)
	get(key string) (string, bool, error)
	put(key, value string) error
	del(key string) error
	// scan returns up to limit pairs whose keys begin with prefix and
	// are at least prefix+from, in key order.
	scan(prefix, from string, limit int) ([]pair, error)
	// wipe removes everything the object holds.
	wipe() error
}

type pair struct{ k, v string }

// prefixEnd is the first string after every string beginning with
// prefix, which must not be empty nor end in 0xff.
func prefixEnd(prefix string) string {
	return prefix[:len(prefix)-1] + string([]byte{prefix[len(prefix)-1] + 1})
}
