//go:build js

package main

import (
	"syscall/js"
	"time"
)

// cpuTime is the CPU time the process has used, from Node's
// process.cpuUsage(): on a machine shared with other work, wall time
// counts the others' turns too.
func cpuTime() time.Duration {
	u := js.Global().Get("process").Call("cpuUsage")
	return time.Duration(u.Get("user").Float()+u.Get("system").Float()) * time.Microsecond
}
