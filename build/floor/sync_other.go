//go:build !linux

package floor

import "os"

// DataSync makes f's data durable; off Linux, with a full fsync.
func DataSync(f *os.File) error { return f.Sync() }
