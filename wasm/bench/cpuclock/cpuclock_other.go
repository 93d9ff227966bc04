//go:build !unix && !js

package cpuclock

import "time"

// Now falls back to the wall clock where the process's CPU time is
// not at hand; only differences of it are used.
func Now() time.Duration { return time.Duration(time.Now().UnixNano()) }
