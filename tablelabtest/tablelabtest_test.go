//go:build !js

package tablelabtest_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/tablelab/tablelab/tablelabtest"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// tables lists the tables the server at conn holds.
func tables(t *testing.T, svc *aztables.ServiceClient) []string {
	t.Helper()
	var names []string
	pager := svc.NewListTablesPager(nil)
	for pager.More() {
		page, err := pager.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range page.Tables {
			names = append(names, *tb.Name)
		}
	}
	return names
}

func insert(t *testing.T, client *aztables.Client, pk, rk string, props map[string]any) {
	t.Helper()
	e := map[string]any{"PartitionKey": pk, "RowKey": rk}
	for k, v := range props {
		e[k] = v
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.AddEntity(ctx(t), b, nil); err != nil {
		t.Fatalf("insert %s/%s: %v", pk, rk, err)
	}
}

// query returns the RowKeys of the entities filter selects, in order.
func query(t *testing.T, client *aztables.Client, filter string) []string {
	t.Helper()
	var rks []string
	pager := client.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr(filter)})
	for pager.More() {
		page, err := pager.NextPage(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range page.Entities {
			var e struct{ RowKey string }
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			rks = append(rks, e.RowKey)
		}
	}
	return rks
}

// TestGoSDK drives a server with the real Go SDK from its connection
// string: a table made, entities inserted and queried; then Reset between
// subtests leaves the second one an empty server, where the same names
// are made again.
func TestGoSDK(t *testing.T) {
	srv := tablelabtest.Start(t)
	svc, err := aztables.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("insert and query", func(t *testing.T) {
		if _, err := svc.CreateTable(ctx(t), "orders", nil); err != nil {
			t.Fatal(err)
		}
		client := svc.NewClient("orders")
		insert(t, client, "2026-11", "001", map[string]any{"Total": 12})
		insert(t, client, "2026-11", "002", map[string]any{"Total": 99})
		insert(t, client, "2026-12", "003", map[string]any{"Total": 40})
		if got := query(t, client, "PartitionKey eq '2026-11' and Total gt 20"); strings.Join(got, ",") != "002" {
			t.Errorf("query: %q, want [002]", got)
		}
		if got := tables(t, svc); strings.Join(got, ",") != "orders" {
			t.Errorf("tables: %q", got)
		}
	})
	srv.Reset(t)
	t.Run("after Reset", func(t *testing.T) {
		if got := tables(t, svc); len(got) != 0 {
			t.Fatalf("tables after Reset: %q", got)
		}
		if _, err := svc.CreateTable(ctx(t), "orders", nil); err != nil {
			t.Fatalf("the same table made again after Reset: %v", err)
		}
		client := svc.NewClient("orders")
		if got := query(t, client, "PartitionKey eq '2026-11'"); len(got) != 0 {
			t.Errorf("entities after Reset: %q", got)
		}
		insert(t, client, "2026-11", "001", nil)
	})
}

// TestQueueAndBlob: the connection string reaches the Queue and Blob
// services too, with their own SDKs, and Reset empties them.
func TestQueueAndBlob(t *testing.T) {
	srv := tablelabtest.Start(t)
	queues, err := azqueue.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := queues.CreateQueue(ctx(t), "jobs", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := queues.NewQueueClient("jobs").EnqueueMessage(ctx(t), "resize photo 7", nil); err != nil {
		t.Fatal(err)
	}
	blobs, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.CreateContainer(ctx(t), "photos", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs.UploadBuffer(ctx(t), "photos", "7.jpg", []byte("not really a photo"), nil); err != nil {
		t.Fatal(err)
	}
	got, err := queues.NewQueueClient("jobs").PeekMessage(ctx(t), nil)
	if err != nil || len(got.Messages) != 1 || *got.Messages[0].MessageText != "resize photo 7" {
		t.Fatalf("peek: %v %+v", err, got)
	}

	srv.Reset(t)
	list, err := queues.NewListQueuesPager(nil).NextPage(ctx(t))
	if err != nil || len(list.Queues) != 0 {
		t.Errorf("queues after Reset: %v, %d", err, len(list.Queues))
	}
	containers, err := blobs.NewListContainersPager(nil).NextPage(ctx(t))
	if err != nil || len(containers.ContainerItems) != 0 {
		t.Errorf("containers after Reset: %v, %d", err, len(containers.ContainerItems))
	}
}

// TestParallelServers: two tests in parallel each have a server of their
// own, on ports of their own; the same table name holds each one's
// entities only. Each server is closed when its test ends.
func TestParallelServers(t *testing.T) {
	urls := make(chan string, 2)
	t.Run("group", func(t *testing.T) {
		for _, who := range []string{"ann", "bob"} {
			t.Run(who, func(t *testing.T) {
				t.Parallel()
				srv := tablelabtest.Start(t)
				urls <- srv.TableURL
				svc, err := aztables.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
				if err != nil {
					t.Fatal(err)
				}
				client := svc.NewClient("people")
				if _, err := client.CreateTable(ctx(t), nil); err != nil {
					t.Fatal(err)
				}
				for i := range 3 {
					insert(t, client, who, string(rune('a'+i)), nil)
				}
				if got := query(t, client, "RowKey ge ''"); len(got) != 3 {
					t.Errorf("%s's server holds %d people, want its own 3", who, len(got))
				}
				if got := query(t, client, "PartitionKey ne '"+who+"'"); len(got) != 0 {
					t.Errorf("%s's server holds another's entities: %q", who, got)
				}
			})
		}
	})
	close(urls)
	var seen []string
	for u := range urls {
		seen = append(seen, u)
		host := strings.TrimPrefix(u, "http://")
		host = host[:strings.Index(host, "/")]
		if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still answers once its test has ended", u)
		}
	}
	if len(seen) != 2 || seen[0] == seen[1] {
		t.Errorf("the servers' endpoints: %q", seen)
	}
}

// TestEndpoints: the fields name loopback endpoints with the development
// account, and its key signs requests (the SDK above uses the same
// string).
func TestEndpoints(t *testing.T) {
	srv := tablelabtest.Start(t)
	for _, u := range []string{srv.BlobURL, srv.QueueURL, srv.TableURL} {
		p, err := url.Parse(u)
		if err != nil || p.Hostname() != "127.0.0.1" || p.Path != "/"+srv.AccountName {
			t.Errorf("endpoint %q", u)
		}
		if !strings.Contains(srv.ConnectionString, u) {
			t.Errorf("the connection string lacks %s: %s", u, srv.ConnectionString)
		}
	}
	cred, err := aztables.NewSharedKeyCredential(srv.AccountName, srv.AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := aztables.NewServiceClientWithSharedKey(srv.TableURL+"/", cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTable(ctx(t), "signed", nil); err != nil {
		t.Fatal(err)
	}
}

// TestLinksNoSite holds the package to its promise: a test binary that
// imports it links the storage services, not the docs site, its Markdown
// and highlighting, or any Azure SDK.
func TestLinksNoSite(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/tablelab/tablelab/tablelabtest").Output()
	if err != nil {
		t.Fatal(err)
	}
	deps := string(out)
	if !strings.Contains(deps, "github.com/tablelab/tablelab/engine/api/queueapi\n") {
		t.Fatalf("go list -deps does not list the services:\n%s", deps)
	}
	for _, banned := range []string{"github.com/tablelab/tablelab/site/", "github.com/yuin/goldmark", "github.com/alecthomas/chroma", "github.com/Azure/azure-sdk-for-go", "github.com/syumai/workers"} {
		if strings.Contains(deps, banned) {
			t.Errorf("tablelabtest links %s", banned)
		}
	}
}
