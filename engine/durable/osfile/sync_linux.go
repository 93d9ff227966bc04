package osfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// SyncData makes f's data and size durable with fdatasync(2).
func SyncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return fmt.Errorf("osfile: fdatasync %s: %w", f.Name(), err)
		}
	}
}
