// Command build is tablelab's build and test driver.
//
//	go run ./build test    install what the tests need and run every tier
//	go run ./build bench   tablelab and Azurite side by side under one load
//	go run ./build floor-server  the benchmark's do-nothing server (see floor.go)
//
// The test command installs the npm packages pinned by the lock files,
// runs the Go tests (unit, fuzz seed corpora, real-Go-SDK conformance,
// crash recovery), then starts the real server and runs the real-JS-SDK
// walk against it, and ends with one line: "N passed, N failed".
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go run ./build test")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "test":
		err = runTests(os.Args[2:])
	case "bench":
		err = runBench(os.Args[2:])
	case "floor-server":
		err = runFloorServer(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}
