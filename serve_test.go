package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/durable/persist"
)

// TestTightenHeap checks that the server's memory limit follows the live
// heap (an eighth over it, plus the fixed allowances) and is lifted when
// the server stops.
func TestTightenHeap(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	keep := make([][]byte, 0, 64)
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20)) // 64 MiB that stays live
	}
	runtime.GC()
	stop := tightenHeap()
	var limit int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if limit = debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
			break
		}
	}
	stop()
	runtime.KeepAlive(keep)
	low, high := int64(64<<20)+64<<20+nonHeapAllowance, int64(96<<20)+96<<20/8+64<<20+nonHeapAllowance
	if limit < low || limit > high {
		t.Fatalf("limit %d MiB with 64 MiB live, want %d–%d MiB", limit>>20, low>>20, high>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("limit %d after stop, want none", got)
	}
}

// TestHoldFlag checks how -hold-mib reaches the store: MiB as bytes, and
// zero as "hold nothing", not as persist's "use the default".
func TestHoldFlag(t *testing.T) {
	cfg, err := parseFlags([]string{"-hold-mib", "8"})
	if err != nil {
		t.Fatal(err)
	}
	if got := holdBytes(cfg.holdMiB); got != 8<<20 {
		t.Fatalf("-hold-mib 8: %d bytes", got)
	}
	cfg, _ = parseFlags(nil)
	if got := holdBytes(cfg.holdMiB); got != persist.DefaultHoldBytes {
		t.Fatalf("default hold: %d bytes", got)
	}
	if got := holdBytes(0); got >= 0 {
		t.Fatalf("-hold-mib 0: %d", got)
	}
}
