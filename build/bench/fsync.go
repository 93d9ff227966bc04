package bench

import (
	"os"
	"path/filepath"
	"time"

	"github.com/tablelab/tablelab/engine/durable/osfile"
)

// measureFsync times a 1 KiB append + data sync on this disk: the bound
// on sequential durable writes.
func measureFsync(dir string) time.Duration {
	f, err := os.Create(filepath.Join(dir, "fsync-probe"))
	if err != nil {
		return 0
	}
	defer f.Close()
	buf := make([]byte, 1024)
	const n = 500
	start := time.Now()
	for i := 0; i < n; i++ {
		_, _ = f.Write(buf)
		_ = osfile.SyncData(f)
	}
	return time.Since(start) / n
}
