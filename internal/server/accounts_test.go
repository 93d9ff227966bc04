//go:build !js

package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/durable/persist"
	"github.com/tablelab/tablelab/engine/queue"
)

var (
	alice = auth.Account{Name: "alice", Keys: [][]byte{[]byte("alice's key, which only she holds")}}
	bob   = auth.Account{Name: "bob", Keys: [][]byte{[]byte("bob's key, which only he holds")}}
)

func sdkCtx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// clients are one account's Go SDK clients of the three services, made
// from its connection string.
type clients struct {
	tables *aztables.ServiceClient
	blobs  *azblob.Client
	queues *azqueue.ServiceClient
}

func clientsOf(t *testing.T, s *Server, account string) clients {
	t.Helper()
	conn := s.AccountConnectionString(account)
	if conn == "" {
		t.Fatalf("no connection string for %s", account)
	}
	var c clients
	var err error
	if c.tables, err = aztables.NewServiceClientFromConnectionString(conn, nil); err != nil {
		t.Fatal(err)
	}
	if c.blobs, err = azblob.NewClientFromConnectionString(conn, nil); err != nil {
		t.Fatal(err)
	}
	if c.queues, err = azqueue.NewServiceClientFromConnectionString(conn, nil); err != nil {
		t.Fatal(err)
	}
	return c
}

// list returns the names of the account's tables, containers and queues.
func (c clients) list(t *testing.T) (tables, containers, queues []string) {
	t.Helper()
	tables = names(t, c.tables.NewListTablesPager(nil), func(p aztables.ListTablesResponse) (out []*string) {
		for _, tb := range p.Tables {
			out = append(out, tb.Name)
		}
		return out
	})
	containers = names(t, c.blobs.NewListContainersPager(nil), func(p azblob.ListContainersResponse) (out []*string) {
		for _, ct := range p.ContainerItems {
			out = append(out, ct.Name)
		}
		return out
	})
	queues = names(t, c.queues.NewListQueuesPager(nil), func(p azqueue.ListQueuesResponse) (out []*string) {
		for _, q := range p.Queues {
			out = append(out, q.Name)
		}
		return out
	})
	return tables, containers, queues
}

// names pages through a listing and returns the names of every page.
func names[T any](t *testing.T, p *runtime.Pager[T], of func(T) []*string) []string {
	t.Helper()
	var out []string
	for p.More() {
		page, err := p.NextPage(sdkCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range of(page) {
			out = append(out, *n)
		}
	}
	return out
}

// make writes, as c's account, a table "orders" with the entity
// (p, r, Owner: owner), a container "photos" with the blob "a.jpg"
// holding owner, and a queue "jobs".
func (c clients) make(t *testing.T, owner string) {
	t.Helper()
	if _, err := c.tables.CreateTable(sdkCtx(t), "orders", nil); err != nil {
		t.Fatalf("%s: create table: %v", owner, err)
	}
	entity, _ := json.Marshal(map[string]string{"PartitionKey": "p", "RowKey": "r", "Owner": owner})
	if _, err := c.tables.NewClient("orders").AddEntity(sdkCtx(t), entity, nil); err != nil {
		t.Fatalf("%s: insert: %v", owner, err)
	}
	if _, err := c.blobs.CreateContainer(sdkCtx(t), "photos", nil); err != nil {
		t.Fatalf("%s: create container: %v", owner, err)
	}
	if _, err := c.blobs.UploadBuffer(sdkCtx(t), "photos", "a.jpg", []byte(owner), nil); err != nil {
		t.Fatalf("%s: upload: %v", owner, err)
	}
	if _, err := c.queues.CreateQueue(sdkCtx(t), "jobs", nil); err != nil {
		t.Fatalf("%s: create queue: %v", owner, err)
	}
}

// owner reads back, as c's account, the Owner of its entity and the
// text of its blob.
func (c clients) owner(t *testing.T) (entity, blob string) {
	t.Helper()
	got, err := c.tables.NewClient("orders").GetEntity(sdkCtx(t), "p", "r", nil)
	if err != nil {
		t.Fatalf("get entity: %v", err)
	}
	var e struct{ Owner string }
	if err := json.Unmarshal(got.Value, &e); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := c.blobs.DownloadBuffer(sdkCtx(t), "photos", "a.jpg", buf, nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	return e.Owner, string(buf[:n])
}

func code(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// TestAccountsIsolated drives two accounts with the real Go SDKs, each
// signing with its own key, in memory and on disk: what one makes the
// other neither lists nor reads, and each makes the same names as its
// own; what the development account sees is its own alone.
func TestAccountsIsolated(t *testing.T) {
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "data")} {
		cfg := loopbackConfig(dir)
		cfg.Accounts = []auth.Account{auth.DevAccount(), alice, bob}
		s := start(t, cfg)
		a, b, dev := clientsOf(t, s, "alice"), clientsOf(t, s, "bob"), clientsOf(t, s, auth.DevAccountName)
		a.make(t, "alice")

		for name, c := range map[string]clients{"bob": b, "the development account": dev} {
			if tables, containers, queues := c.list(t); len(tables)+len(containers)+len(queues) != 0 {
				t.Errorf("memory %v: %s lists alice's: tables %q, containers %q, queues %q", dir == "", name, tables, containers, queues)
			}
			if _, err := c.tables.NewClient("orders").GetEntity(sdkCtx(t), "p", "r", nil); code(err) != "TableNotFound" {
				t.Errorf("memory %v: %s reads alice's entity: %v, want TableNotFound", dir == "", name, err)
			}
			if _, err := c.blobs.ServiceClient().NewContainerClient("photos").GetProperties(sdkCtx(t), nil); !bloberror.HasCode(err, bloberror.ContainerNotFound) {
				t.Errorf("memory %v: %s reads alice's container: %v, want ContainerNotFound", dir == "", name, err)
			}
		}
		// The same names, made by bob, are his: no TableAlreadyExists,
		// no ContainerAlreadyExists, and each reads back its own.
		b.make(t, "bob")
		if e, bl := a.owner(t); e != "alice" || bl != "alice" {
			t.Errorf("memory %v: alice reads back entity %q, blob %q", dir == "", e, bl)
		}
		if e, bl := b.owner(t); e != "bob" || bl != "bob" {
			t.Errorf("memory %v: bob reads back entity %q, blob %q", dir == "", e, bl)
		}
		// Deleting bob's leaves alice's.
		if _, err := b.tables.DeleteTable(sdkCtx(t), "orders", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := b.blobs.DeleteContainer(sdkCtx(t), "photos", nil); err != nil {
			t.Fatal(err)
		}
		if tables, containers, queues := a.list(t); !slices.Equal(tables, []string{"orders"}) || !slices.Equal(containers, []string{"photos"}) || !slices.Equal(queues, []string{"jobs"}) {
			t.Errorf("memory %v: after bob's deletes, alice lists tables %q, containers %q, queues %q", dir == "", tables, containers, queues)
		}
		s.Close()
	}
}

// TestForeignKeyRefused: bob's key opens none of alice's data, whether
// he signs as alice with it (Shared Key) or mints a SAS with it, as
// himself or as alice; the same SAS works on his own account, so the
// refusal is the key's, not the token's.
func TestForeignKeyRefused(t *testing.T) {
	cfg := loopbackConfig("")
	cfg.Accounts = []auth.Account{auth.DevAccount(), alice, bob}
	s := start(t, cfg)
	clientsOf(t, s, "alice").make(t, "alice")
	clientsOf(t, s, "bob").make(t, "bob")
	aliceTables, aliceBlobs := s.AccountURL("Table", "alice"), s.AccountURL("Blob", "alice")
	bobKey := base64.StdEncoding.EncodeToString(bob.Keys[0])

	// Shared Key: bob's key, signing as alice.
	tcred, err := aztables.NewSharedKeyCredential("alice", bobKey)
	if err != nil {
		t.Fatal(err)
	}
	forged, err := aztables.NewServiceClientWithSharedKey(aliceTables+"/", tcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forged.NewClient("orders").GetEntity(sdkCtx(t), "p", "r", nil); code(err) != "AuthenticationFailed" {
		t.Errorf("alice's entity, signed with bob's key: %v, want AuthenticationFailed", err)
	}
	bcred, err := azblob.NewSharedKeyCredential("alice", bobKey)
	if err != nil {
		t.Fatal(err)
	}
	forgedBlobs, err := azblob.NewClientWithSharedKeyCredential(aliceBlobs+"/", bcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := forgedBlobs.DownloadBuffer(sdkCtx(t), "photos", "a.jpg", make([]byte, 64), nil); !bloberror.HasCode(err, bloberror.AuthenticationFailed) {
		t.Errorf("alice's blob, signed with bob's key: %v, want AuthenticationFailed", err)
	}

	// SAS: account SAS tokens for every service, minted with bob's key,
	// as bob and as alice.
	sasOf := func(account string) string {
		cred, err := aztables.NewSharedKeyCredential(account, bobKey)
		if err != nil {
			t.Fatal(err)
		}
		q, err := aztables.AccountSASSignatureValues{
			Protocol: aztables.SASProtocolHTTPSandHTTP, StartTime: time.Now().Add(-time.Minute), ExpiryTime: time.Now().Add(time.Hour),
			Permissions: "rl", Services: "bqt", ResourceTypes: "sco",
		}.Sign(cred)
		if err != nil {
			t.Fatal(err)
		}
		return q.Encode()
	}
	for _, c := range []struct {
		who, sas string
	}{{"bob's own SAS", sasOf("bob")}, {"a SAS for alice signed with bob's key", sasOf("alice")}} {
		onAlice, err := aztables.NewClientWithNoCredential(aliceTables+"/orders?"+c.sas, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := onAlice.GetEntity(sdkCtx(t), "p", "r", nil); code(err) != "AuthenticationFailed" {
			t.Errorf("%s on alice's entity: %v, want AuthenticationFailed", c.who, err)
		}
		resp, err := http.Get(aliceBlobs + "/photos/a.jpg?" + c.sas)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("%s on alice's blob: %d, want 403", c.who, resp.StatusCode)
		}
	}
	own, err := aztables.NewClientWithNoCredential(s.AccountURL("Table", "bob")+"/orders?"+sasOf("bob"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := own.GetEntity(sdkCtx(t), "p", "r", nil)
	if err != nil || !strings.Contains(string(got.Value), `"Owner":"bob"`) {
		t.Errorf("bob's SAS on his own entity: %v %s", err, got.Value)
	}
	status, body := send(t, "GET", s.AccountURL("Blob", "bob")+"/photos/a.jpg?"+sasOf("bob"), "")
	if status != 200 || body != "bob" {
		t.Errorf("bob's SAS on his own blob: %d %q", status, body)
	}
}

// TestBatchAndPagingInAccount: a $batch and a query paged by
// continuation tokens work in an account that is not the first, against
// its own tables only.
func TestBatchAndPagingInAccount(t *testing.T) {
	cfg := loopbackConfig("")
	cfg.Accounts = []auth.Account{auth.DevAccount(), alice, bob}
	s := start(t, cfg)
	a, b := clientsOf(t, s, "alice"), clientsOf(t, s, "bob")
	a.make(t, "alice")
	b.make(t, "bob")
	orders := b.tables.NewClient("orders")
	var actions []aztables.TransactionAction
	for _, rk := range []string{"r1", "r2", "r3", "r4", "r5"} {
		e, _ := json.Marshal(map[string]string{"PartitionKey": "p", "RowKey": rk})
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: e})
	}
	if _, err := orders.SubmitTransaction(sdkCtx(t), actions, nil); err != nil {
		t.Fatalf("bob's batch: %v", err)
	}
	var keys []string
	pages := 0
	for p := orders.NewListEntitiesPager(&aztables.ListEntitiesOptions{Top: to.Ptr[int32](2)}); p.More(); {
		page, err := p.NextPage(sdkCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, raw := range page.Entities {
			var e struct{ RowKey string }
			json.Unmarshal(raw, &e)
			keys = append(keys, e.RowKey)
		}
	}
	if want := []string{"r", "r1", "r2", "r3", "r4", "r5"}; !slices.Equal(keys, want) || pages != 3 {
		t.Errorf("bob's entities in %d pages: %q, want %q in 3", pages, keys, want)
	}
	page, err := s.account("alice").tables.Query("orders", engine.Query{})
	if err != nil || len(page.Entities) != 1 {
		t.Errorf("alice's table after bob's batch: %v, %d entities, want 1", err, len(page.Entities))
	}
}

// TestUnknownAccount: a request naming an account the server does not
// know reaches the first account's core, whose verifier refuses it, as
// before accounts had stores of their own.
func TestUnknownAccount(t *testing.T) {
	cfg := loopbackConfig("")
	cfg.Accounts = []auth.Account{auth.DevAccount(), alice}
	s := start(t, cfg)
	nobody := strings.Replace(s.URL("Table"), auth.DevAccountName, "nobody", 1)
	status, body := send(t, "GET", nobody+"/Tables", "", "Accept", "application/json")
	if status != 403 || !strings.Contains(body, "AuthorizationFailure") {
		t.Errorf("an unknown account's table list: %d %s", status, body)
	}
	status, body = send(t, "GET", strings.Replace(s.URL("Blob"), auth.DevAccountName, "nobody", 1)+"?comp=list", "")
	if status != 403 || !strings.Contains(body, "AuthorizationFailure") {
		t.Errorf("an unknown account's container list: %d %s", status, body)
	}
}

// TestAccountNames: an account whose name the service would not take,
// which would also name a directory, stops the server at its start.
func TestAccountNames(t *testing.T) {
	for _, name := range []string{"..", "a/b", "Alice", "ab", "alice-secondary", strings.Repeat("a", 25)} {
		cfg := Config{TableAddr: "127.0.0.1:0", DataDir: t.TempDir(), Accounts: []auth.Account{{Name: name, Keys: alice.Keys}}}
		if s, err := Open(cfg); err == nil {
			s.Close()
			t.Errorf("account %q: opened", name)
		}
	}
	if s, err := Open(Config{TableAddr: "127.0.0.1:0", Memory: true, Accounts: []auth.Account{{Name: "alice"}}}); err == nil {
		s.Close()
		t.Error("an account without a key: opened")
	}
}

// TestDevAccountLayout opens a data directory laid out as the server
// wrote it when every account shared the tables and containers (the
// tables in the directory itself, the containers in blobs/, the queues
// in queues/), written here with the stores alone: the development
// account finds its data there; another account, configured now, starts
// empty in accounts/NAME/, and the development account's files stay where
// they were.
func TestDevAccountLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	tables, err := persist.Open(dir, persist.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tables.Store.CreateTable("older"); err != nil {
		t.Fatal(err)
	}
	if _, err := tables.Store.Write("older", engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: "p", RowKey: "r"}}); err != nil {
		t.Fatal(err)
	}
	blobs, err := persist.Open(filepath.Join(dir, "blobs"), persist.Options{NoSync: true, OpenKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := blob.New(blobs.Store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bs.CreateContainer("oldphotos", nil); err != nil {
		t.Fatal(err)
	}
	queues, err := persist.Open(filepath.Join(dir, "queues"), persist.Options{NoSync: true, OpenKeys: true})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := queue.New(queues.Store)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qs.Create(auth.DevAccountName, "oldjobs", nil); err != nil {
		t.Fatal(err)
	}
	for _, db := range []*persist.DB{tables, blobs, queues} {
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	before := layout(t, dir)

	cfg := loopbackConfig(dir)
	cfg.Accounts = []auth.Account{auth.DevAccount(), alice}
	s := start(t, cfg)
	dev, a := clientsOf(t, s, auth.DevAccountName), clientsOf(t, s, "alice")
	if tb, ct, q := dev.list(t); !slices.Equal(tb, []string{"older"}) || !slices.Equal(ct, []string{"oldphotos"}) || !slices.Equal(q, []string{"oldjobs"}) {
		t.Errorf("the development account lists tables %q, containers %q, queues %q", tb, ct, q)
	}
	if _, err := dev.tables.NewClient("older").GetEntity(sdkCtx(t), "p", "r", nil); err != nil {
		t.Errorf("the development account's entity: %v", err)
	}
	if tb, ct, q := a.list(t); len(tb)+len(ct)+len(q) != 0 {
		t.Errorf("alice lists tables %q, containers %q, queues %q", tb, ct, q)
	}
	s.Close()
	after := layout(t, dir)
	for _, f := range before {
		if !slices.Contains(after, f) {
			t.Errorf("%s was there before and is gone", f)
		}
	}
	for _, f := range after {
		if !slices.Contains(before, f) && !strings.HasPrefix(f, "accounts/alice/") && !strings.HasPrefix(f, "settings/") && f != "accounts" && f != "accounts/alice" && f != "settings" {
			t.Errorf("%s is new, outside accounts/alice/ and settings/", f)
		}
	}
	for _, f := range []string{"accounts/alice/LOCK", "accounts/alice/blobs/LOCK"} {
		if !slices.Contains(after, f) {
			t.Errorf("no %s: alice's stores are not where they belong (%q)", f, after)
		}
	}
	if slices.Contains(after, "accounts/alice/queues") || slices.Contains(after, "accounts/alice/settings") {
		t.Errorf("alice has a queue or settings store of her own: %q", after)
	}
}

// layout lists the directories and the LOCK, log and snapshot files
// under dir, relative to it, with forward slashes.
func layout(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		name := d.Name()
		if d.IsDir() || name == "LOCK" || strings.HasPrefix(name, "log-") || strings.HasPrefix(name, "snap-") {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAccountsOverRestarts: an account's data outlives a restart; an
// account added to the list later starts empty beside the others; one
// left off the list keeps its files, unserved and unmixed with anyone's,
// and has its data again once listed again.
func TestAccountsOverRestarts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := loopbackConfig(dir)
	cfg.Loose = true
	s := start(t, cfg) // the development account alone
	fill(t, s, auth.DevAccountName, "dev")
	s.Close()

	cfg.Accounts = []auth.Account{auth.DevAccount(), alice}
	s = start(t, cfg)
	if tb, q, c, cors, p := holds(t, s, "alice", "ordersalice"); tb+q+c+cors+p != 0 {
		t.Fatalf("alice, listed later, starts with %d tables, %d queues, %d containers, %d CORS rules, %d policies", tb, q, c, cors, p)
	}
	fill(t, s, "alice", "alice")
	s.Close()

	s = start(t, cfg)
	for _, c := range []struct{ account, table string }{{auth.DevAccountName, "ordersdev"}, {"alice", "ordersalice"}} {
		if tb, q, ct, cors, p := holds(t, s, c.account, c.table); tb != 1 || q != 1 || ct != 1 || cors != 1 || p != 1 {
			t.Errorf("after a restart, %s has %d tables, %d queues, %d containers, %d CORS rules, %d policies; want 1 each", c.account, tb, q, ct, cors, p)
		}
	}
	s.Close()

	cfg.Accounts = nil
	s = start(t, cfg)
	if tb, _, c, _, _ := holds(t, s, auth.DevAccountName, "ordersdev"); tb != 1 || c != 1 {
		t.Errorf("alice left off the list: the development account has %d tables, %d containers; want its own 1 each", tb, c)
	}
	if _, err := os.Stat(filepath.Join(dir, "accounts", "alice", "LOCK")); err != nil {
		t.Errorf("alice left off the list: her files: %v", err)
	}
	s.Close()

	cfg.Accounts = []auth.Account{auth.DevAccount(), alice}
	s = start(t, cfg)
	if tb, q, c, cors, p := holds(t, s, "alice", "ordersalice"); tb != 1 || q != 1 || c != 1 || cors != 1 || p != 1 {
		t.Errorf("alice listed again has %d tables, %d queues, %d containers, %d CORS rules, %d policies; want 1 each", tb, q, c, cors, p)
	}
}
