//go:build !js

package server

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/valyala/fasthttp"
)

// loopbackConfig is a server of all three services on free loopback
// ports, in memory unless dir is given.
func loopbackConfig(dir string) Config {
	return Config{BlobAddr: "127.0.0.1:0", QueueAddr: "127.0.0.1:0", TableAddr: "127.0.0.1:0", DataDir: dir, Memory: dir == ""}
}

func start(t *testing.T, cfg Config) *Server {
	t.Helper()
	s, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// send makes a request with no credentials and returns its status and
// body.
func send(t *testing.T, method, url, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if strings.HasPrefix(body, "{") {
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

// serve answers one request with svc's front end as if it came from
// remote, without a socket: the checks that depend on the client's
// address, and a server that does not serve yet.
func serve(s *Server, svc *Service, remote, method, target string, header ...string) (int, string) {
	var req fasthttp.Request
	req.Header.SetMethod(method)
	req.SetRequestURI(target)
	req.Header.SetHost("127.0.0.1:10002")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	var ctx fasthttp.RequestCtx
	addr, _ := net.ResolveTCPAddr("tcp", remote)
	ctx.Init(&req, addr, nil)
	s.frontEnd(svc).Handler(&ctx)
	return ctx.Response.StatusCode(), string(ctx.Response.Body())
}

// TestHealth checks /alive and /ready on every service port: both 200
// while the server serves; before it serves, /ready is 503 while /alive
// is 200; a request with a query string or more path is the service's,
// and anything but GET or HEAD is 405.
func TestHealth(t *testing.T) {
	s := start(t, loopbackConfig(""))
	for _, name := range []string{"Blob", "Queue", "Table"} {
		base := strings.TrimSuffix(s.URL(name), "/"+auth.DevAccountName)
		for _, path := range []string{"/alive", "/ready"} {
			if status, body := send(t, "GET", base+path, ""); status != 200 || body != strings.TrimPrefix(path, "/")+"\n" {
				t.Errorf("%s GET %s: %d %q", name, path, status, body)
			}
			if status, _ := send(t, "HEAD", base+path, ""); status != 200 {
				t.Errorf("%s HEAD %s: %d", name, path, status)
			}
			if status, _ := send(t, "POST", base+path, ""); status != 405 {
				t.Errorf("%s POST %s: %d, want 405", name, path, status)
			}
		}
		// An account named "ready" asking for its service properties is
		// the service's request, not a probe.
		if status, body := send(t, "GET", base+"/ready/?restype=service&comp=properties", ""); status == 200 || body == "ready\n" {
			t.Errorf("%s: a request of account ready answered as a probe: %d %q", name, status, body)
		}
	}

	// A server open but not yet serving is alive and not ready; one
	// stopping is not ready either.
	idle, err := Open(Config{TableAddr: "127.0.0.1:0", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	table := idle.Services()[0]
	if status, body := serve(idle, table, "127.0.0.1:5000", "GET", "/ready"); status != 503 || !strings.Contains(body, "not ready") {
		t.Errorf("/ready before Serve: %d %q", status, body)
	}
	if status, _ := serve(idle, table, "127.0.0.1:5000", "GET", "/alive"); status != 200 {
		t.Errorf("/alive before Serve: %d", status)
	}
	if err := idle.Listen(); err != nil {
		t.Fatal(err)
	}
	idle.Serve()
	if status, _ := serve(idle, table, "127.0.0.1:5000", "GET", "/ready"); status != 200 {
		t.Errorf("/ready once serving: %d", status)
	}
	idle.Close()
	if status, _ := serve(idle, table, "127.0.0.1:5000", "GET", "/ready"); status != 503 {
		t.Errorf("/ready once closed: %d", status)
	}
}

const corsXML = `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors>` +
	`<CorsRule><AllowedOrigins>http://app.test</AllowedOrigins><AllowedMethods>GET</AllowedMethods><AllowedHeaders></AllowedHeaders>` +
	`<ExposedHeaders></ExposedHeaders><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>`

// fill writes, as account, a table with an entity, a queue with a
// message, a container with a blob, a CORS rule and a table's stored
// access policy.
func fill(t *testing.T, s *Server, account, suffix string) {
	t.Helper()
	table := strings.Replace(s.URL("Table"), auth.DevAccountName, account, 1)
	queue := strings.Replace(s.URL("Queue"), auth.DevAccountName, account, 1)
	blobs := strings.Replace(s.URL("Blob"), auth.DevAccountName, account, 1)
	for _, r := range []struct {
		method, url, body string
		want              int
	}{
		{"POST", table + "/Tables", `{"TableName":"orders` + suffix + `"}`, 201},
		{"POST", table + "/orders" + suffix, `{"PartitionKey":"p","RowKey":"r"}`, 201},
		{"PUT", queue + "/jobs" + suffix, "", 201},
		{"POST", queue + "/jobs" + suffix + "/messages", "<QueueMessage><MessageText>hi</MessageText></QueueMessage>", 201},
		{"PUT", blobs + "/files" + suffix + "?restype=container", "", 201},
		{"PUT", blobs + "/files" + suffix + "/a.txt", "text", 201},
	} {
		var status int
		var body string
		if strings.Contains(r.url, "a.txt") {
			status, body = send(t, r.method, r.url, r.body, "x-ms-blob-type", "BlockBlob")
		} else {
			status, body = send(t, r.method, r.url, r.body)
		}
		if status != r.want {
			t.Fatalf("%s %s: %d %s", r.method, r.url, status, body)
		}
	}
	if err := s.settings.SetProperties(account, []byte(corsXML)); err != nil {
		t.Fatal(err)
	}
	if err := s.settings.SetACL(account, "orders"+suffix, []byte(`<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>readers</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`)); err != nil {
		t.Fatal(err)
	}
}

// holds reports what account sees: its tables, queues, containers, CORS
// rules and the stored access policies of table.
func holds(t *testing.T, s *Server, account, table string) (tables, queues, containers, cors, policies int) {
	t.Helper()
	a := s.account(account)
	page, err := a.tables.QueryTables(engine.TableQuery{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := s.queues.List(account, queue.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := a.blobs.ListContainers("", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := s.settings.CorsRules(account)
	if err != nil {
		t.Fatal(err)
	}
	acl, err := s.settings.ACLXML(account, table)
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Names), len(q.Queues), len(c.Containers), len(rules), strings.Count(string(acl), "<SignedIdentifier>")
}

// TestResetRequest checks POST /_tablelab/reset on a service port: with
// ?account= it empties that account's tables, queues, containers and
// settings and leaves another account's all there; without, it empties
// everything. Its answer counts what went.
func TestResetRequest(t *testing.T) {
	other := auth.Account{Name: "other", Keys: [][]byte{[]byte("other's key")}}
	cfg := loopbackConfig("")
	cfg.Loose = true
	cfg.Accounts = []auth.Account{auth.DevAccount(), other}
	s := start(t, cfg)
	fill(t, s, auth.DevAccountName, "dev")
	fill(t, s, "other", "other")
	for _, c := range []struct{ account, table string }{{auth.DevAccountName, "ordersdev"}, {"other", "ordersother"}} {
		if tb, q, ct, cors, p := holds(t, s, c.account, c.table); tb != 1 || q != 1 || ct != 1 || cors != 1 || p != 1 {
			t.Fatalf("before: %s sees %d tables, %d queues, %d containers, %d CORS rules, %d policies; want 1 each", c.account, tb, q, ct, cors, p)
		}
	}

	reset := strings.TrimSuffix(s.URL("Queue"), "/"+auth.DevAccountName) + ResetPath
	status, body := send(t, "POST", reset+"?account=other", "")
	var got Cleared
	if status != 200 || json.Unmarshal([]byte(body), &got) != nil || got != (Cleared{Tables: 1, Queues: 1, Containers: 1}) {
		t.Fatalf("reset of other: %d %s", status, body)
	}
	if tb, q, c, cors, p := holds(t, s, "other", "ordersother"); tb+q+c+cors+p != 0 {
		t.Errorf("after its reset, other sees %d tables, %d queues, %d containers, %d CORS rules, %d policies", tb, q, c, cors, p)
	}
	if tb, q, c, cors, p := holds(t, s, auth.DevAccountName, "ordersdev"); tb != 1 || q != 1 || c != 1 || cors != 1 || p != 1 {
		t.Errorf("after other's reset, the development account keeps %d tables, %d queues, %d containers, %d CORS rules, %d policies; want 1 each", tb, q, c, cors, p)
	}
	// The development account's entity and blob are still read back.
	if status, body := send(t, "GET", s.URL("Table")+"/ordersdev(PartitionKey='p',RowKey='r')", "", "Accept", "application/json;odata=nometadata"); status != 200 {
		t.Errorf("the development account's entity after other's reset: %d %s", status, body)
	}
	if status, body := send(t, "GET", s.URL("Blob")+"/filesdev/a.txt", ""); status != 200 || body != "text" {
		t.Errorf("the development account's blob after other's reset: %d %q", status, body)
	}

	fill(t, s, "other", "other")
	status, body = send(t, "POST", reset, "")
	if status != 200 || json.Unmarshal([]byte(body), &got) != nil || got != (Cleared{Tables: 2, Queues: 2, Containers: 2}) {
		t.Fatalf("reset of all: %d %s", status, body)
	}
	for _, account := range []string{auth.DevAccountName, "other"} {
		if tb, q, c, cors, p := holds(t, s, account, "orders"); tb+q+c+cors+p != 0 {
			t.Errorf("after the reset of all, %s sees %d tables, %d queues, %d containers, %d CORS rules, %d policies", account, tb, q, c, cors, p)
		}
	}
	// What a reset left is a working server: the same names are made
	// again.
	fill(t, s, "other", "other")
	fill(t, s, auth.DevAccountName, "dev")
}

// TestResetIsLocalOnly checks who may reset: a client on this machine,
// naming a loopback host, and, from a browser, a page of this machine;
// only by POST; only a known account.
func TestResetIsLocalOnly(t *testing.T) {
	s := start(t, Config{TableAddr: "127.0.0.1:0", Memory: true})
	table := s.Services()[0]
	for _, c := range []struct {
		remote, method, target string
		header                 []string
		want                   int
	}{
		{"127.0.0.1:5000", "POST", ResetPath, nil, 200},
		{"[::1]:5000", "POST", ResetPath, []string{"Origin", "http://127.0.0.1:8080"}, 200},
		{"127.0.0.1:5000", "POST", ResetPath + "?account=devstoreaccount1-secondary", nil, 200},
		{"10.1.2.3:5000", "POST", ResetPath, nil, 403},
		{"127.0.0.1:5000", "POST", ResetPath, []string{"Host", "rebound.example"}, 403},
		{"127.0.0.1:5000", "POST", ResetPath, []string{"Origin", "https://evil.example"}, 403},
		{"127.0.0.1:5000", "GET", ResetPath, nil, 405},
		{"127.0.0.1:5000", "POST", ResetPath + "?account=nobody", nil, 404},
		{"127.0.0.1:5000", "POST", "/_tablelab/other", nil, 404},
	} {
		if status, body := serve(s, table, c.remote, c.method, c.target, c.header...); status != c.want {
			t.Errorf("%s %s from %s %q: %d %q, want %d", c.method, c.target, c.remote, c.header, status, body, c.want)
		}
	}
}

// TestResetFlag checks Config.Reset (-reset) on a data directory: the
// stores open empty, and stay empty after a restart without it.
func TestResetFlag(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := loopbackConfig(dir)
	cfg.Loose = true
	s := start(t, cfg)
	fill(t, s, auth.DevAccountName, "")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = start(t, cfg)
	if tb, q, c, cors, p := holds(t, s, auth.DevAccountName, "orders"); tb != 1 || q != 1 || c != 1 || cors != 1 || p != 1 {
		t.Fatalf("a restart lost data: %d tables, %d queues, %d containers, %d CORS rules, %d policies", tb, q, c, cors, p)
	}
	s.Close()
	var logged []string
	cfg.Reset = true
	cfg.Logf = func(f string, args ...any) { logged = append(logged, f) }
	s = start(t, cfg)
	if tb, q, c, cors, p := holds(t, s, auth.DevAccountName, "orders"); tb+q+c+cors+p != 0 {
		t.Fatalf("after -reset: %d tables, %d queues, %d containers, %d CORS rules, %d policies", tb, q, c, cors, p)
	}
	if !strings.Contains(strings.Join(logged, "\n"), "-reset: removed") {
		t.Errorf("the log does not say what -reset removed: %q", logged)
	}
	s.Close()
	cfg.Reset = false
	s = start(t, cfg)
	if tb, q, c, cors, p := holds(t, s, auth.DevAccountName, "orders"); tb+q+c+cors+p != 0 {
		t.Fatalf("a restart after -reset: %d tables, %d queues, %d containers, %d CORS rules, %d policies", tb, q, c, cors, p)
	}
}

// TestTakenAddresses: a service whose address is taken goes without when
// it may, with a line saying so, and stops the server when it may not.
func TestTakenAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var logged []string
	cfg := Config{BlobAddr: ln.Addr().String(), TableAddr: "127.0.0.1:0", Memory: true, MayBeTaken: map[string]bool{"Blob": true},
		Logf: func(f string, args ...any) { logged = append(logged, f) }}
	s := start(t, cfg)
	if len(s.Serving()) != 1 || s.URL("Blob") != "" || strings.Contains(s.ConnectionString(), "BlobEndpoint") {
		t.Errorf("serving %d, Blob %q, %s", len(s.Serving()), s.URL("Blob"), s.ConnectionString())
	}
	if !strings.Contains(strings.Join(logged, "\n"), "service not served") {
		t.Errorf("log %q", logged)
	}
	cfg.MayBeTaken = nil
	if s, err := Start(cfg); err == nil {
		s.Close()
		t.Error("a taken address that may not be taken: no error")
	}
}

// TestRoutineStoreLines: the stores' restores go to Debugf, the rest of
// what they say to Logf.
func TestRoutineStoreLines(t *testing.T) {
	var mu sync.Mutex
	var notes, debug []string
	cfg := Config{TableAddr: "127.0.0.1:0", DataDir: t.TempDir(),
		Logf:   func(f string, args ...any) { mu.Lock(); notes = append(notes, f); mu.Unlock() },
		Debugf: func(f string, args ...any) { mu.Lock(); debug = append(debug, f); mu.Unlock() }}
	s, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 0 || len(debug) < 4 {
		t.Errorf("notes %q, debug %q", notes, debug)
	}
}

// TestCosmosStores: Cosmos makes the tables' store, in memory or on
// disk, one whose table names differ by case, and leaves the settings'
// store be.
func TestCosmosStores(t *testing.T) {
	for _, memory := range []bool{true, false} {
		for _, cosmos := range []bool{false, true} {
			s := &Server{cfg: Config{Memory: memory, DataDir: filepath.Join(t.TempDir(), "d"), Cosmos: cosmos,
				Logf: func(string, ...any) {}, Debugf: func(string, ...any) {}}}
			for _, k := range []storeKind{tableStore, settingsStore} {
				store, err := s.openStore(k, auth.DevAccountName)
				if err != nil {
					t.Fatal(err)
				}
				if err := store.CreateTable("Orders"); err != nil {
					t.Fatal(err)
				}
				err = store.CreateTable("orders")
				if want := cosmos && k == tableStore; (err == nil) != want {
					t.Errorf("memory %v, cosmos %v, %s store: a second table differing by case: %v (want it made: %v)", memory, cosmos, k.name, err, want)
				}
			}
			s.closeStores()
		}
	}
}

// The server sweeps uncommitted blocks past the service's week, as the
// service does, so an abandoned upload does not keep its data forever.
func TestServerDiscardsWeekOldStagedBlocks(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	store := engine.New(engine.Options{Now: clock, OpenKeys: true})
	svc, err := blob.New(store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateContainer("uploads", nil); err != nil {
		t.Fatal(err)
	}
	if err := svc.PutBlock("uploads", "video.bin", "YmxvY2stMDE=", strings.NewReader("part one"), 8, nil); err != nil {
		t.Fatal(err)
	}
	staged := func() int {
		bl, err := svc.GetBlockList("uploads", "video.bin", true, true, nil)
		if err != nil {
			return 0 // no stage left: the blob does not exist
		}
		return len(bl.Uncommitted)
	}
	stop := discardStaged(svc, 5*time.Millisecond, func(string, ...any) {})
	defer stop()
	time.Sleep(50 * time.Millisecond)
	if staged() != 1 {
		t.Fatal("a block staged moments ago was discarded")
	}
	mu.Lock()
	now = now.Add(blob.StagedLifetime + time.Hour)
	mu.Unlock()
	deadline := time.Now().Add(5 * time.Second)
	for staged() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a block staged over a week ago is still there")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
