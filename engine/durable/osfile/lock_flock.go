//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package osfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f without waiting; closing f releases it.
func Lock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("%w: %s", ErrLocked, f.Name())
		default:
			return fmt.Errorf("osfile: locking %s: %w", f.Name(), err)
		}
	}
}
