//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bufio"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/site/explore"
	"github.com/tablelab/tablelab/site/inspect"
)

// TestToolsWatchTheServedServices checks the server's wiring of the
// explorer and the inspector: the front ends the server makes hand their
// requests to the inspector's hub, and the tools reach the cores the
// server serves, whatever their ports.
func TestToolsWatchTheServedServices(t *testing.T) {
	cfg, err := parseFlags([]string{"-memory"})
	if err != nil {
		t.Fatal(err)
	}
	logger := log.New(io.Discard, "", 0)
	store, closeStore, err := openStore(cfg, logger, tableStore)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	accounts := []auth.Account{auth.DevAccount()}
	services, closeServices, err := openServices(cfg, store, accounts, logger)
	defer closeServices()
	if err != nil {
		t.Fatal(err)
	}
	hub := inspect.NewHub(0, 0)
	var table string
	for _, s := range services {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s.ln, s.http = ln, frontEnd(s.core, s.config, nil, s.name, hub)
		go s.http.Serve(ln)
		defer s.http.Shutdown()
		if s.name == "Table" {
			table = "http://" + ln.Addr().String() + "/devstoreaccount1"
		}
	}
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
