//go:build !js

package persist

import (
	"testing"

	"github.com/tablelab/tablelab/engine"
)

// The Queue and Blob services key their entities by names holding '/':
// a durable store asked for OpenKeys takes them, and so does its restore.
func TestOpenKeysSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	const name = "devstoreaccount1/logs/2026/11/23.txt"
	db, err := Open(dir, Options{OpenKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Store.CreateTable("blobs"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Store.Write("blobs", engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: "c/1", RowKey: name}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(dir, Options{OpenKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Store.Get("blobs", "c/1", name)
	if err != nil || got.Entity == nil {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}
	if _, err := db.Store.Write("blobs", engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: "c/1", RowKey: name + "?v=2#x"}}); err != nil {
		t.Fatalf("a restored store keeps OpenKeys: %v", err)
	}
}
