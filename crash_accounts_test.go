//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCrashOtherAccount: an account besides the development account has
// stores of its own, and what they acknowledge survives kill -9 as the
// development account's does (TestCrashRecovery, which loads those). The
// server runs with a second account; clients insert entities into that
// account's table and put blobs into its container until the kill, and
// the restarted server has every acknowledged one, in that account and
// not in the development account.
func TestCrashOtherAccount(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test runs the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	accounts := "other:" + base64.StdEncoding.EncodeToString([]byte("the other account's key"))
	tableHdr := map[string]string{"x-ms-version": "2019-02-02", "Content-Type": "application/json",
		"Accept": "application/json;odata=nometadata", "Prefer": "return-no-content"}
	blobHdr := map[string]string{"x-ms-version": blobVersion, "x-ms-blob-type": "BlockBlob"}
	var mu sync.Mutex
	// What was acknowledged: entities by RowKey, blobs by name with their
	// text; and the first answer that was neither a success nor the kill.
	entities, blobs := map[string]bool{}, map[string]string{}
	var failure string
	verify := func(srv *crashServer, round int) {
		t.Helper()
		table, container := other(srv.base)+"/kept", other(srv.blob)+"/keptc"
		for rk := range entities {
			if code, body, _ := srv.raw("GET", table+"(PartitionKey='p',RowKey='"+rk+"')", nil, tableHdr); code != 200 {
				t.Fatalf("round %d: the acknowledged entity %s: %d %s\n%s", round, rk, code, body, srv.log.String())
			}
		}
		for name, text := range blobs {
			if code, body, _ := srv.raw("GET", container+"/"+name, nil, blobHdr); code != 200 || string(body) != text {
				t.Fatalf("round %d: the acknowledged blob %s: %d %q, want %q\n%s", round, name, code, body, text, srv.log.String())
			}
		}
		// None of it is the development account's.
		if code, _, _ := srv.raw("GET", srv.base+"/kept()", nil, tableHdr); code != 404 {
			t.Errorf("round %d: the development account reads the other's table: %d", round, code)
		}
		if code, _, _ := srv.raw("GET", srv.blob+"/keptc?restype=container", nil, blobHdr); code != 404 {
			t.Errorf("round %d: the development account reads the other's container: %d", round, code)
		}
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	const rounds = 2
	for round := 0; round <= rounds; round++ {
		srv := startCrashServer(t, bin, data, "-accounts", accounts)
		if round == 0 {
			if code, body, _ := srv.raw("POST", other(srv.base)+"/Tables", []byte(`{"TableName":"kept"}`), tableHdr); code != 204 {
				t.Fatalf("create table: %d %s", code, body)
			}
			if code, body, _ := srv.raw("PUT", other(srv.blob)+"/keptc?restype=container", nil, blobHdr); code != 201 {
				t.Fatalf("create container: %d %s", code, body)
			}
		}
		verify(srv, round)
		if round == rounds {
			srv.kill()
			break
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for seq := 0; ; seq++ {
					select {
					case <-stop:
						return
					default:
					}
					key := fmt.Sprintf("r%d-c%d-%d", round, c, seq)
					if c%2 == 0 {
						code, _, _ := srv.raw("POST", other(srv.base)+"/kept", []byte(`{"PartitionKey":"p","RowKey":"`+key+`"}`), tableHdr)
						if code == 0 {
							return
						}
						mu.Lock()
						if code == 204 {
							entities[key] = true
						} else if failure == "" {
							failure = fmt.Sprintf("insert %s: %d", key, code)
						}
						mu.Unlock()
						continue
					}
					text := strings.Repeat(key+" ", 1+seq%50)
					code, _, _ := srv.raw("PUT", other(srv.blob)+"/keptc/"+key, []byte(text), blobHdr)
					if code == 0 {
						return
					}
					mu.Lock()
					if code == 201 {
						blobs[key] = text
					} else if failure == "" {
						failure = fmt.Sprintf("put %s: %d", key, code)
					}
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(150+rng.IntN(450)) * time.Millisecond)
		srv.kill()
		close(stop)
		wg.Wait()
		if failure != "" {
			t.Fatalf("round %d: %s\n%s", round, failure, srv.log.String())
		}
		t.Logf("round %d: %d entities and %d blobs acknowledged so far", round, len(entities), len(blobs))
	}
	if len(entities) == 0 || len(blobs) == 0 {
		t.Fatalf("acknowledged: %d entities, %d blobs: a load never ran", len(entities), len(blobs))
	}
}

// other is the account URL u (the development account's) for the
// account named "other".
func other(u string) string { return strings.Replace(u, "/devstoreaccount1", "/other", 1) }
