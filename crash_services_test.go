//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The crash test's loads on the Queue and Blob services, which run beside
// the tables' under the same kills. Requests go unsigned (the server runs
// with -loose) in the versions the Go SDKs send.
const (
	queueVersion = "2024-08-04"
	blobVersion  = "2026-02-06"
)

// raw sends one request to url and returns the status (0 when the
// server could not be reached: gone), the body and the headers.
func (s *crashServer) raw(method, url string, body []byte, hdr map[string]string) (int, []byte, http.Header) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return 0, []byte(err.Error()), nil
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, []byte(err.Error()), nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, []byte(err.Error()), nil
	}
	return resp.StatusCode, b, resp.Header
}

// queueMessage is a message as Get answers it.
type queueMessage struct {
	MessageID     string `xml:"MessageId"`
	InsertionTime string
	PopReceipt    string
	DequeueCount  int
	MessageText   string
}

// qmsg is what the model knows of one message.
type qmsg struct {
	text     string
	inserted string // InsertionTime, which never changes
	dq       int    // its dequeue count
	pop      string // the pop receipt of an invisible message; "" when visible
}

// qop is a queue operation a client had under way at the kill.
type qop struct {
	kind string // "put", "get", "update", "delete"
	id   string // the message of an update or delete
	text string // a put's text, an update's new text
	pop  string // the pop receipt an update or delete used
}

// queueModel is what the queue clients were told: each client works on a
// queue of its own, so that a get in flight at the kill can only have
// taken a message of that queue.
type queueModel struct {
	mu       sync.Mutex
	msgs     map[int]map[string]*qmsg // client → message id → state
	inflight map[int]qop
	count    int
}

const queueClients = 3

func newQueueModel() *queueModel {
	m := &queueModel{msgs: map[int]map[string]*qmsg{}, inflight: map[int]qop{}}
	for c := 0; c < queueClients; c++ {
		m.msgs[c] = map[string]*qmsg{}
	}
	return m
}

func queueURL(s *crashServer, c int) string { return fmt.Sprintf("%s/crashq%d", s.queue, c) }

func (m *queueModel) create(t *testing.T, s *crashServer) {
	t.Helper()
	for c := 0; c < queueClients; c++ {
		if code, body, _ := s.raw("PUT", queueURL(s, c), nil, map[string]string{"x-ms-version": queueVersion}); code != 201 {
			t.Fatalf("create queue %d: %d %s", c, code, body)
		}
	}
}

func parseMessages(body []byte) ([]queueMessage, error) {
	var list struct {
		Messages []queueMessage `xml:"QueueMessage"`
	}
	err := xml.Unmarshal(body, &list)
	return list.Messages, err
}

func messageBody(text string) []byte {
	var b bytes.Buffer
	b.WriteString("<QueueMessage><MessageText>")
	xml.EscapeText(&b, []byte(text))
	b.WriteString("</MessageText></QueueMessage>")
	return b.Bytes()
}

// client runs one queue client's load until stop, or until the server is
// gone: puts, gets that hide a message for an hour, updates (some making
// the message visible again) and deletes by pop receipt. Every answer is
// checked against the model as it comes.
func (m *queueModel) client(s *crashServer, c, round int, stop chan struct{}, fail func(string, ...any)) {
	rng := rand.New(rand.NewPCG(uint64(c), uint64(round)+1000))
	hdr := map[string]string{"x-ms-version": queueVersion}
	base := queueURL(s, c) + "/messages"
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		m.mu.Lock()
		var hidden []string
		for id, q := range m.msgs[c] {
			if q.pop != "" {
				hidden = append(hidden, id)
			}
		}
		m.mu.Unlock()
		sort.Strings(hidden)
		kind := [10]string{"put", "put", "put", "put", "get", "get", "get", "update", "update", "delete"}[rng.IntN(10)]
		if len(hidden) == 0 && (kind == "update" || kind == "delete") {
			kind = "put"
		}
		switch kind {
		case "put":
			text := fmt.Sprintf("c%d r%d s%d <&>", c, round, seq)
			m.begin(c, qop{kind: "put", text: text})
			code, body, _ := s.raw("POST", base+"?visibilitytimeout=0&messagettl=-1", messageBody(text), hdr)
			if code == 0 {
				return
			}
			msgs, err := parseMessages(body)
			if code != 201 || err != nil || len(msgs) != 1 || msgs[0].MessageID == "" || msgs[0].PopReceipt == "" {
				fail("queue %d: put: %d %s %v", c, code, body, err)
				return
			}
			m.mu.Lock()
			m.msgs[c][msgs[0].MessageID] = &qmsg{text: text, inserted: msgs[0].InsertionTime}
			m.done(c)
			m.mu.Unlock()
		case "get": // one message, hidden for an hour
			m.begin(c, qop{kind: "get"})
			code, body, _ := s.raw("GET", base+"?numofmessages=1&visibilitytimeout=3600", nil, hdr)
			if code == 0 {
				return
			}
			msgs, err := parseMessages(body)
			if code != 200 || err != nil || len(msgs) > 1 {
				fail("queue %d: get: %d %s %v", c, code, body, err)
				return
			}
			m.mu.Lock()
			visible := 0
			for _, q := range m.msgs[c] {
				if q.pop == "" {
					visible++
				}
			}
			if len(msgs) == 0 {
				if visible > 0 {
					m.mu.Unlock()
					fail("queue %d: get found nothing with %d messages visible", c, visible)
					return
				}
			} else {
				g := msgs[0]
				q := m.msgs[c][g.MessageID]
				switch {
				case q == nil || q.pop != "":
					m.mu.Unlock()
					fail("queue %d: get returned %s, which is not a visible message", c, g.MessageID)
					return
				case g.DequeueCount != q.dq+1 || g.MessageText != q.text || g.InsertionTime != q.inserted:
					m.mu.Unlock()
					fail("queue %d: get of %s: dequeue count %d, text %q, inserted %s; want %d, %q, %s", c, g.MessageID, g.DequeueCount, g.MessageText, g.InsertionTime, q.dq+1, q.text, q.inserted)
					return
				}
				q.dq, q.pop = g.DequeueCount, g.PopReceipt
			}
			m.done(c)
			m.mu.Unlock()
		case "update": // new text, hidden again or visible now
			id := hidden[rng.IntN(len(hidden))]
			m.mu.Lock()
			pop := m.msgs[c][id].pop
			m.mu.Unlock()
			text := fmt.Sprintf("c%d r%d s%d updated", c, round, seq)
			vt := 3600
			if rng.IntN(2) == 0 {
				vt = 0
			}
			m.begin(c, qop{kind: "update", id: id, text: text, pop: pop})
			code, body, h := s.raw("PUT", fmt.Sprintf("%s/%s?popreceipt=%s&visibilitytimeout=%d", base, id, url.QueryEscape(pop), vt), messageBody(text), hdr)
			if code == 0 {
				return
			}
			if code != 204 || h.Get("x-ms-popreceipt") == "" {
				fail("queue %d: update %s: %d %s", c, id, code, body)
				return
			}
			m.mu.Lock()
			q := m.msgs[c][id]
			q.text, q.pop = text, h.Get("x-ms-popreceipt")
			if vt == 0 {
				q.pop = ""
			}
			m.done(c)
			m.mu.Unlock()
		case "delete": // by pop receipt
			id := hidden[rng.IntN(len(hidden))]
			m.mu.Lock()
			pop := m.msgs[c][id].pop
			m.mu.Unlock()
			m.begin(c, qop{kind: "delete", id: id, pop: pop})
			code, body, _ := s.raw("DELETE", fmt.Sprintf("%s/%s?popreceipt=%s", base, id, url.QueryEscape(pop)), nil, hdr)
			if code == 0 {
				return
			}
			if code != 204 {
				fail("queue %d: delete %s: %d %s", c, id, code, body)
				return
			}
			m.mu.Lock()
			delete(m.msgs[c], id)
			m.done(c)
			m.mu.Unlock()
		}
	}
}

func (m *queueModel) begin(c int, op qop) {
	m.mu.Lock()
	m.inflight[c] = op
	m.mu.Unlock()
}

// done records an acknowledged operation; m.mu is held.
func (m *queueModel) done(c int) {
	delete(m.inflight, c)
	m.count++
}

// verify checks each queue against the model after a restart. Every
// hidden message is first made visible with the pop receipt the model
// holds (which proves the receipt survived), then every message is got:
// each must be known, with its dequeue count one past the model's, its
// text and insertion time as acknowledged, and no acknowledged message may
// be missing. What was in flight at the kill may have landed or not.
// Afterwards every message is hidden again, with receipts the model
// takes for the next round.
func (m *queueModel) verify(t *testing.T, s *crashServer, round int) {
	t.Helper()
	hdr := map[string]string{"x-ms-version": queueVersion}
	m.mu.Lock()
	defer m.mu.Unlock()
	checked := 0
	for c := 0; c < queueClients; c++ {
		base := queueURL(s, c) + "/messages"
		msgs := m.msgs[c]
		op, uncertain := m.inflight[c]
		// Messages whose state the kill left unknown: if they come back,
		// they must be as acknowledged or as the operation left them.
		maybe := map[string]bool{}
		for id, q := range msgs {
			if q.pop == "" {
				continue
			}
			code, body, _ := s.raw("PUT", fmt.Sprintf("%s/%s?popreceipt=%s&visibilitytimeout=0", base, id, url.QueryEscape(q.pop)), nil, hdr)
			switch {
			case code == 204:
				q.pop = ""
			case uncertain && op.id == id && op.kind == "delete" && code == 404:
				delete(msgs, id) // the delete landed
			case uncertain && op.id == id && op.kind == "update" && code == 404:
				// The update landed: the model's receipt is stale, which
				// finds no message, as in Azure; the message is hidden for
				// an hour or visible now.
				q.pop, q.text = "", op.text
				maybe[id] = true
			default:
				t.Fatalf("round %d: queue %d: message %s, hidden with an acknowledged pop receipt, cannot be made visible with it: %d %s", round, c, id, code, body)
			}
		}
		got := map[string]queueMessage{}
		for {
			code, body, _ := s.raw("GET", base+"?numofmessages=32&visibilitytimeout=3600", nil, hdr)
			list, err := parseMessages(body)
			if code != 200 || err != nil {
				t.Fatalf("round %d: queue %d: get: %d %s %v", round, c, code, body, err)
			}
			if len(list) == 0 {
				break
			}
			for _, g := range list {
				got[g.MessageID] = g
			}
		}
		for id, g := range got {
			q := msgs[id]
			if q == nil {
				if uncertain && op.kind == "put" && g.MessageText == op.text && g.DequeueCount == 1 {
					msgs[id] = &qmsg{text: g.MessageText, inserted: g.InsertionTime, pop: g.PopReceipt, dq: 1}
					continue
				}
				t.Fatalf("round %d: queue %d: unknown message %s %q (dequeued %d times)", round, c, id, g.MessageText, g.DequeueCount)
			}
			text := q.text
			if uncertain && op.kind == "update" && op.id == id && g.MessageText == op.text {
				text = op.text
			}
			if g.DequeueCount != q.dq+1 || g.MessageText != text || g.InsertionTime != q.inserted {
				t.Fatalf("round %d: queue %d: message %s came back dequeued %d times with %q, inserted %s; acknowledged %d times, %q, inserted %s",
					round, c, id, g.DequeueCount, g.MessageText, g.InsertionTime, q.dq, text, q.inserted)
			}
			q.dq, q.pop, q.text = g.DequeueCount, g.PopReceipt, g.MessageText
			checked++
		}
		missing := 0
		for id := range msgs {
			if _, ok := got[id]; ok {
				continue
			}
			switch {
			case maybe[id], uncertain && op.kind == "delete" && op.id == id:
				delete(msgs, id)
			case uncertain && op.kind == "get" && missing == 0:
				// The get in flight took it, under a receipt never seen.
				missing++
				delete(msgs, id)
			default:
				t.Fatalf("round %d: queue %d: acknowledged message %s %q lost", round, c, id, msgs[id].text)
			}
		}
	}
	m.inflight = map[int]qop{}
	t.Logf("round %d: %d queue messages checked", round, checked)
}

// blobModel is what the blob clients were told: for each blob, the
// SHA-256 of its content. Each client writes blobs under a prefix of its
// own ("c0/…").
type blobModel struct {
	mu       sync.Mutex
	want     map[string]string // name → content hash; absent = must not exist
	inflight map[int]bop
	never    map[string]bool // names that must never exist: only staged, or cut off midway
	count    int
	// kept is the content hash of the blob that uploads cut off midway
	// overwrite each round.
	kept string
}

// bop is a blob operation a client had under way at the kill.
type bop struct {
	name string
	hash string // the content it wrote; "" for a delete
}

const blobClients = 3

func newBlobModel() *blobModel {
	return &blobModel{want: map[string]string{}, inflight: map[int]bop{}, never: map[string]bool{}}
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// content makes a blob's bytes: size from 0 to 300 KiB, drawn from rng.
func content(rng *rand.Rand) []byte {
	b := make([]byte, rng.IntN(300<<10))
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

func blobURL(s *crashServer, name string) string { return s.blob + "/crashc/" + name }

// keptBlob is the blob every round's cut-off upload tries to overwrite.
const keptBlob = "stalled/kept"

func (m *blobModel) create(t *testing.T, s *crashServer) {
	t.Helper()
	if code, body, _ := s.raw("PUT", s.blob+"/crashc?restype=container", nil, map[string]string{"x-ms-version": blobVersion}); code != 201 {
		t.Fatalf("create container: %d %s", code, body)
	}
	b := bytes.Repeat([]byte("kept "), 50_000)
	if code, body, _ := s.raw("PUT", blobURL(s, keptBlob), b, map[string]string{"x-ms-version": blobVersion, "x-ms-blob-type": "BlockBlob"}); code != 201 {
		t.Fatalf("put %s: %d %s", keptBlob, code, body)
	}
	m.kept = hashOf(b)
}

// client runs one blob client's load until stop or until the server is
// gone: blobs put whole or as blocks and a block list, overwritten,
// deleted and read back, and blocks staged that are never committed.
func (m *blobModel) client(s *crashServer, c, round int, stop chan struct{}, fail func(string, ...any)) {
	rng := rand.New(rand.NewPCG(uint64(c), uint64(round)+2000))
	hdr := map[string]string{"x-ms-version": blobVersion}
	var mine []string
	m.mu.Lock()
	for name := range m.want {
		if strings.HasPrefix(name, fmt.Sprintf("c%d/", c)) {
			mine = append(mine, name)
		}
	}
	m.mu.Unlock()
	sort.Strings(mine)
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		name := fmt.Sprintf("c%d/r%d/%d", c, round, seq)
		if len(mine) > 0 && rng.IntN(3) == 0 {
			name = mine[rng.IntN(len(mine))] // overwrite
		}
		op := rng.IntN(20)
		switch {
		case op < 8: // put blob
			b := content(rng)
			m.begin(c, bop{name: name, hash: hashOf(b)})
			code, body, _ := s.raw("PUT", blobURL(s, name), b, map[string]string{"x-ms-version": blobVersion, "x-ms-blob-type": "BlockBlob"})
			if code == 0 {
				return
			}
			if code != 201 {
				fail("put blob %s: %d %s", name, code, body)
				return
			}
			m.commit(c, name, hashOf(b))
		case op < 12: // put blocks, then the block list
			var all []byte
			var list strings.Builder
			list.WriteString(`<?xml version="1.0" encoding="utf-8"?><BlockList>`)
			blocks := 1 + rng.IntN(3)
			var ids []string
			var parts [][]byte
			for i := 0; i < blocks; i++ {
				part := content(rng)
				parts = append(parts, part)
				all = append(all, part...)
				// Every block id of a blob has one length, or the
				// service refuses the block (InvalidBlobOrBlock), and an
				// overwrite reuses a name whose ids an earlier seq made.
				ids = append(ids, base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("block-%08d-%03d", seq, i))))
			}
			m.begin(c, bop{name: name, hash: hashOf(all)})
			for i, id := range ids {
				code, body, _ := s.raw("PUT", blobURL(s, name)+"?comp=block&blockid="+url.QueryEscape(id), parts[i], hdr)
				if code == 0 {
					return
				}
				if code != 201 {
					fail("put block %s: %d %s", name, code, body)
					return
				}
				list.WriteString("<Latest>" + id + "</Latest>")
			}
			list.WriteString("</BlockList>")
			code, body, _ := s.raw("PUT", blobURL(s, name)+"?comp=blocklist", []byte(list.String()), hdr)
			if code == 0 {
				return
			}
			if code != 201 {
				fail("put block list %s: %d %s", name, code, body)
				return
			}
			m.commit(c, name, hashOf(all))
		case op < 13: // a block staged on a new name and never committed
			name = fmt.Sprintf("c%d/r%d/%d-staged", c, round, seq)
			m.mu.Lock()
			m.never[name] = true
			m.mu.Unlock()
			id := base64.StdEncoding.EncodeToString([]byte("only"))
			code, body, _ := s.raw("PUT", blobURL(s, name)+"?comp=block&blockid="+url.QueryEscape(id), content(rng), hdr)
			if code == 0 {
				return
			}
			if code != 201 {
				fail("put block %s: %d %s", name, code, body)
				return
			}
			continue
		case op < 16 && len(mine) > 0: // delete
			name = mine[rng.IntN(len(mine))]
			m.begin(c, bop{name: name})
			code, body, _ := s.raw("DELETE", blobURL(s, name), nil, hdr)
			if code == 0 {
				return
			}
			if code != 202 {
				fail("delete blob %s: %d %s", name, code, body)
				return
			}
			m.commit(c, name, "")
		case len(mine) > 0: // read back
			name = mine[rng.IntN(len(mine))]
			code, body, _ := s.raw("GET", blobURL(s, name), nil, hdr)
			if code == 0 {
				return
			}
			m.mu.Lock()
			want := m.want[name]
			m.mu.Unlock()
			if code != 200 || hashOf(body) != want {
				fail("get blob %s: %d, %d bytes, not as acknowledged", name, code, len(body))
				return
			}
			continue
		default:
			continue
		}
		mine = mine[:0]
		m.mu.Lock()
		for name := range m.want {
			if strings.HasPrefix(name, fmt.Sprintf("c%d/", c)) {
				mine = append(mine, name)
			}
		}
		m.mu.Unlock()
		sort.Strings(mine)
	}
}

func (m *blobModel) begin(c int, op bop) {
	m.mu.Lock()
	m.inflight[c] = op
	m.mu.Unlock()
}

func (m *blobModel) commit(c int, name, hash string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if hash == "" {
		delete(m.want, name)
	} else {
		m.want[name] = hash
	}
	delete(m.inflight, c)
	m.count++
}

// stall starts uploads that the kill cuts off midway: a new blob, and an
// overwrite of keptBlob, each sending 3 of the 8 MiB it announces and
// then nothing until the connection is closed.
func (m *blobModel) stall(t *testing.T, s *crashServer, round int) (closeAll func()) {
	t.Helper()
	fresh := fmt.Sprintf("stalled/r%d", round)
	m.mu.Lock()
	m.never[fresh] = true
	m.mu.Unlock()
	u, err := url.Parse(s.blob)
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	for _, name := range []string{fresh, keptBlob} {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "PUT %s/crashc/%s HTTP/1.1\r\nHost: %s\r\nx-ms-version: %s\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: %d\r\n\r\n", u.Path, name, u.Host, blobVersion, 8<<20)
		go c.Write(bytes.Repeat([]byte("cut off "), (3<<20)/8))
	}
	return func() {
		for _, c := range conns {
			c.Close()
		}
	}
}

// verify lists the container, page by page, and reads every blob back:
// each acknowledged blob must hold what was acknowledged, nothing unknown
// may be there, no upload cut off midway may have left a blob or changed
// one, and what was in flight at the kill is either as before or as
// written.
func (m *blobModel) verify(t *testing.T, s *crashServer, round int) {
	t.Helper()
	hdr := map[string]string{"x-ms-version": blobVersion}
	listed := map[string]bool{}
	marker := ""
	pages := 0
	for {
		code, body, _ := s.raw("GET", s.blob+"/crashc?restype=container&comp=list&maxresults=50&marker="+url.QueryEscape(marker), nil, hdr)
		var page struct {
			Blobs []struct {
				Name string
			} `xml:"Blobs>Blob"`
			NextMarker string
		}
		if err := xml.Unmarshal(body, &page); code != 200 || err != nil {
			t.Fatalf("round %d: list blobs: %d %s %v", round, code, body, err)
		}
		pages++
		for _, b := range page.Blobs {
			if listed[b.Name] {
				t.Fatalf("round %d: %s listed twice", round, b.Name)
			}
			listed[b.Name] = true
		}
		if page.NextMarker == "" {
			break
		}
		marker = page.NextMarker
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	uncertain := map[string]bop{}
	for _, op := range m.inflight {
		uncertain[op.name] = op
	}
	got := map[string]string{}
	for name := range listed {
		code, body, _ := s.raw("GET", blobURL(s, name), nil, hdr)
		if code != 200 {
			t.Fatalf("round %d: get %s, listed: %d %s", round, name, code, body)
		}
		got[name] = hashOf(body)
	}
	if got[keptBlob] != m.kept {
		t.Fatalf("round %d: %s, overwritten by uploads cut off midway, no longer holds its content", round, keptBlob)
	}
	for name := range m.never {
		if listed[name] {
			t.Fatalf("round %d: %s exists, but its upload was cut off or never committed", round, name)
		}
	}
	for name, want := range m.want {
		op, open := uncertain[name]
		switch h, ok := got[name]; {
		case open && (h == op.hash || op.hash == "" && !ok):
			// The operation in flight landed.
		case !ok:
			t.Fatalf("round %d: acknowledged blob %s lost", round, name)
		case h != want:
			t.Fatalf("round %d: %s does not hold its acknowledged content", round, name)
		}
	}
	for name, h := range got {
		if _, ok := m.want[name]; ok || name == keptBlob {
			continue
		}
		if op, open := uncertain[name]; !open || h != op.hash {
			t.Fatalf("round %d: unknown blob %s", round, name)
		}
	}
	// What the server holds is the truth now.
	delete(got, keptBlob)
	m.want = got
	m.inflight = map[int]bop{}
	t.Logf("round %d: %d blobs checked in %d pages of a listing", round, len(got), pages)
}
