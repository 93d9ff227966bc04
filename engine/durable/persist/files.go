//go:build !js

package persist

import (
	"fmt"
	"os"
	"sync"

	"github.com/tablelab/tablelab/engine/durable/wal"
)

// files is the store's engine.Values: read-only handles on the log's
// segments and snapshots, which hold every entity the store has settled.
//
// A snapshot replaces older files, and the log deletes them, but a handle
// opened before keeps a deleted file readable. A handle is closed only
// once no reader that might still point into it is left: readers pin the
// generation they start in, and a file retired in generation g closes
// when no pin of g or earlier remains.
type files struct {
	log *wal.Log

	mu      sync.RWMutex
	open    map[uint32]*os.File
	gen     uint64
	pins    map[uint64]int // generation → readers
	retired []retiredFile
	floor   uint64 // files numbered below it are retired
}

type retiredFile struct {
	gen uint64
	id  uint32
}

func newFiles(log *wal.Log) *files {
	return &files{log: log, open: make(map[uint32]*os.File), pins: make(map[uint64]int)}
}

// add opens a file, if it is not open yet, before the store points into
// it.
func (fs *files) add(id uint32) error {
	fs.mu.RLock()
	_, ok := fs.open[id]
	fs.mu.RUnlock()
	if ok {
		return nil
	}
	f, err := fs.log.OpenFile(id)
	if err != nil {
		return err
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if wal.FileNumber(id) < fs.floor {
		// Retired while it was being opened: nothing may point into it.
		f.Close()
		return fmt.Errorf("persist: file %d has been replaced", id)
	}
	if _, ok := fs.open[id]; ok {
		f.Close()
		return nil
	}
	fs.open[id] = f
	return nil
}

// ReadAt implements engine.Values.
func (fs *files) ReadAt(p []byte, id uint32, off int64) (int, error) {
	fs.mu.RLock()
	f := fs.open[id]
	fs.mu.RUnlock()
	if f == nil {
		return 0, fmt.Errorf("persist: file %d is not open", id)
	}
	return f.ReadAt(p, off)
}

// Pin implements engine.Values.
func (fs *files) Pin() func() {
	fs.mu.Lock()
	g := fs.gen
	fs.pins[g]++
	fs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			if fs.pins[g]--; fs.pins[g] == 0 {
				delete(fs.pins, g)
			}
			fs.closeUnpinned()
		})
	}
}

// retire closes the files numbered below n as soon as no reader pinned
// before can still read them. The store must no longer point into them.
func (fs *files) retire(n uint64) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.floor = max(fs.floor, n)
	for id := range fs.open {
		if wal.FileNumber(id) < n && !fs.isRetired(id) {
			fs.retired = append(fs.retired, retiredFile{gen: fs.gen, id: id})
		}
	}
	fs.gen++
	fs.closeUnpinned()
}

// closeUnpinned closes the retired files no pin can reach. Callers hold
// mu.
func (fs *files) closeUnpinned() {
	oldest := fs.gen
	for g := range fs.pins {
		oldest = min(oldest, g)
	}
	kept := fs.retired[:0]
	for _, r := range fs.retired {
		if r.gen < oldest {
			fs.open[r.id].Close()
			delete(fs.open, r.id)
		} else {
			kept = append(kept, r)
		}
	}
	fs.retired = kept
}

func (fs *files) isRetired(id uint32) bool {
	for _, r := range fs.retired {
		if r.id == id {
			return true
		}
	}
	return false
}

// close closes every file.
func (fs *files) close() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for id, f := range fs.open {
		f.Close()
		delete(fs.open, id)
	}
	fs.retired = nil
}
