package engine

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// A store behind the Blob service keys blobs by name, and a blob's name
// may hold what a RowKey may not.
func TestOpenKeys(t *testing.T) {
	name := "logs/2026/11?#\\" + strings.Repeat("é", 900)
	for _, open := range []bool{false, true} {
		s := New(Options{OpenKeys: open})
		if err := s.CreateTable("blobs"); err != nil {
			t.Fatal(err)
		}
		_, err := s.Write("blobs", Op{Kind: Insert, Entity: &Entity{PartitionKey: "c/1", RowKey: name}})
		if !open {
			if !svcerr.Is(err, svcerr.OutOfRangeInput) {
				t.Fatalf("service keys: got %v, want OutOfRangeInput", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Get("blobs", "c/1", name)
		if err != nil || got.Entity == nil || got.Entity.RowKey != name {
			t.Fatalf("open keys: read back %+v, %v", got, err)
		}
		if _, err := s.Write("blobs", Op{Kind: Insert, Entity: &Entity{PartitionKey: "c", RowKey: strings.Repeat("x", MaxOpenKeyBytes+1)}}); !svcerr.Is(err, svcerr.PropertyValueTooLarge) {
			t.Fatalf("open keys past the bound: got %v", err)
		}
		if _, err := s.Write("blobs", Op{Kind: Insert, Entity: &Entity{PartitionKey: "c", RowKey: "\xff"}}); !svcerr.Is(err, svcerr.InvalidInput) {
			t.Fatalf("open keys, invalid UTF-8: got %v", err)
		}
	}
}
