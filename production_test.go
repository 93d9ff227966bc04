//go:build !js

package main

import (
	"bytes"
	"log"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/internal/server"
)

// served opens the services the flags ask for, in memory, and returns
// them by name with what the server logged.
func served(t *testing.T, flags ...string) (map[string]api.Service, *bytes.Buffer) {
	t.Helper()
	cfg, err := parseFlags(append([]string{"-memory", "-loose"}, flags...))
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	logger := log.New(&logged, "", 0)
	srv, err := server.Open(serverConfig(cfg, []auth.Account{auth.DevAccount()}, logger, nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	out := map[string]api.Service{}
	for _, s := range srv.Services() {
		out[s.Name] = s.Core
	}
	return out, &logged
}

func call(s api.Service, method, target, body string) *api.Response {
	r := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10002", Scheme: "http", Body: []byte(body)}
	r.Header.Set("Accept", "application/json;odata=nometadata")
	r.Header.Set("Content-Type", "application/json")
	return s.Serve(r)
}

// TestProductionFlags checks that the flags reach the services the
// server runs: the Table service refuses a scan, throttles a partition,
// pages at a budget and meets the fault a rule names, and the Queue
// service is throttled by the same account.
func TestProductionFlags(t *testing.T) {
	svc, logged := served(t, "-scan", "fail", "-throttle", "partition=3", "-fault", "op=DeleteTable,error=InternalError")
	tbl := svc["Table"]
	if r := call(tbl, "POST", "/Tables", `{"TableName":"tbl"}`); r.Status != 201 {
		t.Fatalf("create table: %d %s", r.Status, r.Body)
	}
	// Seven writes to a partition whose target is three a second: the
	// second may turn between them, but not twice.
	busy := 0
	for i := range 7 {
		r := call(tbl, "POST", "/tbl", `{"PartitionKey":"a","RowKey":"`+string(rune('0'+i))+`"}`)
		switch {
		case r.Status == 503 && strings.Contains(string(r.Body), "The server is busy."):
			busy++
		case r.Status != 201:
			t.Fatalf("insert %d: %d %s", i, r.Status, r.Body)
		}
	}
	if busy == 0 {
		t.Error("seven writes to one partition within its target of three a second")
	}
	if r := call(tbl, "GET", "/tbl()?$filter=RowKey%20ge%20'0'", ""); r.Status != 400 || !strings.Contains(string(r.Body), "TableScanRefused") {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	if !strings.Contains(logged.String(), "scan refused: table-scan of tbl") {
		t.Errorf("the log does not report the scan:\n%s", logged)
	}
	if r := call(tbl, "DELETE", "/Tables('tbl')", ""); r.Status != 500 || r.Header.Get("X-Tablelab-Fault") != "InternalError" {
		t.Fatalf("delete table: %d %q", r.Status, r.Header.Get("X-Tablelab-Fault"))
	}
	for _, line := range []string{"-throttle: per second, 3 entities", "-fault: 1 rules, seed 1", "-scan fail: table-scan"} {
		if !strings.Contains(logged.String(), line) {
			t.Errorf("the log lacks %q:\n%s", line, logged)
		}
	}

	svc, logged = served(t, "-paging", "production", "-page-budget", "2")
	tbl = svc["Table"]
	call(tbl, "POST", "/Tables", `{"TableName":"tbl"}`)
	for _, rk := range []string{"0", "1", "2"} {
		call(tbl, "POST", "/tbl", `{"PartitionKey":"a","RowKey":"`+rk+`"}`)
	}
	r := call(tbl, "GET", "/tbl()?$filter=PartitionKey%20eq%20'a'", "")
	if r.Status != 200 || r.Header.Get("X-Tablelab-Examined") != "2" || r.Header.Get("x-ms-continuation-NextRowKey") == "" {
		t.Fatalf("a partition scan under a budget of 2: %d, examined %s, next %q", r.Status, r.Header.Get("X-Tablelab-Examined"), r.Header.Get("x-ms-continuation-NextRowKey"))
	}
	if !strings.Contains(logged.String(), "-paging production: a page ends after 2 examined") {
		t.Errorf("the log lacks the paging:\n%s", logged)
	}

	// Five requests, two services, one account's target of two: the
	// second may turn between them, but not twice.
	svc, _ = served(t, "-throttle", "account=2")
	busy = 0
	for i, r := range []*api.Response{
		call(svc["Table"], "POST", "/Tables", `{"TableName":"tbl"}`),
		call(svc["Queue"], "PUT", "/q1", ""), call(svc["Queue"], "PUT", "/q2", ""),
		call(svc["Table"], "GET", "/Tables", ""), call(svc["Queue"], "PUT", "/q3", ""),
	} {
		if r.Status == 503 {
			busy++
			if !strings.Contains(string(r.Body), "Operations per second is over the account limit.") {
				t.Errorf("request %d: %s", i, r.Body)
			}
		}
	}
	if busy == 0 {
		t.Error("five requests within the account's target of two a second")
	}
}

// TestProductionFlagsOff checks that without the flags the cores are
// the services' own, unwrapped, and pages are full.
func TestProductionFlagsOff(t *testing.T) {
	svc, _ := served(t)
	if _, ok := svc["Table"].(*api.Server); !ok {
		t.Errorf("the Table core is a %T", svc["Table"])
	}
	cfg, _ := parseFlags(nil)
	if pg := cfg.prod.pagingOf(); pg.MaxExamined != 0 || pg.PartitionBreaks {
		t.Errorf("default paging %+v", pg)
	}
}

func TestProductionFlagErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "faults.json")
	os.WriteFile(file, []byte(`{"seed": 9, "rules": [{"op": "InsertEntity", "error": "ServerBusy", "p": 0.5}]}`), 0o644)
	cfg, err := parseFlags([]string{"-faults", file})
	if err != nil || cfg.prod.faultSeed != 9 || len(cfg.prod.rules) != 1 {
		t.Fatalf("-faults: seed %d, %d rules, %v", cfg.prod.faultSeed, len(cfg.prod.rules), err)
	}
	cfg, err = parseFlags([]string{"-faults", file, "-fault-seed", "3", "-fault", "latency=1ms"})
	if err != nil || cfg.prod.faultSeed != 3 || len(cfg.prod.rules) != 2 {
		t.Fatalf("-fault-seed over the file's: seed %d, %d rules, %v", cfg.prod.faultSeed, len(cfg.prod.rules), err)
	}
	for _, args := range [][]string{
		{"-scan", "warn"}, {"-scan", "report", "-scan-plans", "point"}, {"-throttle", "partition"}, {"-throttle", "rows=1"},
		{"-paging", "azure"}, {"-page-budget", "-1"}, {"-faults", filepath.Join(dir, "missing.json")}, {"-fault", "error=Oops"},
	} {
		if _, err := parseFlags(args); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
