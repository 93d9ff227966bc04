//go:build !js

// The local server is a process on sockets and files; the browser build is wasm/browser.

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashRecovery runs the real server binary under a concurrent write
// load on all three services, kills it with SIGKILL at a random moment,
// restarts it on the same directory and checks what survived:
//   - tables: every acknowledged write is there, no batch is partly
//     there, and nothing unknown is;
//   - queues: every acknowledged message, with its text, insertion time,
//     dequeue count and pop receipt; no acknowledged delete undone;
//   - blobs: every acknowledged put, block list and delete, read back
//     byte for byte; no blob from an upload cut off midway or from blocks
//     never committed, and no blob changed by one.
//
// The server is run with a tiny compaction threshold, so kills also land
// during snapshots. TABLELAB_CRASH_ROUNDS sets the number of rounds
// (default 3).
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test runs the server binary; skipped with -short")
	}
	rounds := 3
	if v := os.Getenv("TABLELAB_CRASH_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatal(err)
		}
		rounds = n
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	m, qm, bm := newModel(), newQueueModel(), newBlobModel()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for round := 0; round < rounds; round++ {
		// Every other round holds no entity in memory, so reads, merges
		// and snapshots go to the data files, and each restart switches
		// between settling everything and holding everything.
		hold := "0"
		if round%2 == 1 {
			hold = "32"
		}
		srv := startCrashServer(t, bin, data, "-hold-mib", hold)
		if round == 0 {
			if code, body := srv.do("POST", "/Tables", `{"TableName":"crash"}`, nil); code != 201 {
				t.Fatalf("create table: %d %s", code, body)
			}
			qm.create(t, srv)
			bm.create(t, srv)
		}
		// Check state left by the previous round's kill.
		m.verify(t, srv, round)
		qm.verify(t, srv, round)
		bm.verify(t, srv, round)
		stop := make(chan struct{})
		var failed sync.Once
		var failure string
		fail := func(format string, args ...any) {
			failed.Do(func() { failure = fmt.Sprintf("round %d: ", round) + fmt.Sprintf(format, args...) })
		}
		var wg sync.WaitGroup
		for c := 0; c < 8; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				m.client(srv, c, round, stop)
			}(c)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.tableClient(srv, round, stop)
		}()
		for c := 0; c < queueClients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				qm.client(srv, c, round, stop, fail)
			}()
		}
		for c := 0; c < blobClients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bm.client(srv, c, round, stop, fail)
			}()
		}
		closeStalled := bm.stall(t, srv, round)
		time.Sleep(time.Duration(100+rng.IntN(900)) * time.Millisecond)
		srv.kill()
		close(stop)
		wg.Wait()
		closeStalled()
		if failure != "" {
			t.Fatalf("%s\n%s", failure, srv.log.String())
		}
		t.Logf("round %d: %d table, %d queue and %d blob writes acknowledged so far", round, m.acked(), qm.count, bm.count)
	}
	srv := startCrashServer(t, bin, data, "-hold-mib", "0")
	m.verify(t, srv, rounds)
	qm.verify(t, srv, rounds)
	bm.verify(t, srv, rounds)
	srv.kill()
	if m.acked() == 0 || qm.count == 0 || bm.count == 0 {
		t.Fatalf("acknowledged writes: %d table, %d queue, %d blob: a load never ran", m.acked(), qm.count, bm.count)
	}
}

// buildServer builds the server binary into a new temporary directory,
// or takes the one the test command built from this tree
// ($TABLELAB_BIN), and returns the directory, the tests' to write in.
func buildServer(t *testing.T) (dir, bin string) {
	t.Helper()
	dir = t.TempDir()
	if given := os.Getenv("TABLELAB_BIN"); given != "" {
		return dir, given
	}
	bin = filepath.Join(dir, "tablelab")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatal(err)
	}
	return dir, bin
}

type crashServer struct {
	cmd    *exec.Cmd
	base   string // the Table service's account URL
	blob   string // the Blob service's account URL
	queue  string // the Queue service's account URL
	client *http.Client
	log    *bytes.Buffer
}

// freeAddr returns a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startCrashServer starts the server on data, with all three services
// on free ports. extra flags follow the usual ones.
func startCrashServer(t *testing.T, bin, data string, extra ...string) *crashServer {
	t.Helper()
	addr, blobAddr, queueAddr := freeAddr(t), freeAddr(t), freeAddr(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, append([]string{"-table-addr", addr, "-blob-addr", blobAddr, "-queue-addr", queueAddr,
		"-site-addr=", "-data", data, "-loose", "-quiet", "-compact-bytes", "65536"}, extra...)...)
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &crashServer{cmd: cmd, base: "http://" + addr + "/devstoreaccount1", log: &log,
		blob: "http://" + blobAddr + "/devstoreaccount1", queue: "http://" + queueAddr + "/devstoreaccount1",
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	deadline := time.Now().Add(30 * time.Second)
	for _, a := range []string{addr, blobAddr, queueAddr} {
		for {
			if c, err := net.Dial("tcp", a); err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("server did not start:\n%s", log.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return s
}

func (s *crashServer) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL) // only the process this test started
	_ = s.cmd.Wait()
}

func (s *crashServer) do(method, path, body string, hdr map[string]string) (int, string) {
	code, b, _ := s.doH(method, path, body, hdr)
	return code, b
}

func (s *crashServer) doH(method, path, body string, hdr map[string]string) (int, string, http.Header) {
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		return 0, err.Error(), nil
	}
	req.Header.Set("Accept", "application/json;odata=nometadata")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-ms-version", "2019-02-02")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err.Error(), nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// model is what the clients know of the table: for each key the value it
// must have (or its absence), and for each client the one write it may
// have had in flight at the kill, which may or may not have landed.
type model struct {
	mu       sync.Mutex
	want     map[string]int    // RowKey → value V; absent = must not exist
	etag     map[string]string // RowKey → ETag of its last acknowledged write, where the answer said it
	inflight map[int][]pending
	count    int

	tables        map[string]bool // acknowledged table creates (true) and deletes (false)
	tableInflight map[string]bool // the table operation the table client had under way
}

type pending struct {
	rk   string
	v    int    // -1: a delete
	etag string // the ETag the server answered, once it has
}

func newModel() *model {
	return &model{want: map[string]int{}, etag: map[string]string{}, inflight: map[int][]pending{},
		tables: map[string]bool{}, tableInflight: map[string]bool{}}
}

func (m *model) acked() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.count
}

// client runs one client's sequential load: inserts, merges, deletes and
// 10-operation batches, on its own partition.
func (m *model) client(s *crashServer, c, round int, stop chan struct{}) {
	rng := rand.New(rand.NewPCG(uint64(c), uint64(round)))
	pk := fmt.Sprintf("c%d", c)
	seq := 0
	var mine []string
	m.mu.Lock()
	for rk := range m.want {
		if strings.HasPrefix(rk, pk+"-") {
			mine = append(mine, rk)
		}
	}
	m.mu.Unlock()
	for {
		select {
		case <-stop:
			return
		default:
		}
		seq++
		v := round*1_000_000 + seq
		var ops []pending
		var code int
		switch op := rng.IntN(10); {
		case op < 4 || len(mine) == 0: // insert
			rk := fmt.Sprintf("%s-%d-%d", pk, round, seq)
			ops = []pending{{rk: rk, v: v}}
			m.begin(c, ops)
			var hdr http.Header
			code, _, hdr = s.doH("POST", "/crash", fmt.Sprintf(`{"PartitionKey":%q,"RowKey":%q,"V":%d}`, pk, rk, v), map[string]string{"Prefer": "return-no-content"})
			if code == 204 {
				mine = append(mine, rk)
				ops[0].etag = hdr.Get("ETag")
			}
		case op < 6: // merge
			rk := mine[rng.IntN(len(mine))]
			ops = []pending{{rk: rk, v: v}}
			m.begin(c, ops)
			var hdr http.Header
			code, _, hdr = s.doH("PATCH", fmt.Sprintf("/crash(PartitionKey='%s',RowKey='%s')", pk, rk), fmt.Sprintf(`{"V":%d}`, v), map[string]string{"If-Match": "*"})
			if code == 204 {
				ops[0].etag = hdr.Get("ETag")
			}
		case op < 8: // delete
			i := rng.IntN(len(mine))
			rk := mine[i]
			ops = []pending{{rk: rk, v: -1}}
			m.begin(c, ops)
			code, _ = s.do("DELETE", fmt.Sprintf("/crash(PartitionKey='%s',RowKey='%s')", pk, rk), "", map[string]string{"If-Match": "*"})
			if code == 204 {
				mine = append(mine[:i], mine[i+1:]...)
			}
		default: // a batch of 10 inserts
			for j := 0; j < 10; j++ {
				ops = append(ops, pending{rk: fmt.Sprintf("%s-%d-%d-b%d", pk, round, seq, j), v: v})
			}
			m.begin(c, ops)
			var code2 int
			code2, body := s.do("POST", "/$batch", batchBody(pk, ops), map[string]string{"Content-Type": "multipart/mixed; boundary=batch_crash"})
			if code2 == 202 && strings.Contains(body, "204 No Content") {
				code = 204
				for _, o := range ops {
					mine = append(mine, o.rk)
				}
			}
		}
		if code >= 200 && code < 300 {
			m.commit(c, ops)
		} else if code != 0 {
			// Refused by the server (not a crash): the write did not happen.
			m.abort(c)
		} else {
			return // connection lost: the server is gone; leave it in flight
		}
	}
}

func (m *model) begin(c int, ops []pending) {
	m.mu.Lock()
	m.inflight[c] = ops
	m.mu.Unlock()
}

func (m *model) abort(c int) {
	m.mu.Lock()
	delete(m.inflight, c)
	m.mu.Unlock()
}

func (m *model) commit(c int, ops []pending) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range ops {
		if o.v < 0 {
			delete(m.want, o.rk)
		} else {
			m.want[o.rk] = o.v
		}
		// A batch's answers are not parsed for ETags: its entities are
		// checked by value only.
		if o.etag != "" {
			m.etag[o.rk] = o.etag
		} else {
			delete(m.etag, o.rk)
		}
	}
	delete(m.inflight, c)
	m.count++
}

// tableClient creates and deletes tables until stopped, recording each
// acknowledged answer.
func (m *model) tableClient(s *crashServer, round int, stop chan struct{}) {
	rng := rand.New(rand.NewPCG(uint64(round), 99))
	for seq := 0; ; seq++ {
		select {
		case <-stop:
			return
		default:
		}
		m.mu.Lock()
		var existing []string
		for name, ok := range m.tables {
			if ok {
				existing = append(existing, name)
			}
		}
		m.mu.Unlock()
		sort.Strings(existing)
		var name string
		var create bool
		var code int
		if len(existing) == 0 || rng.IntN(2) == 0 {
			name, create = fmt.Sprintf("made%dx%d", round, seq), true
			m.beginTable(name, true)
			code, _ = s.do("POST", "/Tables", fmt.Sprintf(`{"TableName":%q}`, name), map[string]string{"Prefer": "return-no-content"})
		} else {
			name = existing[rng.IntN(len(existing))]
			m.beginTable(name, false)
			code, _ = s.do("DELETE", fmt.Sprintf("/Tables('%s')", name), "", nil)
		}
		m.mu.Lock()
		switch {
		case code == 0:
			m.mu.Unlock()
			return // the server is gone; the operation stays in flight
		case code >= 200 && code < 300:
			m.tables[name] = create
			m.count++
		}
		delete(m.tableInflight, name)
		m.mu.Unlock()
	}
}

func (m *model) beginTable(name string, create bool) {
	m.mu.Lock()
	m.tableInflight[name] = create
	m.mu.Unlock()
}

// verifyTables lists the tables and checks them against the acknowledged
// creates and deletes, then settles what was in flight.
func (m *model) verifyTables(t *testing.T, s *crashServer, round int) {
	t.Helper()
	listed := map[string]bool{}
	next := ""
	for {
		code, body, hdr := s.doH("GET", "/Tables"+next, "", nil)
		if code != 200 {
			t.Fatalf("round %d: list tables: %d %s", round, code, body)
		}
		var page struct {
			Value []struct{ TableName string } `json:"value"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		for _, v := range page.Value {
			listed[v.TableName] = true
		}
		nt := hdr.Get("x-ms-continuation-NextTableName")
		if nt == "" {
			break
		}
		next = "?NextTableName=" + url.QueryEscape(nt)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, exists := range m.tables {
		if _, uncertain := m.tableInflight[name]; uncertain {
			continue
		}
		if listed[name] != exists {
			t.Fatalf("round %d: table %s: acknowledged exists=%v, after the restart exists=%v", round, name, exists, listed[name])
		}
	}
	for name := range listed {
		if _, known := m.tables[name]; !known && name != "crash" {
			if _, uncertain := m.tableInflight[name]; !uncertain {
				t.Fatalf("round %d: unknown table %s", round, name)
			}
		}
	}
	for name := range m.tables {
		if !listed[name] {
			delete(m.tables, name)
		}
	}
	for name := range listed {
		if name != "crash" {
			m.tables[name] = true
		}
	}
	m.tableInflight = map[string]bool{}
}

func batchBody(pk string, ops []pending) string {
	var b strings.Builder
	b.WriteString("--batch_crash\r\nContent-Type: multipart/mixed; boundary=changeset_crash\r\n\r\n")
	for _, o := range ops {
		fmt.Fprintf(&b, "--changeset_crash\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		fmt.Fprintf(&b, "POST http://127.0.0.1/devstoreaccount1/crash HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nPrefer: return-no-content\r\n\r\n")
		fmt.Fprintf(&b, `{"PartitionKey":%q,"RowKey":%q,"V":%d}`+"\r\n", pk, o.rk, o.v)
	}
	b.WriteString("--changeset_crash--\r\n--batch_crash--\r\n")
	return b.String()
}

// verify reads the whole table back and checks it against the model, then
// settles every in-flight write according to what the server kept.
func (m *model) verify(t *testing.T, s *crashServer, round int) {
	t.Helper()
	m.verifyTables(t, s, round)
	got := map[string]int{}
	gotETag := map[string]string{}
	next := ""
	for {
		code, body, hdr := s.doH("GET", "/crash()"+next, "", map[string]string{"Accept": "application/json;odata=minimalmetadata"})
		if code != 200 {
			t.Fatalf("round %d: query: %d %s\n%s", round, code, body, s.log.String())
		}
		var page struct {
			Value []struct {
				RowKey    string
				V         int
				ETag      string `json:"odata.etag"`
				Timestamp string
			} `json:"value"`
		}
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Value {
			got[e.RowKey] = e.V
			gotETag[e.RowKey] = e.ETag
			// The ETag is the Timestamp: both must have come back.
			if want := `W/"datetime'` + url.QueryEscape(e.Timestamp) + `'"`; e.ETag != want {
				t.Fatalf("round %d: %s: ETag %s does not match its Timestamp %s", round, e.RowKey, e.ETag, e.Timestamp)
			}
		}
		npk, nrk := hdr.Get("x-ms-continuation-NextPartitionKey"), hdr.Get("x-ms-continuation-NextRowKey")
		if npk == "" {
			break
		}
		next = "?NextPartitionKey=" + url.QueryEscape(npk) + "&NextRowKey=" + url.QueryEscape(nrk)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	uncertain := map[string]bool{}
	for c, ops := range m.inflight {
		landed := 0
		for _, o := range ops {
			uncertain[o.rk] = true
			v, ok := got[o.rk]
			old, hadOld := m.want[o.rk]
			switch {
			case o.v < 0 && !ok || o.v >= 0 && ok && v == o.v:
				landed++
			case ok != hadOld || ok && v != old:
				t.Fatalf("round %d: %s is neither as before nor as written (V=%d, present %v)", round, o.rk, v, ok)
			}
		}
		if len(ops) > 1 && landed != 0 && landed != len(ops) {
			t.Fatalf("round %d: client %d: a batch is partly there (%d of %d)", round, c, landed, len(ops))
		}
		if landed == len(ops) {
			for _, o := range ops {
				if o.v < 0 {
					delete(m.want, o.rk)
				} else {
					m.want[o.rk] = o.v
				}
			}
		}
		for _, o := range ops {
			delete(m.etag, o.rk) // unknown: the answer never came
		}
	}
	for rk, v := range m.want {
		if g, ok := got[rk]; !ok && !uncertain[rk] {
			t.Fatalf("round %d: acknowledged entity %s lost", round, rk)
		} else if ok && g != v && !uncertain[rk] {
			t.Fatalf("round %d: %s has V=%d, acknowledged V=%d", round, rk, g, v)
		}
	}
	for rk := range got {
		if _, ok := m.want[rk]; !ok && !uncertain[rk] {
			t.Fatalf("round %d: unknown entity %s", round, rk)
		}
	}
	checked := 0
	for rk, etag := range m.etag {
		if uncertain[rk] {
			continue
		}
		if g, ok := gotETag[rk]; ok && g != etag {
			t.Fatalf("round %d: %s came back with ETag %s, acknowledged with %s", round, rk, g, etag)
		}
		checked++
	}
	if round > 0 && len(m.want) > 0 && checked == 0 {
		t.Fatalf("round %d: no acknowledged ETag to check", round)
	}
	t.Logf("round %d: %d entities, %d ETags and %d tables checked", round, len(got), checked, len(m.tables))
	// Re-read the settled state: what the server holds is the truth now.
	m.want = got
	m.etag = gotETag
	m.inflight = map[int][]pending{}
}

// TestGracefulShutdown stops the server with SIGTERM: it exits cleanly,
// releases its directory, and a restart finds the data.
func TestGracefulShutdown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	srv := startCrashServer(t, bin, data)
	if code, body := srv.do("POST", "/Tables", `{"TableName":"kept"}`, nil); code != 201 {
		t.Fatalf("%d %s", code, body)
	}
	// A second server on the same directory is refused.
	second := exec.Command(bin, "-table-addr", "127.0.0.1:0", "-blob-addr=", "-queue-addr=", "-site-addr=", "-data", data)
	if out, err := second.CombinedOutput(); err == nil || !strings.Contains(string(out), "in use") {
		t.Fatalf("second server on the same directory: %v %s", err, out)
	}
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, srv.log.String())
		}
	case <-time.After(15 * time.Second):
		srv.cmd.Process.Kill()
		t.Fatal("no exit within 15 s of SIGTERM")
	}
	if !strings.Contains(srv.log.String(), "shutting down") {
		t.Fatalf("log: %s", srv.log.String())
	}
	srv = startCrashServer(t, bin, data)
	defer srv.kill()
	if code, _ := srv.do("GET", "/Tables('kept')", "", nil); code != 200 {
		t.Fatalf("after restart: %d", code)
	}
}
