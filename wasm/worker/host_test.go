package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/wasm/stores"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func devHost(t *testing.T) *host {
	t.Helper()
	cfg, err := readConfig(env(map[string]string{envDev: "1"}))
	if err != nil {
		t.Fatal(err)
	}
	cores, err := memoryCores(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return newHost(cfg, cores, "ephemeral")
}

// signed is a Table request signed with SharedKeyLite for the
// development account, its body nil when body is "".
func signed(method, target, body string) *http.Request {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(method, "http://127.0.0.1:10002"+target, nil)
		r.Body = nil // as syumai/workers hands a body-less request over
	} else {
		r = httptest.NewRequest(method, "http://127.0.0.1:10002"+target, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
	}
	date := time.Now().UTC().Format(http.TimeFormat)
	path, query, _ := strings.Cut(target, "?")
	if v, err := url.ParseQuery(query); err == nil && v.Get("comp") != "" {
		path += "?comp=" + v.Get("comp")
	}
	mac := hmac.New(sha256.New, auth.DevAccount().Keys[0])
	mac.Write([]byte(date + "\n/devstoreaccount1" + path))
	r.Header.Set("x-ms-date", date)
	r.Header.Set("Authorization", "SharedKeyLite devstoreaccount1:"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	r.Header.Set("Accept", "application/json;odata=nometadata")
	return r
}

func do(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestPanicIsAServiceErrorAndTheStoreLives(t *testing.T) {
	h := devHost(t)
	if w := do(h, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"kept"}`)); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	r := signed("GET", "/devstoreaccount1/Tables", "")
	r.Header.Set(hookPanic, "1")
	w := do(h, r)
	if w.Code != 500 || !strings.Contains(w.Body.String(), `"code":"InternalError"`) {
		t.Fatalf("panic: %d %s", w.Code, w.Body)
	}
	q := httptest.NewRequest("GET", "http://127.0.0.1:10001/devstoreaccount1?comp=list", nil)
	q.Header.Set(hookPanic, "1")
	if w := do(h, q); w.Code != 500 || !strings.Contains(w.Body.String(), "<Code>InternalError</Code>") {
		t.Fatalf("queue panic: %d %s", w.Code, w.Body)
	}
	w = do(h, signed("GET", "/devstoreaccount1/Tables", ""))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"TableName":"kept"`) || w.Header().Get(storageHeader) != "ephemeral" {
		t.Fatalf("after: %d %v %s", w.Code, w.Header(), w.Body)
	}
}

func TestHooksNeedTheDevFlag(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("sixteen byte key"))
	cfg, err := readConfig(env(map[string]string{envAccounts: "edge:" + key}))
	if err != nil {
		t.Fatal(err)
	}
	cores, _ := memoryCores(cfg)
	h := newHost(cfg, cores, "")
	r := httptest.NewRequest("GET", "http://127.0.0.1:10002"+hookHeap, nil)
	r.Header.Set(hookPanic, "1")
	if w := do(h, r); w.Code == 500 || strings.Contains(w.Body.String(), "live=") {
		t.Fatalf("hooks answered without the dev flag: %d %s", w.Code, w.Body)
	}
}

func TestConfigRefusesTheWellKnownKey(t *testing.T) {
	if _, err := readConfig(env(nil)); err == nil || !strings.Contains(err.Error(), "no accounts") {
		t.Errorf("no accounts: %v", err)
	}
	if _, err := readConfig(env(map[string]string{envAccounts: "x:" + auth.DevAccountKey})); err == nil || !strings.Contains(err.Error(), "well-known key") {
		t.Errorf("dev key without the flag: %v", err)
	}
	if c, err := readConfig(env(map[string]string{envAccounts: "x:" + auth.DevAccountKey, envDev: "1"})); err != nil || c.accounts[0].Name != "x" {
		t.Errorf("dev key with the flag: %v", err)
	}
	if c, err := readConfig(env(map[string]string{envDev: "1"})); err != nil || c.accounts[0].Name != auth.DevAccountName {
		t.Errorf("dev flag alone: %v %v", c.accounts, err)
	}
}

func TestServiceOf(t *testing.T) {
	c, _ := readConfig(env(map[string]string{envDev: "1", envPorts: "8001, 8002,8003"}))
	for host, want := range map[string]stores.Service{
		"127.0.0.1:8001": stores.Blob, "127.0.0.1:8002": stores.Queue, "127.0.0.1:8003": stores.Table,
		"127.0.0.1:10000": stores.Blob, "blob.example.com": stores.Blob, "queue.example.com": stores.Queue,
		"acct.queue.example.com": stores.Queue, "tablelab.example.workers.dev": stores.Table,
	} {
		if got := c.serviceOf(host); got != want {
			t.Errorf("%s: %v, want %v", host, got, want)
		}
	}
}
