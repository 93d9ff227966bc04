//go:build !js

// Command worker is tablelab as a Cloudflare Worker: the Table, Queue and
// Blob protocol cores behind syumai/workers, in one Go runtime per isolate
// kept alive between requests, with the data in Durable Objects (or, for
// demos, in the isolate's memory). It runs only as WebAssembly under a
// Workers runtime: `go run ./build worker` builds the deployable folder.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "worker runs under a Workers runtime only: go run ./build worker builds it")
	os.Exit(2)
}
