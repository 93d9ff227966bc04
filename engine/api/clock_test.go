package api

import (
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// TestOneClock checks that the server, its verifier and the store read
// one clock, the store's: on a store whose clock stands years in the
// past, the Date header, the entity's Timestamp and the expiry of a SAS
// all follow that clock, and moving it moves them all.
func TestOneClock(t *testing.T) {
	at := time.Date(2020, 3, 1, 12, 0, 0, 0, time.UTC)
	store := engine.New(engine.Options{Now: func() time.Time { return at }})
	if err := store.CreateTable("clocked"); err != nil {
		t.Fatal(err)
	}
	srv := NewServer(store, Options{}) // the development account, no anonymous access
	sas := auth.NewTableSAS(auth.DevAccountName, auth.DevAccount().Keys[0], auth.TableSAS{Table: "clocked", Permissions: "ra", Expiry: at.Add(time.Hour)})
	send := func(method, target, body string) *Response {
		r := &Request{Method: method, Target: "/devstoreaccount1/" + target + "?" + sas, Host: "127.0.0.1:10002", Scheme: "http", Body: []byte(body)}
		r.Header.Set("Accept", "application/json;odata=minimalmetadata")
		return srv.Serve(r)
	}
	resp := send("POST", "clocked", `{"PartitionKey":"p","RowKey":"r"}`)
	if resp.Status != 201 {
		t.Fatalf("insert with a SAS valid on the store's clock: %d %s", resp.Status, resp.Body)
	}
	if got, want := resp.Header.Get("Date"), "Sun, 01 Mar 2020 12:00:00 GMT"; got != want {
		t.Fatalf("Date %q, want the store's clock, %q", got, want)
	}
	if !strings.Contains(string(resp.Body), `"Timestamp":"2020-03-01T12:00:00`) {
		t.Fatalf("the entity is not stamped by the store's clock: %s", resp.Body)
	}
	at = at.Add(time.Hour + time.Minute)
	resp = send("GET", "clocked(PartitionKey='p',RowKey='r')", "")
	if resp.Status != 403 || !strings.Contains(string(resp.Body), "expired") {
		t.Fatalf("a SAS past its expiry on the store's clock: %d %s", resp.Status, resp.Body)
	}
	if got, want := resp.Header.Get("Date"), "Sun, 01 Mar 2020 13:01:00 GMT"; got != want {
		t.Fatalf("Date %q after the clock moved, want %q", got, want)
	}
}
