package floor

import (
	"os"
	"syscall"
)

// DataSync makes f's data durable, as tablelab's log does on Linux.
func DataSync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
