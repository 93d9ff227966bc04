//go:build !windows

package osfile

import "os"

// SyncDir makes durable the changes to the entries of the directory at
// path: the files created, renamed or removed in it.
func SyncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return err
	}
	// fsync, not fdatasync: a directory's entries are what changed. On
	// macOS os.File.Sync is F_FULLFSYNC, falling back to fsync.
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
