//go:build !js

package main

import (
	"io"
	"log"
	"path/filepath"
	"testing"
)

// TestCosmosFlag: -cosmos makes the tables' store, in memory or on disk,
// one whose table names differ by case, and leaves the other stores be.
func TestCosmosFlag(t *testing.T) {
	logger := log.New(io.Discard, "", 0)
	for _, args := range [][]string{{"-memory"}, {"-data", filepath.Join(t.TempDir(), "d")}} {
		for _, cosmos := range []bool{false, true} {
			flags := args
			if cosmos {
				flags = append(flags[:len(flags):len(flags)], "-cosmos")
			}
			cfg, err := parseFlags(flags)
			if err != nil {
				t.Fatal(err)
			}
			if !cosmos {
				// Each run gets a data directory of its own.
				cfg.dataDir = filepath.Join(t.TempDir(), "plain")
			}
			for _, k := range []storeKind{tableStore, settingsStore} {
				store, closeStore, err := openStore(cfg, logger, k)
				if err != nil {
					t.Fatal(err)
				}
				if err := store.CreateTable("Orders"); err != nil {
					t.Fatal(err)
				}
				err = store.CreateTable("orders")
				closeStore()
				if want := cosmos && k == tableStore; (err == nil) != want {
					t.Errorf("%v, %s store: a second table differing by case: %v (want it made: %v)", flags, k.name, err, want)
				}
			}
		}
	}
}
