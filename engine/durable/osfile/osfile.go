// Package osfile holds the operating-system promises a durable store rests
// on, each behind one function: Lock, so that one process at a time owns a
// directory, and SyncData and SyncDir, so that what was written survives
// a power cut. Everything OS-specific in tablelab's storage goes through it.
//
// # What each system promises
//
// Lock takes an exclusive lock on an open file, without waiting: it fails
// with ErrLocked while another process, or another open handle in this
// process, holds it. Closing the file releases the lock, and so does the
// death of the process, however it dies (kill -9 included).
//   - Linux, macOS and the BSDs: flock(2) with LOCK_EX|LOCK_NB. The lock
//     belongs to the open file description, is advisory (it binds only
//     those who ask for it) and is not reliable over NFS.
//   - Windows: LockFileEx with LOCKFILE_EXCLUSIVE_LOCK and
//     LOCKFILE_FAIL_IMMEDIATELY on the file's first byte. The lock is
//     mandatory: other handles cannot read or write that byte.
//   - Elsewhere (js/wasm, Plan 9, Solaris, AIX): no lock; Lock returns an
//     error that wraps errors.ErrUnsupported.
//
// SyncData returns once the file's data, and the metadata needed to read
// it back (its size), are on stable storage; on error, nothing is
// promised about what reached it.
//   - Linux: fdatasync(2), which skips metadata a read does not need
//     (times), and so costs one journal commit less than fsync when the
//     file's size did not change.
//   - macOS: fcntl(F_FULLFSYNC), because fsync(2) there only hands the
//     data to the drive, whose cache may lose it at a power cut. A
//     filesystem that refuses F_FULLFSYNC (SMB, some FUSE mounts) gets
//     fsync(2) instead, as SQLite does: the best it offers.
//   - Windows: FlushFileBuffers, which flushes the data and the metadata
//     and asks the drive to empty its cache.
//   - Other Unix systems: fsync(2).
//   - js/wasm: whatever the host's file system does with fsync; the
//     browser has no files, and stores there use other media.
//
// SyncDir makes a directory's entries durable (files created, renamed or
// removed), so that a rename is not lost while what it replaced is gone.
// Unix systems fsync(2) the directory (F_FULLFSYNC on macOS, falling
// back to fsync); Windows has no way to flush one short of the whole
// volume, and SyncDir does nothing there.
package osfile

import "errors"

// ErrLocked is returned, wrapped, by Lock when someone else holds the lock.
var ErrLocked = errors.New("osfile: the file is locked by another process or handle")
