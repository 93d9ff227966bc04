//go:build unix && !js

package cpuclock

import (
	"syscall"
	"time"
)

// Now is the CPU time the process has used: on a machine shared with
// other work, wall time counts the others' turns too.
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
