//go:build !linux && !darwin

package osfile

import "os"

// SyncData makes f's data durable with os.File.Sync: FlushFileBuffers on
// Windows, fsync(2) on the other Unix systems.
func SyncData(f *os.File) error { return f.Sync() }
