//go:build !js

// The Go storage SDKs do not build for GOOS=js (azblob's buffers map
// memory), and the recorder needs a socket: these tests run natively only.

package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	queuesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// seen is one request as the server received it.
type seen struct {
	method, target string
	header         api.Header
}

// toRequest is what a Blob or Queue front end hands the verifier: the
// path as sent, and the container (or queue) and blob decoded from it.
func (s seen) toRequest(svc auth.Service) auth.Request {
	rawPath, rawQuery, _ := strings.Cut(s.target, "?")
	r := auth.Request{Service: svc, Method: s.method, RawPath: rawPath, Query: rawQuery, Header: s.header.Get, Headers: s.header.Each,
		Account: auth.DevAccountName, Scheme: "http", RemoteIP: "127.0.0.1"}
	segs := strings.SplitN(strings.TrimPrefix(rawPath, "/"), "/", 3)
	if len(segs) > 1 {
		r.Container, _ = url.PathUnescape(segs[1])
	}
	if len(segs) > 2 {
		r.Blob, _ = url.PathUnescape(segs[2])
		if svc == auth.Queue {
			r.Blob = ""
		}
	}
	return r
}

// recorder is a server that records each request and answers 403 to
// those the verifier refuses, 200 with an empty body to the rest: the
// SDKs' own handling of the answer does not matter here.
type recorder struct {
	svc auth.Service
	v   *auth.Verifier
	mu  sync.Mutex
	got []seen
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := seen{method: r.Method, target: r.RequestURI}
	for name, values := range r.Header {
		s.header.Set(name, values[0])
	}
	rec.mu.Lock()
	rec.got = append(rec.got, s)
	rec.mu.Unlock()
	if _, err := rec.v.Verify(s.toRequest(rec.svc)); err != nil {
		w.WriteHeader(403)
		return
	}
	w.WriteHeader(200)
}

func newRecorder(t *testing.T, svc auth.Service) (*recorder, string) {
	rec := &recorder{svc: svc, v: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return rec, srv.URL + "/" + auth.DevAccountName
}

var noRetry = azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

// checkSigned verifies every recorded request, then that changing any
// signed part of it by one byte breaks the signature.
func checkSigned(t *testing.T, rec *recorder, min int) {
	t.Helper()
	if len(rec.got) < min {
		t.Fatalf("%d requests recorded, want at least %d", len(rec.got), min)
	}
	v := rec.v
	for _, s := range rec.got {
		if _, err := v.Verify(s.toRequest(rec.svc)); err != nil {
			t.Errorf("%s %s refused: %v", s.method, s.target, err)
			continue
		}
		var tampered []seen
		change := func(f func(s *seen)) {
			c := seen{method: s.method, target: s.target}
			s.header.Each(func(n, v string) { c.header.Set(n, v) })
			f(&c)
			tampered = append(tampered, c)
		}
		change(func(c *seen) { c.method = "MERGE" })
		change(func(c *seen) { c.target = strings.Replace(c.target, "/devstoreaccount1", "/devstoreaccount1/x", 1) })
		if strings.Contains(s.target, "?") {
			change(func(c *seen) { c.target += "x" })
			change(func(c *seen) { c.target += "&extra=1" })
		}
		s.header.Each(func(name, value string) {
			lower := strings.ToLower(name)
			if lower == "authorization" || lower == "user-agent" || lower == "accept-encoding" || lower == "accept" || lower == "x-ms-date" {
				return // not signed, or the skew check's
			}
			if lower == "content-length" && value == "0" {
				return
			}
			change(func(c *seen) { c.header.Set(name, value+"1") })
		})
		change(func(c *seen) { c.header.Set("x-ms-meta-added", "1") })
		change(func(c *seen) { c.header.Set("Range", "bytes=0-1") })
		for _, c := range tampered {
			if _, err := v.Verify(c.toRequest(rec.svc)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
				t.Errorf("tampered %s %s %v accepted: %v", c.method, c.target, c.header, err)
			}
		}
	}
}

func TestBlobSharedKeyFromGoSDK(t *testing.T) {
	rec, base := newRecorder(t, auth.Blob)
	cred, err := azblob.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(base, cred, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v := "value"
	_, _ = client.CreateContainer(ctx, "box", &azblob.CreateContainerOptions{Metadata: map[string]*string{"Owner": &v, "a_1": &v, "a1": &v, "A_b": &v}})
	ct, md5 := "text/plain; charset=utf-8", []byte("0123456789abcdef")
	name := "dir/a b+c?d#e%f é.txt"
	_, _ = client.UploadBuffer(ctx, "box", name, []byte("hello"), &azblob.UploadBufferOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: &ct, BlobContentMD5: md5},
		Metadata:    map[string]*string{"k": &v}})
	_, _ = client.DownloadStream(ctx, "box", name, &azblob.DownloadStreamOptions{Range: azblob.HTTPRange{Offset: 1, Count: 3}})
	bb := client.ServiceClient().NewContainerClient("box").NewBlockBlobClient("big")
	id := base64.StdEncoding.EncodeToString([]byte("block-0001"))
	_, _ = bb.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader([]byte("part"))), nil)
	etag := azcore.ETag(`"0x8D"`)
	_, _ = bb.CommitBlockList(ctx, []string{id}, &blockblob.CommitBlockListOptions{AccessConditions: &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag}}})
	_, _ = bb.GetProperties(ctx, nil)
	_, _ = bb.Delete(ctx, nil)
	prefix, marker := "dir/a b", "2!marker/x"
	_, _ = client.ServiceClient().NewContainerClient("box").NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: &prefix, Marker: &marker}).NextPage(ctx)
	_, _ = client.NewListContainersPager(nil).NextPage(ctx)
	_, _ = client.DeleteContainer(ctx, "box", nil)
	checkSigned(t, rec, 10)
}

func TestQueueSharedKeyFromGoSDK(t *testing.T) {
	rec, base := newRecorder(t, auth.Queue)
	cred, err := azqueue.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential(base, cred, &azqueue.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	q := svc.NewQueueClient("jobs")
	v := "x"
	_, _ = q.Create(ctx, &azqueue.CreateOptions{Metadata: map[string]*string{"a1": &v, "a_1": &v, "Z": &v}})
	ttl, vis := int32(60), int32(5)
	_, _ = q.EnqueueMessage(ctx, "hello <world> & all", &azqueue.EnqueueMessageOptions{TimeToLive: &ttl, VisibilityTimeout: &vis})
	n := int32(3)
	_, _ = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: &n, VisibilityTimeout: &vis})
	_, _ = q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: &n})
	_, _ = q.UpdateMessage(ctx, "id-1", "pop/receipt+=", "new", &azqueue.UpdateMessageOptions{VisibilityTimeout: &vis})
	_, _ = q.DeleteMessage(ctx, "id-1", "pop/receipt+=", nil)
	_, _ = q.ClearMessages(ctx, nil)
	_, _ = q.GetProperties(ctx, nil)
	_, _ = q.SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"b": &v}})
	prefix := "jo"
	_, _ = svc.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: &prefix, Include: azqueue.ListQueuesInclude{Metadata: true}}).NextPage(ctx)
	_, _ = q.Delete(ctx, nil)
	checkSigned(t, rec, 10)
}

func sasRequest(svc auth.Service, method, path, query string) auth.Request {
	return seen{method: method, target: path + "?" + query}.toRequest(svc)
}

func TestBlobSASFromGoSDK(t *testing.T) {
	v := &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	cred, err := azblob.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	sign := func(s blobsas.BlobSignatureValues) string {
		t.Helper()
		if s.ExpiryTime.IsZero() {
			s.ExpiryTime = now.Add(time.Hour)
		}
		p, err := s.SignWithSharedKey(cred)
		if err != nil {
			t.Fatal(err)
		}
		return p.Encode()
	}
	// A blob SAS: its blob only, with its permissions.
	blobQ := sign(blobsas.BlobSignatureValues{ContainerName: "box", BlobName: "dir/a b.txt", Permissions: (&blobsas.BlobPermissions{Read: true, Create: true}).String(),
		StartTime: now.Add(-time.Minute), Protocol: blobsas.ProtocolHTTPSandHTTP, IPRange: blobsas.IPRange{Start: []byte{127, 0, 0, 1}},
		ContentType: "text/csv", CacheControl: "no-cache"})
	g, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box/dir/a%20b.txt", blobQ))
	if err != nil {
		t.Fatalf("blob SAS refused: %v", err)
	}
	if o := g.ResponseHeaders(); len(o) != 2 || o[0] != [2]string{"Cache-Control", "no-cache"} || o[1] != [2]string{"Content-Type", "text/csv"} {
		t.Errorf("response header overrides %q", o)
	}
	if g.CheckBlob(auth.Read, auth.ObjectLevel, "box", "dir/a b.txt") != nil || g.CheckBlob(auth.Create, auth.ObjectLevel, "box", "dir/a b.txt") != nil {
		t.Error("r and c granted")
	}
	if !svcerr.Is(g.CheckBlob(auth.Write, auth.ObjectLevel, "box", "dir/a b.txt"), svcerr.AuthorizationPermissionMismatch) ||
		!svcerr.Is(g.CheckBlob(auth.Delete, auth.ObjectLevel, "box", "dir/a b.txt"), svcerr.AuthorizationPermissionMismatch) {
		t.Error("w and d not granted")
	}
	if !svcerr.Is(g.CheckBlob(auth.List, auth.ContainerLevel, "box", ""), svcerr.AuthorizationFailure) ||
		!svcerr.Is(g.CheckQueue(auth.Read, auth.ObjectLevel, "box"), svcerr.AuthorizationFailure) ||
		!svcerr.Is(g.CheckTable(auth.Read, "box"), svcerr.AuthorizationFailure) {
		t.Error("a blob SAS reaches its blob only")
	}
	// The same token on another blob, container or account: the
	// signature covers the resource.
	for _, path := range []string{"/devstoreaccount1/box/dir/a%20c.txt", "/devstoreaccount1/bin/dir/a%20b.txt", "/devstoreaccount1/box"} {
		if _, err := v.Verify(sasRequest(auth.Blob, "GET", path, blobQ)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
			t.Errorf("%s: %v", path, err)
		}
	}
	// Every signed field counts.
	vals, _ := url.ParseQuery(blobQ)
	for _, f := range []string{"sp", "st", "se", "sip", "spr", "sv", "sr", "rsct", "rscc", "sig"} {
		changed := url.Values{}
		for k, vs := range vals {
			changed[k] = append([]string(nil), vs...)
		}
		changed.Set(f, changed.Get(f)+"x")
		if f == "sr" {
			changed.Set(f, "c")
		}
		if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box/dir/a%20b.txt", changed.Encode())); err == nil {
			t.Errorf("%s changed, token still accepted", f)
		}
	}
	for _, f := range []string{"rscd", "rsce", "rscl", "ses"} {
		if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box/dir/a%20b.txt", blobQ+"&"+f+"=x")); err == nil {
			t.Errorf("%s added, token still accepted", f)
		}
	}

	// A container SAS: its blobs and its listing.
	contQ := sign(blobsas.BlobSignatureValues{ContainerName: "box", Permissions: (&blobsas.ContainerPermissions{List: true, Write: true, Delete: true}).String()})
	for _, path := range []string{"/devstoreaccount1/box", "/devstoreaccount1/box/any/blob"} {
		g, err := v.Verify(sasRequest(auth.Blob, "GET", path, contQ))
		if err != nil {
			t.Fatalf("container SAS on %s: %v", path, err)
		}
		if g.CheckBlob(auth.List, auth.ContainerLevel, "box", "") != nil || g.CheckBlob(auth.Write, auth.ObjectLevel, "box", "any/blob") != nil ||
			g.CheckBlob(auth.Create, auth.ObjectLevel, "box", "new") != nil || g.CheckBlob(auth.Delete, auth.ObjectLevel, "box", "x") != nil {
			t.Error("l, w (and so create), d granted")
		}
		if !svcerr.Is(g.CheckBlob(auth.Read, auth.ObjectLevel, "box", "x"), svcerr.AuthorizationPermissionMismatch) {
			t.Error("r not granted")
		}
		if !svcerr.Is(g.CheckBlob(auth.Delete, auth.ContainerLevel, "box", ""), svcerr.AuthorizationFailure) ||
			!svcerr.Is(g.CheckBlob(auth.List, auth.ServiceLevel, "", ""), svcerr.AuthorizationFailure) {
			t.Error("a container SAS does not reach container or account operations")
		}
	}
	if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/other", contQ)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("container SAS on another container: %v", err)
	}
	expired := sign(blobsas.BlobSignatureValues{ContainerName: "box", Permissions: "r", ExpiryTime: now.Add(-time.Minute)})
	if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box", expired)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("expired: %v", err)
	}
	withID := sign(blobsas.BlobSignatureValues{ContainerName: "box", Identifier: "policy1"})
	if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box", withID)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("unresolvable si: %v", err)
	}
	// Older versions sign fewer fields.
	for _, sv := range []string{"2015-04-05", "2018-11-09", "2020-02-10", "2020-12-06"} {
		q := sign(blobsas.BlobSignatureValues{Version: sv, ContainerName: "box", BlobName: "b", Permissions: "r"})
		if sv < "2020-12-06" {
			// Go signs every version in the newest form; make the old
			// forms with tablelab's own maker, checked against JS below.
			q = auth.NewBlobSAS(auth.DevAccountName, auth.DevAccount().Keys[0], auth.BlobSAS{Version: sv, Container: "box", Blob: "b", Permissions: "r", Expiry: now.Add(time.Hour)})
		}
		if _, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1/box/b", q)); err != nil {
			t.Errorf("sv=%s: %v", sv, err)
		}
	}
}

func TestAccountSASFromGoSDK(t *testing.T) {
	v := &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	now := time.Now().UTC()
	bcred, _ := azblob.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	p, err := blobsas.AccountSignatureValues{Permissions: (&blobsas.AccountPermissions{Read: true, List: true, Create: true}).String(),
		ResourceTypes: (&blobsas.AccountResourceTypes{Service: true, Object: true}).String(), ExpiryTime: now.Add(time.Hour)}.SignWithSharedKey(bcred)
	if err != nil {
		t.Fatal(err)
	}
	g, err := v.Verify(sasRequest(auth.Blob, "GET", "/devstoreaccount1", p.Encode()))
	if err != nil {
		t.Fatalf("blob account SAS (sv=%s): %v", p.Version(), err)
	}
	if g.CheckBlob(auth.List, auth.ServiceLevel, "", "") != nil || g.CheckBlob(auth.Read, auth.ObjectLevel, "c", "b") != nil || g.CheckBlob(auth.Create, auth.ObjectLevel, "c", "new") != nil {
		t.Error("l at s, r and c at o")
	}
	if !svcerr.Is(g.CheckBlob(auth.Create, auth.ContainerLevel, "c", ""), svcerr.AuthorizationResourceTypeMismatch) {
		t.Error("srt has no c")
	}
	if !svcerr.Is(g.CheckBlob(auth.Write, auth.ObjectLevel, "c", "b"), svcerr.AuthorizationPermissionMismatch) {
		t.Error("sp has no w")
	}
	// ss=b is no good for queues or tables.
	for _, svc := range []auth.Service{auth.Queue, auth.Table} {
		if _, err := v.Verify(sasRequest(svc, "GET", "/devstoreaccount1", p.Encode())); !svcerr.Is(err, svcerr.AuthorizationServiceMismatch) {
			t.Errorf("%v: %v", svc, err)
		}
	}
	changed, _ := url.ParseQuery(p.Encode())
	changed.Set("ss", "bq")
	if _, err := v.Verify(sasRequest(auth.Queue, "GET", "/devstoreaccount1", changed.Encode())); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("widened ss: %v", err)
	}

	qcred, _ := azqueue.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	qp, err := queuesas.AccountSignatureValues{Permissions: (&queuesas.AccountPermissions{Process: true, Add: true}).String(),
		ResourceTypes: (&queuesas.AccountResourceTypes{Object: true}).String(), ExpiryTime: now.Add(time.Hour)}.SignWithSharedKey(qcred)
	if err != nil {
		t.Fatal(err)
	}
	g, err = v.Verify(sasRequest(auth.Queue, "POST", "/devstoreaccount1/jobs/messages", qp.Encode()))
	if err != nil {
		t.Fatalf("queue account SAS: %v", err)
	}
	if g.CheckQueue(auth.Add, auth.ObjectLevel, "jobs") != nil || g.CheckQueue(auth.Process, auth.ObjectLevel, "jobs") != nil {
		t.Error("a and p on messages")
	}
	if !svcerr.Is(g.CheckQueue(auth.Read, auth.ObjectLevel, "jobs"), svcerr.AuthorizationPermissionMismatch) ||
		!svcerr.Is(g.CheckQueue(auth.Create, auth.ContainerLevel, "jobs"), svcerr.AuthorizationResourceTypeMismatch) ||
		!svcerr.Is(g.CheckBlob(auth.Read, auth.ObjectLevel, "c", "b"), svcerr.AuthorizationFailure) {
		t.Error("peek needs r, create needs srt c, blobs need ss b")
	}

	// tablelab's own maker, for all three services at once.
	q := auth.NewAccountSAS(auth.DevAccountName, auth.DevAccount().Keys[0], auth.AccountSAS{Services: "bqt", Permissions: "rwdlacup", ResourceTypes: "sco",
		Version: "2025-01-05", Expiry: now.Add(time.Hour)})
	for _, svc := range []auth.Service{auth.Blob, auth.Queue, auth.Table} {
		if _, err := v.Verify(sasRequest(svc, "GET", "/devstoreaccount1", q)); err != nil {
			t.Errorf("ss=bqt for %v: %v", svc, err)
		}
	}
}

func TestQueueSASFromGoSDK(t *testing.T) {
	v := &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}}
	cred, _ := azqueue.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	now := time.Now().UTC()
	p, err := queuesas.QueueSignatureValues{QueueName: "jobs", Permissions: (&queuesas.QueuePermissions{Read: true, Process: true}).String(),
		ExpiryTime: now.Add(time.Hour), StartTime: now.Add(-time.Hour)}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/devstoreaccount1/jobs", "/devstoreaccount1/jobs/messages", "/devstoreaccount1/jobs/messages/id-1"} {
		g, err := v.Verify(sasRequest(auth.Queue, "GET", path, p.Encode()))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if g.CheckQueue(auth.Read, auth.ContainerLevel, "jobs") != nil || g.CheckQueue(auth.Read, auth.ObjectLevel, "jobs") != nil || g.CheckQueue(auth.Process, auth.ObjectLevel, "jobs") != nil {
			t.Error("r on metadata and peek, p on get and delete")
		}
		if !svcerr.Is(g.CheckQueue(auth.Add, auth.ObjectLevel, "jobs"), svcerr.AuthorizationPermissionMismatch) ||
			!svcerr.Is(g.CheckQueue(auth.Delete, auth.ObjectLevel, "jobs"), svcerr.AuthorizationFailure) ||
			!svcerr.Is(g.CheckQueue(auth.Write, auth.ContainerLevel, "jobs"), svcerr.AuthorizationFailure) ||
			!svcerr.Is(g.CheckQueue(auth.List, auth.ServiceLevel, ""), svcerr.AuthorizationFailure) {
			t.Error("no a; clear, set metadata and list queues are not for a queue SAS")
		}
	}
	if _, err := v.Verify(sasRequest(auth.Queue, "GET", "/devstoreaccount1/other/messages", p.Encode())); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("another queue: %v", err)
	}
	mine := auth.NewQueueSAS(auth.DevAccountName, auth.DevAccount().Keys[0], auth.QueueSAS{Queue: "jobs", Permissions: "raup", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(sasRequest(auth.Queue, "GET", "/devstoreaccount1/jobs/messages", mine)); err != nil {
		t.Errorf("NewQueueSAS: %v", err)
	}
	mineBlob := auth.NewBlobSAS(auth.DevAccountName, auth.DevAccount().Keys[0], auth.BlobSAS{Container: "box", Blob: "a/b c", Permissions: "rw", Expiry: now.Add(time.Hour), ContentType: "x/y"})
	if g, err := v.Verify(sasRequest(auth.Blob, "PUT", "/devstoreaccount1/box/a/b%20c", mineBlob)); err != nil || g.CheckBlob(auth.Write, auth.ObjectLevel, "box", "a/b c") != nil {
		t.Errorf("NewBlobSAS: %v", err)
	}
}
