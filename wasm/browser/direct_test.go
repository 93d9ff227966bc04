//go:build js && wasm

package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/wasm/stores"
)

// serveDirect lays msg and the store's name out in the buffer as
// worker.js does, serves them, and returns the response, after which it
// overwrites the whole buffer, as the next request would.
func serveDirect(t *testing.T, store string, msg []byte) (string, int32) {
	t.Helper()
	tablelabBuffer(int32(len(msg) + len(store)))
	copy(direct.buf, msg)
	copy(direct.buf[len(msg):], store)
	n := tablelabServeDirect(int32(len(store)), int32(len(msg)))
	var resp string
	if n >= 0 {
		resp = string(direct.buf[:n])
	}
	for i := range direct.buf {
		direct.buf[i] = 'x'
	}
	return resp, n
}

// message is a request signed with the account SAS to the service at
// host, with x-ms-version and the other header fields given.
func message(method, target, host string, body []byte, headers ...string) []byte {
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	head := method + " /devstoreaccount1/" + target + sep + stores.SAS() + " HTTP/1.1\r\nHost: " + host +
		"\r\nx-ms-version: 2021-12-02\r\nAccept: application/json;odata=nometadata\r\n"
	for _, h := range headers {
		head += h + "\r\n"
	}
	return append([]byte(head+"\r\n"), body...)
}

func wantStatus(t *testing.T, resp, status string) {
	t.Helper()
	if !strings.HasPrefix(resp, "HTTP/1.1 "+status) {
		t.Fatalf("want %s, got %.300q", status, resp)
	}
}

// TestDirectKeepsWhatRequestsName checks that what a request leaves in a
// store outlives the buffer it came in: the names a request without a
// body gives in its head (a queue, a container), the bytes of a body (a
// blob's) and what the Table and Queue services decode from a body (an
// entity, a message), though every call overwrites the buffer. It also
// checks that a response longer than the buffer comes back whole.
func TestDirectKeepsWhatRequestsName(t *testing.T) {
	direct.set, direct.buf, direct.store = stores.New(stores.Options{}), nil, ""
	const queues, blobs = "127.0.0.1:10001", "127.0.0.1:10000"
	resp, _ := serveDirect(t, "s", message("PUT", "jobs", queues, nil))
	wantStatus(t, resp, "201")
	resp, _ = serveDirect(t, "s", message("PUT", "photos?restype=container", blobs, nil))
	wantStatus(t, resp, "201")
	blob := bytes.Repeat([]byte("0123456789abcdef"), 10<<10) // past the buffer's first size
	resp, _ = serveDirect(t, "s", message("PUT", "photos/big", blobs, blob,
		"x-ms-blob-type: BlockBlob", "Content-Length: "+strconv.Itoa(len(blob))))
	wantStatus(t, resp, "201")

	resp, _ = serveDirect(t, "s", message("POST", "jobs/messages", queues, []byte("<QueueMessage><MessageText>first job</MessageText></QueueMessage>")))
	wantStatus(t, resp, "201")
	const tables = "127.0.0.1:10002"
	resp, _ = serveDirect(t, "s", message("POST", "Tables", tables, []byte(`{"TableName":"Kept"}`), "Content-Type: application/json"))
	wantStatus(t, resp, "201")
	resp, _ = serveDirect(t, "s", message("POST", "Kept", tables, []byte(`{"PartitionKey":"p","RowKey":"r","Name":"kept name"}`),
		"Content-Type: application/json", "Prefer: return-no-content"))
	wantStatus(t, resp, "204")

	resp, _ = serveDirect(t, "s", message("GET", "jobs/messages?peekonly=true", queues, nil))
	wantStatus(t, resp, "200")
	if !strings.Contains(resp, "<MessageText>first job</MessageText>") {
		t.Errorf("the message's text is lost: %.500q", resp)
	}
	resp, _ = serveDirect(t, "s", message("GET", "Kept(PartitionKey='p',RowKey='r')", tables, nil))
	wantStatus(t, resp, "200")
	if !strings.Contains(resp, `"Name":"kept name"`) {
		t.Errorf("the entity's property is lost: %.500q", resp)
	}
	resp, _ = serveDirect(t, "s", message("GET", "?comp=list", queues, nil))
	wantStatus(t, resp, "200")
	if !strings.Contains(resp, "<Name>jobs</Name>") {
		t.Errorf("the queue's name is lost: %.500q", resp)
	}
	resp, _ = serveDirect(t, "s", message("GET", "?comp=list", blobs, nil))
	if !strings.Contains(resp, "<Name>photos</Name>") {
		t.Errorf("the container's name is lost: %.500q", resp)
	}
	direct.buf = nil // the response outgrows the buffer the request needs
	resp, n := serveDirect(t, "s", message("GET", "photos/big", blobs, nil))
	wantStatus(t, resp, "200")
	if _, body, _ := strings.Cut(resp, "\r\n\r\n"); body != string(blob) {
		t.Errorf("the blob came back as %d bytes beginning %.40q", len(body), body)
	}
	if int(n) != len(resp) || len(direct.buf) < len(blob) {
		t.Errorf("returned %d for a response of %d bytes; the buffer holds %d", n, len(resp), len(direct.buf))
	}
}

// TestDirectStores checks that each store's name reaches the store it
// names, one after another, and that the playground and a request that
// does not fit the buffer are declined.
func TestDirectStores(t *testing.T) {
	direct.set, direct.buf, direct.store = stores.New(stores.Options{}), nil, ""
	const tables = "127.0.0.1:10002"
	create := message("POST", "Tables", tables, []byte(`{"TableName":"OnlyInA"}`), "Content-Type: application/json")
	list := message("GET", "Tables", tables, nil)
	resp, _ := serveDirect(t, "a", create)
	wantStatus(t, resp, "201")
	for _, store := range []string{"b", "a", "bb", "a", "b"} {
		resp, _ := serveDirect(t, store, list)
		wantStatus(t, resp, "200")
		if got, want := strings.Contains(resp, "OnlyInA"), store == "a"; got != want {
			t.Errorf("store %q lists the table: %t, want %t", store, got, want)
		}
	}
	if _, n := serveDirect(t, playground, list); n != -1 {
		t.Errorf("the playground was served directly (%d)", n)
	}
	if n := tablelabServeDirect(1, int32(len(direct.buf))); n != -1 {
		t.Errorf("a request past the buffer's end was served (%d)", n)
	}
	if n := tablelabServeDirect(-1, 1); n != -1 {
		t.Errorf("a negative length was served (%d)", n)
	}
}
