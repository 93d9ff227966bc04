//go:build !unix && !js

package main

import "time"

// cpuTime falls back to the wall clock where the process's CPU time is
// not at hand; only differences of it are used.
func cpuTime() time.Duration { return time.Duration(time.Now().UnixNano()) }
