package queueapi_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/queueerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/apihttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	"github.com/tablelab/tablelab/engine/queue"
)

const account = auth.DevAccountName

// clock is the store's clock: real time when the test starts, moved by
// hand, so that Shared Key's skew check and SAS expiry stay satisfied
// while a test "waits" for a visibility timeout.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type env struct {
	clock  *clock
	url    string // the service URL: http://127.0.0.1:port/devstoreaccount1
	cred   *azqueue.SharedKeyCredential
	client *azqueue.ServiceClient
}

// noRetry returns fresh client options: a client made with a shared key
// adds its signing policy to the options it is given, so options shared
// with a SAS client would sign that client's requests too.
func noRetry() *azqueue.ClientOptions {
	return &azqueue.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := &clock{t: time.Now().UTC().Truncate(time.Second)}
	st := engine.New(engine.Options{OpenKeys: true, Now: c.now})
	svc, err := queue.New(st)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(apihttp.Handler{Server: queueapi.NewServer(svc, queueapi.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}})})
	t.Cleanup(srv.Close)
	cred, err := azqueue.NewSharedKeyCredential(account, base64.StdEncoding.EncodeToString(auth.DevAccount().Keys[0]))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{clock: c, url: srv.URL + "/" + account, cred: cred}
	e.client, err = azqueue.NewServiceClientWithSharedKeyCredential(e.url, cred, noRetry())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func wantCode(t *testing.T, err error, code queueerror.Code, status int) {
	t.Helper()
	if !queueerror.HasCode(err, code) {
		t.Fatalf("got %v, want %s", err, code)
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.StatusCode != status {
		t.Fatalf("%s: status %d, want %d", code, re.StatusCode, status)
	}
}

func TestSDKQueues(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	meta := map[string]*string{"Owner": to.Ptr("ana"), "stage": to.Ptr("test")}
	if _, err := e.client.CreateQueue(ctx, "orders", &azqueue.CreateOptions{Metadata: meta}); err != nil {
		t.Fatal(err)
	}
	// Again with the same metadata: 204, no error; with other metadata: 409.
	if _, err := e.client.CreateQueue(ctx, "orders", &azqueue.CreateOptions{Metadata: meta}); err != nil {
		t.Fatalf("create again: %v", err)
	}
	_, err := e.client.CreateQueue(ctx, "orders", nil)
	wantCode(t, err, queueerror.QueueAlreadyExists, 409)
	_, err = e.client.CreateQueue(ctx, "Orders", nil)
	wantCode(t, err, queueerror.InvalidResourceName, 400)
	_, err = e.client.CreateQueue(ctx, "ab", nil)
	wantCode(t, err, queueerror.OutOfRangeInput, 400)
	_, err = e.client.CreateQueue(ctx, "a--b", nil)
	wantCode(t, err, queueerror.InvalidResourceName, 400)

	q := e.client.NewQueueClient("orders")
	props, err := q.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ApproximateMessagesCount != 0 || len(props.Metadata) != 2 || *props.Metadata["Owner"] != "ana" {
		t.Fatalf("properties: count %v, metadata %v", *props.ApproximateMessagesCount, props.Metadata)
	}
	if _, err := q.SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"Color": to.Ptr("blue")}}); err != nil {
		t.Fatal(err)
	}
	props, _ = q.GetProperties(ctx, nil)
	if len(props.Metadata) != 1 || *props.Metadata["Color"] != "blue" {
		t.Fatalf("metadata after set: %v", props.Metadata)
	}
	_, err = q.SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"1bad": to.Ptr("x")}})
	wantCode(t, err, queueerror.InvalidMetadata, 400)

	for i := 0; i < 7; i++ {
		if _, err := e.client.CreateQueue(ctx, "job-"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Paging: three per page, prefix, metadata.
	var names []string
	pages := 0
	pager := e.client.NewListQueuesPager(&azqueue.ListQueuesOptions{MaxResults: to.Ptr(int32(3)), Prefix: to.Ptr("job-")})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if *page.MaxResults != 3 || *page.Prefix != "job-" || !strings.HasSuffix(*page.ServiceEndpoint, "/"+account+"/") {
			t.Fatalf("page echoes: %v %v %v", *page.MaxResults, *page.Prefix, *page.ServiceEndpoint)
		}
		for _, qu := range page.Queues {
			names = append(names, *qu.Name)
		}
	}
	if pages != 3 || strings.Join(names, ",") != "job-0,job-1,job-2,job-3,job-4,job-5,job-6" {
		t.Fatalf("%d pages: %v", pages, names)
	}
	pager = e.client.NewListQueuesPager(&azqueue.ListQueuesOptions{Include: azqueue.ListQueuesInclude{Metadata: true}, Prefix: to.Ptr("ord")})
	page, err := pager.NextPage(ctx)
	if err != nil || len(page.Queues) != 1 || *page.Queues[0].Metadata["color"] != "blue" {
		t.Fatalf("list with metadata: %+v %v", page, err)
	}

	if _, err := e.client.DeleteQueue(ctx, "job-3", nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.client.DeleteQueue(ctx, "job-3", nil)
	wantCode(t, err, queueerror.QueueNotFound, 404)
	_, err = e.client.NewQueueClient("job-3").GetProperties(ctx, nil)
	wantCode(t, err, queueerror.QueueNotFound, 404)
	_, err = e.client.NewQueueClient("job-3").EnqueueMessage(ctx, "x", nil)
	wantCode(t, err, queueerror.QueueNotFound, 404)
}

func TestSDKMessages(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("work")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t0 := e.clock.now()
	text := `<order id="7">fish & chips</order> ünïcødé`
	put, err := q.EnqueueMessage(ctx, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	pm := put.Messages[0]
	if !pm.InsertionTime.Equal(t0) || !pm.ExpirationTime.Equal(t0.Add(7*24*time.Hour)) || !pm.TimeNextVisible.Equal(t0) || *pm.PopReceipt == "" || *pm.MessageID == "" {
		t.Fatalf("enqueued: %+v", pm)
	}
	if _, err := q.EnqueueMessage(ctx, "second", &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(-1))}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueMessage(ctx, "hidden", &azqueue.EnqueueMessageOptions{VisibilityTimeout: to.Ptr(int32(60))}); err != nil {
		t.Fatal(err)
	}
	props, _ := q.GetProperties(ctx, nil)
	if *props.ApproximateMessagesCount != 3 {
		t.Fatalf("count %d", *props.ApproximateMessagesCount)
	}

	peek, err := q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: to.Ptr(int32(32))})
	if err != nil {
		t.Fatal(err)
	}
	if len(peek.Messages) != 2 || *peek.Messages[0].MessageText != text || *peek.Messages[0].DequeueCount != 0 ||
		*peek.Messages[1].MessageText != "second" || peek.Messages[1].ExpirationTime.Year() != 9999 {
		t.Fatalf("peek: %+v", peek.Messages)
	}

	got, err := q.DequeueMessage(ctx, nil)
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("dequeue: %v", err)
	}
	m := got.Messages[0]
	if *m.MessageID != *pm.MessageID || *m.MessageText != text || *m.DequeueCount != 1 || !m.TimeNextVisible.Equal(t0.Add(30*time.Second)) || *m.PopReceipt == *pm.PopReceipt {
		t.Fatalf("dequeued: %+v", m)
	}
	// The receipt from the put is stale now: Azure finds no message by it.
	_, err = q.DeleteMessage(ctx, *m.MessageID, *pm.PopReceipt, nil)
	wantCode(t, err, queueerror.MessageNotFound, 404)

	// 30 s later the message is back, dequeued twice.
	e.clock.add(30 * time.Second)
	got, err = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr(int32(5)), VisibilityTimeout: to.Ptr(int32(10))})
	if err != nil || len(got.Messages) != 2 {
		t.Fatalf("dequeue 5: %d %v", len(got.Messages), err)
	}
	m = got.Messages[0]
	if *m.MessageID != *pm.MessageID || *m.DequeueCount != 2 {
		t.Fatalf("redelivered: %+v", m)
	}

	// Update: new text, visible in 5 s; the answer's receipt is the one to use.
	up, err := q.UpdateMessage(ctx, *m.MessageID, *m.PopReceipt, "updated", &azqueue.UpdateMessageOptions{VisibilityTimeout: to.Ptr(int32(5))})
	if err != nil {
		t.Fatal(err)
	}
	if !up.TimeNextVisible.Equal(e.clock.now().Add(5*time.Second)) || *up.PopReceipt == *m.PopReceipt {
		t.Fatalf("update: %v %v", up.TimeNextVisible, *up.PopReceipt)
	}
	_, err = q.UpdateMessage(ctx, *m.MessageID, *m.PopReceipt, "again", nil)
	wantCode(t, err, queueerror.MessageNotFound, 404)
	_, err = q.UpdateMessage(ctx, "00000000-0000-0000-0000-000000000000", *up.PopReceipt, "x", nil)
	wantCode(t, err, queueerror.MessageNotFound, 404)
	e.clock.add(5 * time.Second)
	peek, _ = q.PeekMessage(ctx, nil)
	if len(peek.Messages) != 1 || *peek.Messages[0].MessageText != "updated" {
		t.Fatalf("after update: %+v", peek.Messages)
	}
	if _, err := q.DeleteMessage(ctx, *m.MessageID, *up.PopReceipt, nil); err != nil {
		t.Fatal(err)
	}
	_, err = q.DeleteMessage(ctx, *m.MessageID, *up.PopReceipt, nil)
	wantCode(t, err, queueerror.MessageNotFound, 404)

	// Errors of the parameters.
	_, err = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr(int32(33))})
	wantCode(t, err, queueerror.OutOfRangeQueryParameterValue, 400)
	_, err = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{VisibilityTimeout: to.Ptr(int32(0))})
	wantCode(t, err, queueerror.OutOfRangeQueryParameterValue, 400)
	_, err = q.EnqueueMessage(ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: to.Ptr(int32(7*24*3600 + 1))})
	wantCode(t, err, queueerror.OutOfRangeQueryParameterValue, 400)
	_, err = q.EnqueueMessage(ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: to.Ptr(int32(60)), TimeToLive: to.Ptr(int32(30))})
	wantCode(t, err, queueerror.InvalidQueryParameterValue, 400)
	_, err = q.EnqueueMessage(ctx, "x", &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(0))})
	wantCode(t, err, queueerror.InvalidQueryParameterValue, 400)
	_, err = q.EnqueueMessage(ctx, strings.Repeat("x", 64<<10+1), nil)
	wantCode(t, err, queueerror.RequestBodyTooLarge, 413)
	if _, err := q.EnqueueMessage(ctx, strings.Repeat("é", 32<<10), nil); err != nil {
		t.Fatalf("a 64 KiB message: %v", err)
	}

	// A message with a short TTL expires on the store's clock.
	if _, err := q.EnqueueMessage(ctx, "brief", &azqueue.EnqueueMessageOptions{TimeToLive: to.Ptr(int32(20))}); err != nil {
		t.Fatal(err)
	}
	props, _ = q.GetProperties(ctx, nil)
	n := *props.ApproximateMessagesCount
	e.clock.add(21 * time.Second)
	props, _ = q.GetProperties(ctx, nil)
	if *props.ApproximateMessagesCount != n-1 {
		t.Fatalf("count %d after expiry, want %d", *props.ApproximateMessagesCount, n-1)
	}

	if _, err := q.ClearMessages(ctx, nil); err != nil {
		t.Fatal(err)
	}
	props, _ = q.GetProperties(ctx, nil)
	if *props.ApproximateMessagesCount != 0 {
		t.Fatalf("count after clear %d", *props.ApproximateMessagesCount)
	}
	got, err = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr(int32(32))})
	if err != nil || len(got.Messages) != 0 {
		t.Fatalf("dequeue from empty: %v %v", got.Messages, err)
	}
}

// A poison message: workers take it and die; each time it comes back with
// a higher dequeue count, until one sees the count past the limit and
// moves it to a poison queue, as the Functions runtime does.
func TestSDKPoisonMessage(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("jobs")
	poison := e.client.NewQueueClient("jobs-poison")
	q.Create(ctx, nil)
	poison.Create(ctx, nil)
	if _, err := q.EnqueueMessage(ctx, "crashes the worker", nil); err != nil {
		t.Fatal(err)
	}
	const maxDequeue = 5
	for attempt := int64(1); ; attempt++ {
		got, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(30))})
		if err != nil || len(got.Messages) != 1 {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
		m := got.Messages[0]
		if *m.DequeueCount != attempt {
			t.Fatalf("attempt %d: dequeue count %d", attempt, *m.DequeueCount)
		}
		if *m.DequeueCount > maxDequeue {
			if _, err := poison.EnqueueMessage(ctx, *m.MessageText, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := q.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
				t.Fatal(err)
			}
			break
		}
		// Nothing to get while the worker "runs".
		if again, _ := q.DequeueMessage(ctx, nil); len(again.Messages) != 0 {
			t.Fatal("message got twice at once")
		}
		e.clock.add(30 * time.Second)
	}
	props, _ := q.GetProperties(ctx, nil)
	pp, _ := poison.PeekMessage(ctx, nil)
	if *props.ApproximateMessagesCount != 0 || len(pp.Messages) != 1 || *pp.Messages[0].MessageText != "crashes the worker" {
		t.Fatalf("jobs count %d, poison %+v", *props.ApproximateMessagesCount, pp.Messages)
	}
}

// TestSDKStaleReceipt is the competing consumers' case the public reports
// describe (Azure/azure-storage-net#285, Azure/azure-storage-python#300):
// worker A's visibility timeout lapses, worker B gets the message, and A's
// delete or update with its old receipt gets 404 MessageNotFound, "The
// specified message does not exist.", while the message stays B's. A
// receipt no service could have issued is a 400 InvalidQueryParameterValue
// naming popreceipt, "Invalid pop receipt format" (MicrosoftDocs/feedback
// #2842); neither case is PopReceiptMismatch.
func TestSDKStaleReceipt(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("jobs")
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EnqueueMessage(ctx, "slow job", nil); err != nil {
		t.Fatal(err)
	}
	opts := &azqueue.DequeueMessageOptions{VisibilityTimeout: to.Ptr(int32(30))}
	a, err := q.DequeueMessage(ctx, opts)
	if err != nil || len(a.Messages) != 1 {
		t.Fatalf("A: %v", err)
	}
	e.clock.add(31 * time.Second)
	b, err := q.DequeueMessage(ctx, opts)
	if err != nil || len(b.Messages) != 1 || *b.Messages[0].DequeueCount != 2 {
		t.Fatalf("B: %v", err)
	}
	id, stale := *a.Messages[0].MessageID, *a.Messages[0].PopReceipt

	_, err = q.DeleteMessage(ctx, id, stale, nil)
	wantCode(t, err, queueerror.MessageNotFound, 404)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || !strings.Contains(re.Error(), "The specified message does not exist.") {
		t.Fatalf("message: %v", err)
	}
	_, err = q.UpdateMessage(ctx, id, stale, "A's result", &azqueue.UpdateMessageOptions{VisibilityTimeout: to.Ptr(int32(0))})
	wantCode(t, err, queueerror.MessageNotFound, 404)

	// Malformed: a "+" sent unescaped arrives as a space; an empty receipt.
	_, err = q.DeleteMessage(ctx, id, "AgAAAAMAAAAAAAAAYUMWAIg 1gE=", nil)
	wantCode(t, err, queueerror.InvalidQueryParameterValue, 400)
	for _, want := range []string{
		"<QueryParameterName>popreceipt</QueryParameterName>",
		"<QueryParameterValue>AgAAAAMAAAAAAAAAYUMWAIg 1gE=</QueryParameterValue>",
		"<Reason>Invalid pop receipt format</Reason>",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("malformed delete: no %s in %v", want, err)
		}
	}
	_, err = q.UpdateMessage(ctx, id, "", "x", nil)
	wantCode(t, err, queueerror.InvalidQueryParameterValue, 400)
	if !strings.Contains(err.Error(), "<Reason>Invalid pop receipt format</Reason>") {
		t.Fatalf("malformed update: %v", err)
	}

	// Neither A's attempts nor the malformed ones touched B's message.
	pk, _ := q.PeekMessage(ctx, nil)
	props, _ := q.GetProperties(ctx, nil)
	if len(pk.Messages) != 0 || *props.ApproximateMessagesCount != 1 {
		t.Fatalf("after A: visible %d, count %d", len(pk.Messages), *props.ApproximateMessagesCount)
	}
	if _, err := q.DeleteMessage(ctx, id, *b.Messages[0].PopReceipt, nil); err != nil {
		t.Fatalf("B's delete: %v", err)
	}
}

func TestSDKSAS(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("shared")
	q.Create(ctx, nil)
	e.client.CreateQueue(ctx, "other", nil)
	expiry := e.clock.now().Add(time.Hour)

	queueSAS := func(perms sas.QueuePermissions, name string) *azqueue.QueueClient {
		t.Helper()
		qp, err := sas.QueueSignatureValues{
			Protocol:    sas.ProtocolHTTPSandHTTP,
			ExpiryTime:  expiry,
			Permissions: perms.String(),
			QueueName:   name,
		}.SignWithSharedKey(e.cred)
		if err != nil {
			t.Fatal(err)
		}
		c, err := azqueue.NewQueueClientWithNoCredential(e.url+"/"+name+"?"+qp.Encode(), noRetry())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// Add and process, but not read (peek).
	ap := queueSAS(sas.QueuePermissions{Add: true, Process: true}, "shared")
	if _, err := ap.EnqueueMessage(ctx, "via sas", nil); err != nil {
		t.Fatal(err)
	}
	_, err := ap.PeekMessage(ctx, nil)
	wantCode(t, err, queueerror.AuthorizationPermissionMismatch, 403)
	got, err := ap.DequeueMessage(ctx, nil)
	if err != nil || len(got.Messages) != 1 {
		t.Fatalf("dequeue with sas: %v", err)
	}
	_, err = ap.UpdateMessage(ctx, *got.Messages[0].MessageID, *got.Messages[0].PopReceipt, "x", nil)
	wantCode(t, err, queueerror.AuthorizationPermissionMismatch, 403)
	if _, err := ap.DeleteMessage(ctx, *got.Messages[0].MessageID, *got.Messages[0].PopReceipt, nil); err != nil {
		t.Fatal(err)
	}
	// A queue SAS reaches no other queue, and no queue-level change.
	_, err = queueSAS(sas.QueuePermissions{Add: true}, "shared").Delete(ctx, nil)
	if err == nil {
		t.Fatal("queue SAS deleted the queue")
	}
	r := queueSAS(sas.QueuePermissions{Read: true}, "shared")
	if _, err := r.GetProperties(ctx, nil); err != nil {
		t.Fatalf("metadata with r: %v", err)
	}
	// A token signed for "shared" used on "other" fails its signature.
	qp, _ := sas.QueueSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: expiry, Permissions: "raup", QueueName: "shared"}.SignWithSharedKey(e.cred)
	wrong, _ := azqueue.NewQueueClientWithNoCredential(e.url+"/other?"+qp.Encode(), noRetry())
	_, err = wrong.EnqueueMessage(ctx, "x", nil)
	wantCode(t, err, queueerror.AuthenticationFailed, 403)

	// Account SAS: list and create with srt=sc, messages need o.
	acctSAS := func(perms sas.AccountPermissions, rt sas.AccountResourceTypes) *azqueue.ServiceClient {
		qp, err := sas.AccountSignatureValues{
			Protocol:      sas.ProtocolHTTPSandHTTP,
			ExpiryTime:    expiry,
			Permissions:   perms.String(),
			ResourceTypes: rt.String(),
		}.SignWithSharedKey(e.cred)
		if err != nil {
			t.Fatal(err)
		}
		c, err := azqueue.NewServiceClientWithNoCredential(e.url+"?"+qp.Encode(), noRetry())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	sc := acctSAS(sas.AccountPermissions{List: true, Create: true, Read: true}, sas.AccountResourceTypes{Service: true, Container: true})
	pg, err := sc.NewListQueuesPager(nil).NextPage(ctx)
	if err != nil || len(pg.Queues) != 2 {
		t.Fatalf("list with account sas: %v", err)
	}
	if _, err := sc.CreateQueue(ctx, "made-by-sas", nil); err != nil {
		t.Fatal(err)
	}
	_, err = sc.NewQueueClient("shared").PeekMessage(ctx, nil)
	wantCode(t, err, queueerror.AuthorizationResourceTypeMismatch, 403)
	_, err = sc.DeleteQueue(ctx, "made-by-sas", nil)
	wantCode(t, err, queueerror.AuthorizationPermissionMismatch, 403)

	// No credentials at all.
	anon, _ := azqueue.NewQueueClientWithNoCredential(e.url+"/shared", noRetry())
	_, err = anon.PeekMessage(ctx, nil)
	if err == nil {
		t.Fatal("anonymous peek allowed")
	}
}

// What the service has and tablelab does not is a clear 501 in the
// service's format.
func TestSDKNotImplemented(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.client.GetServiceProperties(ctx, nil)
	wantCode(t, err, "NotImplemented", 501)
	_, err = e.client.GetStatistics(ctx, nil)
	wantCode(t, err, "NotImplemented", 501)
	q := e.client.NewQueueClient("acl")
	q.Create(ctx, nil)
	_, err = q.GetAccessPolicy(ctx, nil)
	wantCode(t, err, "NotImplemented", 501)
}

// Several workers draining a queue at once never get one message twice.
func TestSDKConcurrentWorkers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("fanout")
	q.Create(ctx, nil)
	const n = 60
	for i := 0; i < n; i++ {
		if _, err := q.EnqueueMessage(ctx, "m"+strconv.Itoa(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	var (
		mu   sync.Mutex
		seen []string
		wg   sync.WaitGroup
	)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: to.Ptr(int32(4))})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got.Messages) == 0 {
					return
				}
				for _, m := range got.Messages {
					if _, err := q.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
						t.Error(err)
					}
					mu.Lock()
					seen = append(seen, *m.MessageText)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	sort.Strings(seen)
	for i := 1; i < len(seen); i++ {
		if seen[i] == seen[i-1] {
			t.Fatalf("%s got twice", seen[i])
		}
	}
	if len(seen) != n {
		t.Fatalf("%d messages processed, want %d", len(seen), n)
	}
}

// The protocol's raw shapes, which the SDKs parse leniently: the XML
// bodies, the headers, the error format.
func TestWire(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	q := e.client.NewQueueClient("wire")
	q.Create(ctx, nil)
	do := func(method, target string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, e.url+target, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// Without credentials: AuthenticationFailed-style 403 in XML, with the
	// code in x-ms-error-code too.
	resp := do("GET", "/wire/messages")
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("x-ms-error-code") == "" || resp.Header.Get("Content-Type") != "application/xml" || resp.Header.Get("x-ms-request-id") == "" {
		t.Fatalf("anonymous: %d %v", resp.StatusCode, resp.Header)
	}
}
