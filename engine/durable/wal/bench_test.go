//go:build !js

package wal

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/durable/osfile"
)

// BenchmarkAppendWaitSequential measures one durable 1 KiB append at a
// time beside the bound of the disk: a bare 1 KiB write + fdatasync, timed
// in the same run. ratio-of-bound is the figure to read (target ≥ 0.8).
func BenchmarkAppendWaitSequential(b *testing.B) {
	dir := b.TempDir()
	rec := make([]byte, 1024)
	f, err := os.Create(filepath.Join(dir, "bare"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l, err := Open(filepath.Join(dir, "log"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if err := l.Replay(func(io.Reader, Pos) error { return nil }, func([]byte, Pos) error { return nil }); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		f.Write(rec)
		osfile.SyncData(f)
	}
	bare := time.Since(start)
	start = time.Now()
	for i := 0; i < b.N; i++ {
		if err := l.Append(rec).Wait(); err != nil {
			b.Fatal(err)
		}
	}
	logged := time.Since(start)
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bound-ns/op")
	b.ReportMetric(float64(logged.Nanoseconds())/float64(b.N), "wal-ns/op")
	b.ReportMetric(float64(bare)/float64(logged), "ratio-of-bound")
}

// BenchmarkAppendWaitParallel has 16 writers share fsyncs.
func BenchmarkAppendWaitParallel(b *testing.B) {
	dir := b.TempDir()
	l, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	if err := l.Replay(func(io.Reader, Pos) error { return nil }, func([]byte, Pos) error { return nil }); err != nil {
		b.Fatal(err)
	}
	rec := make([]byte, 1024)
	var mu sync.Mutex
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			mu.Lock()
			c := l.Append(rec)
			mu.Unlock()
			if err := c.Wait(); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkReplay replays a million 100-byte records.
func BenchmarkReplay(b *testing.B) {
	dir := b.TempDir()
	l, err := Open(dir, Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	l.Replay(func(io.Reader, Pos) error { return nil }, func([]byte, Pos) error { return nil })
	rec := make([]byte, 100)
	const n = 1_000_000
	var last *Commit
	for i := 0; i < n; i++ {
		last = l.Append(rec)
	}
	last.Wait()
	l.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := Open(dir, Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		if err := l.Replay(func(io.Reader, Pos) error { return nil }, func([]byte, Pos) error { count++; return nil }); err != nil {
			b.Fatal(err)
		}
		l.Close()
		if count != n {
			b.Fatalf("%d records", count)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
}
