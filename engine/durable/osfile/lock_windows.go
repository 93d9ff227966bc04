package osfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

const (
	lockfileFailImmediately = 0x1
	lockfileExclusiveLock   = 0x2
	// errorLockViolation is what LockFileEx fails with when another
	// handle holds the range.
	errorLockViolation syscall.Errno = 33
)

// Lock takes an exclusive lock on f's first byte without waiting; closing
// f releases it.
func Lock(f *os.File) error {
	// kernel32 is one of the system's known DLLs, always loaded from the
	// system directory; the syscall package has no LockFileEx of its own.
	proc := syscall.NewLazyDLL("kernel32.dll").NewProc("LockFileEx")
	if err := proc.Find(); err != nil {
		return fmt.Errorf("osfile: locking %s: %w", f.Name(), err)
	}
	var ol syscall.Overlapped
	r, _, err := proc.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r != 0 {
		return nil
	}
	if errors.Is(err, errorLockViolation) {
		return fmt.Errorf("%w: %s", ErrLocked, f.Name())
	}
	return fmt.Errorf("osfile: locking %s: %w", f.Name(), err)
}
