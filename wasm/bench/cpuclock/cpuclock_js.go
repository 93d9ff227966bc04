//go:build js

package cpuclock

import (
	"syscall/js"
	"time"
)

// Now is the CPU time the process has used, from Node's
// process.cpuUsage(): on a machine shared with other work, wall time
// counts the others' turns too.
func Now() time.Duration {
	u := js.Global().Get("process").Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
