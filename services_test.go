//go:build !js

package main

import (
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/blob"
)

// The server sweeps uncommitted blocks past the service's week, as the
// service does, so an abandoned upload does not keep its data forever.
func TestServerDiscardsWeekOldStagedBlocks(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	store := engine.New(engine.Options{Now: clock, OpenKeys: true})
	svc, err := blob.New(store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer("uploads", nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.PutBlock("uploads", "video.bin", "YmxvY2stMDE=", strings.NewReader("part one"), 8, nil); err != nil {
		t.Fatal(err)
	}
	staged := func() int {
		bl, err := svc.GetBlockList("uploads", "video.bin", true, true, nil)
		if err != nil {
			return 0 // no stage left: the blob does not exist
		}
		return len(bl.Uncommitted)
	}
	stop := discardStaged(svc, 5*time.Millisecond, log.New(io.Discard, "", 0))
	defer stop()
	time.Sleep(50 * time.Millisecond)
	if staged() != 1 {
		t.Fatal("a block staged moments ago was discarded")
	}
	mu.Lock()
	now = now.Add(blob.StagedLifetime + time.Hour)
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for staged() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a block staged over a week ago is still there")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
