package osfile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// SyncData makes f's data durable with fcntl(F_FULLFSYNC), or with
// fsync(2) where the filesystem refuses F_FULLFSYNC.
func SyncData(f *os.File) error {
	// os.File.Sync is F_FULLFSYNC on macOS and itself falls back to fsync
	// on ENOTSUP; some filesystems refuse with EINVAL instead.
	err := f.Sync()
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		for {
			err = syscall.Fsync(int(f.Fd()))
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("osfile: fsync %s: %w", f.Name(), err)
		}
	}
	return err
}
