//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bufio"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/internal/server"
	"github.com/tablelab/tablelab/site/explore"
	"github.com/tablelab/tablelab/site/inspect"
)

// TestToolsWatchTheServedServices checks the server's wiring of the
// explorer and the inspector: the front ends the server makes hand their
// requests to the inspector's hub, and the tools reach the cores the
// server serves, whatever their ports.
func TestToolsWatchTheServedServices(t *testing.T) {
	cfg, err := parseFlags([]string{"-memory", "-blob-addr", "127.0.0.1:0", "-queue-addr", "127.0.0.1:0", "-table-addr", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	accounts := []auth.Account{auth.DevAccount()}
	hub := inspect.NewHub(0, 0)
	srv, err := server.Start(serverConfig(cfg, accounts, log.New(io.Discard, "", 0), wrapFrontEnd(nil, hub)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	table := srv.URL("Table")
	services := srv.Serving()
	site := httptest.NewServer(tools(services, accounts, hub))
	defer site.Close()

	req, _ := http.NewRequest("GET", site.URL+explore.Prefix+"info", nil)
	req.Header.Set(explore.MarkHeader, "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"services":["Blob","Queue","Table"]`) {
		t.Fatalf("info: %s", body)
	}

	events, err := http.Get(site.URL + inspect.Prefix + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	for deadline := time.Now().Add(5 * time.Second); !hub.Watching(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hub is not watched with a stream open")
		}
	}
	app, _ := http.NewRequest("GET", table+"/Tables", nil)
	app.Header.Set("x-ms-client-request-id", "from-the-app")
	resp, err = http.DefaultClient.Do(app)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	lines := bufio.NewScanner(events.Body)
	for lines.Scan() {
		line := lines.Text()
		if strings.HasPrefix(line, "data: ") {
			if !strings.Contains(line, `"clientRequestId":"from-the-app"`) || !strings.Contains(line, `"service":"Table"`) || !strings.Contains(line, `"source":"app"`) {
				t.Errorf("event: %s", line)
			}
			return
		}
	}
	t.Fatal("the stream ended without an event")
}

// TestExplorerReachesEachAccount: through the server's routing, the
// explorer's requests for an account reach that account's stores, in
// process: a table and a container it makes for one account are listed
// for that account only.
func TestExplorerReachesEachAccount(t *testing.T) {
	cfg, err := parseFlags([]string{"-memory", "-blob-addr", "127.0.0.1:0", "-queue-addr", "127.0.0.1:0", "-table-addr", "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	accounts := []auth.Account{auth.DevAccount(), {Name: "other", Keys: [][]byte{[]byte("other's key")}}}
	srv, err := server.Start(serverConfig(cfg, accounts, log.New(io.Discard, "", 0), nil))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	site := httptest.NewServer(tools(srv.Serving(), srv.Accounts(), nil))
	defer site.Close()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, site.URL+explore.Prefix+path, strings.NewReader(body))
		req.Header.Set(explore.MarkHeader, "1")
		req.Header.Set("Accept", "application/json;odata=nometadata")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if status, body := call("GET", "info", ""); !strings.Contains(body, `"accounts":["devstoreaccount1","other"]`) {
		t.Fatalf("info: %d %s", status, body)
	}
	if status, body := call("POST", "table/other/Tables", `{"TableName":"othersonly"}`); status != 201 {
		t.Fatalf("a table for other: %d %s", status, body)
	}
	if status, body := call("PUT", "blob/other/otherfiles?restype=container", ""); status != 201 {
		t.Fatalf("a container for other: %d %s", status, body)
	}
	for _, c := range []struct {
		account string
		want    bool
	}{{"other", true}, {auth.DevAccountName, false}} {
		_, tables := call("GET", "table/"+c.account+"/Tables", "")
		_, containers := call("GET", "blob/"+c.account+"?comp=list", "")
		if strings.Contains(tables, "othersonly") != c.want || strings.Contains(containers, "otherfiles") != c.want {
			t.Errorf("%s lists tables %s, containers %s; other's there: want %v", c.account, tables, containers, c.want)
		}
	}
}
