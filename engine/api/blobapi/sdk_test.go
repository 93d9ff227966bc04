// The Go SDK for blobs does not build for GOOS=js (its buffer manager maps
// memory), so its conformance walk runs natively only.

//go:build !js

package blobapi_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/apihttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	tblob "github.com/tablelab/tablelab/engine/blob"
)

var ctx = context.Background()

type env struct {
	url    string // the account's endpoint, with a trailing /
	client *azblob.Client
	store  *engine.Store
	svc    *tblob.Service
}

func clientOptions() azcore.ClientOptions {
	return azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
}

func newEnv(t *testing.T) *env {
	t.Helper()
	st := engine.New(engine.Options{OpenKeys: true})
	svc, err := tblob.New(st)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(apihttp.Handler{Server: blobapi.NewServer(svc, blobapi.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}}), Stream: true})
	t.Cleanup(ts.Close)
	e := &env{url: ts.URL + "/" + auth.DevAccountName + "/", store: st, svc: svc}
	cred, err := azblob.NewSharedKeyCredential(auth.DevAccountName, auth.DevAccountKey)
	if err != nil {
		t.Fatal(err)
	}
	e.client, err = azblob.NewClientWithSharedKeyCredential(e.url, cred, &azblob.ClientOptions{ClientOptions: clientOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) container(name string) *container.Client {
	return e.client.ServiceClient().NewContainerClient(name)
}

func (e *env) block(cont, name string) *blockblob.Client {
	return e.container(cont).NewBlockBlobClient(name)
}

func wantCode(t *testing.T, err error, code bloberror.Code) {
	t.Helper()
	if !bloberror.HasCode(err, code) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func wantStatus(t *testing.T, err error, status int) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != status {
		t.Fatalf("err = %v, want status %d", err, status)
	}
}

func rsc(b []byte) io.ReadSeekCloser {
	return nopCloser{bytes.NewReader(b)}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func download(t *testing.T, bb *blockblob.Client, o *blob.DownloadStreamOptions) ([]byte, blob.DownloadStreamResponse) {
	t.Helper()
	resp, err := bb.DownloadStream(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b, resp
}

func TestContainers(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"alpha", "beta", "gamma", "delta"} {
		if _, err := e.client.CreateContainer(ctx, n, &azblob.CreateContainerOptions{Metadata: map[string]*string{"Owner": to.Ptr(n)}}); err != nil {
			t.Fatal(err)
		}
	}
	_, err := e.client.CreateContainer(ctx, "alpha", nil)
	wantCode(t, err, bloberror.ContainerAlreadyExists)
	_, err = e.client.CreateContainer(ctx, "Bad_Name", nil)
	wantCode(t, err, bloberror.InvalidResourceName)

	var names []string
	pager := e.client.NewListContainersPager(&azblob.ListContainersOptions{MaxResults: to.Ptr[int32](3), Include: azblob.ListContainersInclude{Metadata: true}})
	pages := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, c := range page.ContainerItems {
			names = append(names, *c.Name)
			if *c.Metadata["owner"] != *c.Name || c.Properties.ETag == nil || c.Properties.LastModified == nil {
				t.Fatalf("container item %+v", c)
			}
		}
	}
	if strings.Join(names, ",") != "alpha,beta,delta,gamma" || pages != 2 {
		t.Fatalf("listed %v in %d pages", names, pages)
	}
	page, err := e.client.NewListContainersPager(&azblob.ListContainersOptions{Prefix: to.Ptr("de")}).NextPage(ctx)
	if err != nil || len(page.ContainerItems) != 1 || *page.ContainerItems[0].Name != "delta" || page.ContainerItems[0].Metadata != nil {
		t.Fatalf("prefix listing: %+v %v", page, err)
	}

	cc := e.container("alpha")
	props, err := cc.GetProperties(ctx, nil)
	if err != nil || *props.Metadata["Owner"] != "alpha" {
		t.Fatalf("properties %+v %v", props, err)
	}
	set, err := cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"k1": to.Ptr("v1"), "K2": to.Ptr("v2")}})
	if err != nil || *set.ETag == *props.ETag {
		t.Fatalf("set metadata %+v %v", set, err)
	}
	props, err = cc.GetProperties(ctx, nil)
	if err != nil || len(props.Metadata) != 2 || *props.Metadata["K2"] != "v2" || *props.ETag != *set.ETag {
		t.Fatalf("after set %+v %v", props.Metadata, err)
	}
	_, err = cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"1bad": to.Ptr("x")}})
	wantCode(t, err, bloberror.InvalidMetadata)
	_, err = cc.SetMetadata(ctx, &container.SetMetadataOptions{
		ModifiedAccessConditions: &container.ModifiedAccessConditions{IfModifiedSince: to.Ptr(time.Now().Add(time.Hour))},
	})
	wantCode(t, err, bloberror.ConditionNotMet)

	if _, err := cc.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = cc.GetProperties(ctx, nil)
	wantCode(t, err, bloberror.ContainerNotFound)
	_, err = cc.Delete(ctx, nil)
	wantCode(t, err, bloberror.ContainerNotFound)
	// A container made again under the same name starts empty.
	if _, err := e.client.UploadBuffer(ctx, "beta", "x", []byte("old"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.DeleteContainer(ctx, "beta", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.CreateContainer(ctx, "beta", nil); err != nil {
		t.Fatal(err)
	}
	_, err = e.block("beta", "x").GetProperties(ctx, nil)
	wantCode(t, err, bloberror.BlobNotFound)
}

func TestPutGetBlob(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	data := randBytes(3*tblob.ChunkSize/2, 1)
	sum := md5.Sum(data)
	name := "dir/sub dir/a?b#c%d+é.txt"
	bb := e.block("box", name)
	up, err := bb.Upload(ctx, rsc(data), &blockblob.UploadOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain"), BlobContentLanguage: to.Ptr("en"),
			BlobCacheControl: to.Ptr("no-cache"), BlobContentDisposition: to.Ptr("inline"), BlobContentEncoding: to.Ptr("identity")},
		Metadata:                map[string]*string{"Color": to.Ptr("blue")},
		TransactionalContentMD5: sum[:],
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(up.ContentMD5, sum[:]) || up.ETag == nil || up.LastModified == nil {
		t.Fatalf("upload response %+v", up)
	}

	got, resp := download(t, bb, nil)
	if !bytes.Equal(got, data) || *resp.ContentLength != int64(len(data)) || *resp.ContentType != "text/plain" ||
		!bytes.Equal(resp.ContentMD5, sum[:]) || *resp.ETag != *up.ETag || *resp.Metadata["Color"] != "blue" ||
		*resp.BlobType != blob.BlobTypeBlockBlob || *resp.ContentLanguage != "en" || *resp.CacheControl != "no-cache" ||
		*resp.ContentDisposition != "inline" || *resp.ContentEncoding != "identity" {
		t.Fatalf("download %+v", resp)
	}

	props, err := bb.GetProperties(ctx, nil)
	if err != nil || *props.ContentLength != int64(len(data)) || !bytes.Equal(props.ContentMD5, sum[:]) ||
		*props.ContentType != "text/plain" || *props.BlobType != blob.BlobTypeBlockBlob || *props.Metadata["Color"] != "blue" ||
		props.CreationTime == nil || *props.ETag != *up.ETag {
		t.Fatalf("properties %+v %v", props, err)
	}

	// Ranges, across the chunk boundary and to the end.
	for _, r := range []blob.HTTPRange{{Offset: 0, Count: 1}, {Offset: tblob.ChunkSize - 10, Count: 20}, {Offset: 100}, {Offset: int64(len(data)) - 1, Count: 50}} {
		got, resp := download(t, bb, &blob.DownloadStreamOptions{Range: r})
		end := int64(len(data))
		if r.Count > 0 {
			end = min(end, r.Offset+r.Count)
		}
		if !bytes.Equal(got, data[r.Offset:end]) {
			t.Fatalf("range %+v: %d bytes differ", r, len(got))
		}
		if want := "bytes " + itoa(r.Offset) + "-" + itoa(end-1) + "/" + itoa(int64(len(data))); *resp.ContentRange != want {
			t.Fatalf("Content-Range %q, want %q", *resp.ContentRange, want)
		}
	}
	_, err = bb.DownloadStream(ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: int64(len(data)), Count: 10}})
	wantCode(t, err, bloberror.InvalidRange)
	wantStatus(t, err, 416)
	_, resp = download(t, bb, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 10, Count: 100}, RangeGetContentMD5: to.Ptr(true)})
	if rs := md5.Sum(data[10:110]); !bytes.Equal(resp.ContentMD5, rs[:]) {
		t.Fatalf("range MD5 %x", resp.ContentMD5)
	}

	// DownloadBuffer reads in ranges of its own.
	buf := make([]byte, len(data))
	if n, err := bb.DownloadBuffer(ctx, buf, &blob.DownloadBufferOptions{BlockSize: 100_000, Concurrency: 3}); err != nil || n != int64(len(data)) || !bytes.Equal(buf, data) {
		t.Fatalf("download buffer: %d %v", n, err)
	}

	// A wrong transactional MD5 fails and leaves the blob as it was.
	_, err = bb.Upload(ctx, rsc([]byte("other")), &blockblob.UploadOptions{TransactionalContentMD5: sum[:]})
	wantCode(t, err, bloberror.MD5Mismatch)
	if p, _ := bb.GetProperties(ctx, nil); *p.ETag != *up.ETag {
		t.Fatal("a failed upload changed the blob")
	}

	// Set properties replaces all the content headers.
	hp, err := bb.SetHTTPHeaders(ctx, blob.HTTPHeaders{BlobContentType: to.Ptr("application/json"), BlobContentMD5: []byte("0123456789abcdef")}, nil)
	if err != nil || *hp.ETag == *up.ETag {
		t.Fatalf("set headers %+v %v", hp, err)
	}
	props, _ = bb.GetProperties(ctx, nil)
	if *props.ContentType != "application/json" || string(props.ContentMD5) != "0123456789abcdef" || props.ContentLanguage != nil {
		t.Fatalf("after set headers %+v", props)
	}
	if _, err := bb.SetMetadata(ctx, map[string]*string{"a": to.Ptr("1"), "B": to.Ptr("two")}, nil); err != nil {
		t.Fatal(err)
	}
	props, _ = bb.GetProperties(ctx, nil)
	if len(props.Metadata) != 2 || *props.Metadata["B"] != "two" || *props.Metadata["A"] != "1" && *props.Metadata["a"] != "1" {
		t.Fatalf("metadata %v", props.Metadata)
	}

	// An empty blob.
	empty := e.block("box", "empty")
	if _, err := empty.Upload(ctx, rsc(nil), nil); err != nil {
		t.Fatal(err)
	}
	got, resp = download(t, empty, nil)
	if len(got) != 0 || *resp.ContentLength != 0 || *resp.ContentType != "application/octet-stream" {
		t.Fatalf("empty blob %+v", resp)
	}

	if _, err := bb.Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err = bb.GetProperties(ctx, nil)
	wantCode(t, err, bloberror.BlobNotFound)
	_, err = bb.DownloadStream(ctx, nil)
	wantCode(t, err, bloberror.BlobNotFound)
	_, err = bb.Delete(ctx, nil)
	wantCode(t, err, bloberror.BlobNotFound)
	_, err = e.block("nobox", "x").Upload(ctx, rsc([]byte("x")), nil)
	wantCode(t, err, bloberror.ContainerNotFound)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestConditions(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	bb := e.block("box", "b")
	up, err := bb.Upload(ctx, rsc([]byte("v1")), nil)
	if err != nil {
		t.Fatal(err)
	}
	etag := *up.ETag
	other := azcore.ETag(`"0x8D000000000000"`)
	mac := func(m blob.ModifiedAccessConditions) *blob.AccessConditions {
		return &blob.AccessConditions{ModifiedAccessConditions: &m}
	}
	// Reads.
	_, err = bb.DownloadStream(ctx, &blob.DownloadStreamOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &other})})
	wantCode(t, err, bloberror.ConditionNotMet)
	// The SDK takes a download's 304 for success, with no body.
	if got, _ := download(t, bb, &blob.DownloadStreamOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &etag})}); len(got) != 0 {
		t.Fatalf("a 304 with %d bytes", len(got))
	}
	_, err = bb.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: &etag})})
	wantStatus(t, err, 304)
	_, err = bb.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)})})
	wantStatus(t, err, 304)
	_, err = bb.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfModifiedSince: to.Ptr(up.LastModified.Add(time.Second))})})
	wantStatus(t, err, 304)
	_, err = bb.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfUnmodifiedSince: to.Ptr(up.LastModified.Add(-time.Hour))})})
	wantStatus(t, err, 412)
	if _, err := bb.GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &etag, IfModifiedSince: to.Ptr(up.LastModified.Add(-time.Hour))})}); err != nil {
		t.Fatal(err)
	}
	// Writes.
	_, err = bb.Upload(ctx, rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)})})
	wantCode(t, err, bloberror.BlobAlreadyExists)
	_, err = bb.Upload(ctx, rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &other})})
	wantCode(t, err, bloberror.ConditionNotMet)
	_, err = bb.SetMetadata(ctx, nil, &blob.SetMetadataOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfUnmodifiedSince: to.Ptr(up.LastModified.Add(-time.Hour))})})
	wantCode(t, err, bloberror.ConditionNotMet)
	_, err = bb.Delete(ctx, &blob.DeleteOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &other})})
	wantCode(t, err, bloberror.ConditionNotMet)
	up2, err := bb.Upload(ctx, rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: &etag})})
	if err != nil || *up2.ETag == etag {
		t.Fatalf("conditional upload %+v %v", up2, err)
	}
	_, err = e.block("box", "new").Upload(ctx, rsc([]byte("x")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETagAny)})})
	wantCode(t, err, bloberror.ConditionNotMet)
	if _, err := e.block("box", "new").Upload(ctx, rsc([]byte("x")), &blockblob.UploadOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)})}); err != nil {
		t.Fatal(err)
	}
	if _, err := bb.Delete(ctx, &blob.DeleteOptions{AccessConditions: mac(blob.ModifiedAccessConditions{IfMatch: up2.ETag})}); err != nil {
		t.Fatal(err)
	}
}

func blockID(i int) string {
	return base64.StdEncoding.EncodeToString([]byte{'b', 'l', 'k', byte('0' + i/10), byte('0' + i%10)})
}

func TestBlocks(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	bb := e.block("box", "blocks")
	parts := [][]byte{randBytes(1000, 1), randBytes(tblob.ChunkSize+1, 2), []byte("tail")}
	for i, p := range parts {
		sum := md5.Sum(p)
		r, err := bb.StageBlock(ctx, blockID(i), rsc(p), &blockblob.StageBlockOptions{TransactionalValidation: blob.TransferValidationTypeMD5(sum[:])})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.ContentMD5, sum[:]) {
			t.Fatalf("stage block MD5 %x", r.ContentMD5)
		}
	}
	_, err := bb.StageBlock(ctx, blockID(9), rsc([]byte("x")), &blockblob.StageBlockOptions{TransactionalValidation: blob.TransferValidationTypeMD5(make([]byte, 16))})
	wantCode(t, err, bloberror.MD5Mismatch)
	_, err = bb.StageBlock(ctx, base64.StdEncoding.EncodeToString([]byte("longer id")), rsc([]byte("x")), nil)
	wantCode(t, err, bloberror.InvalidBlobOrBlock)
	_, err = bb.StageBlock(ctx, "%%%", rsc([]byte("x")), nil)
	wantStatus(t, err, 400)

	bl, err := bb.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err != nil || len(bl.UncommittedBlocks) != 3 || len(bl.CommittedBlocks) != 0 {
		t.Fatalf("uncommitted list %+v %v", bl, err)
	}
	_, err = bb.GetProperties(ctx, nil)
	wantCode(t, err, bloberror.BlobNotFound)

	_, err = bb.CommitBlockList(ctx, []string{blockID(0), blockID(7)}, nil)
	wantCode(t, err, bloberror.InvalidBlockList)
	whole := bytes.Join([][]byte{parts[2], parts[0], parts[1]}, nil)
	wsum := md5.Sum(whole)
	cr, err := bb.CommitBlockList(ctx, []string{blockID(2), blockID(0), blockID(1)}, &blockblob.CommitBlockListOptions{
		HTTPHeaders: &blob.HTTPHeaders{BlobContentType: to.Ptr("image/png"), BlobContentMD5: wsum[:]},
		Metadata:    map[string]*string{"Kind": to.Ptr("blocks")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, resp := download(t, bb, nil)
	if !bytes.Equal(got, whole) || *resp.ETag != *cr.ETag || *resp.ContentType != "image/png" || !bytes.Equal(resp.ContentMD5, wsum[:]) || *resp.Metadata["Kind"] != "blocks" {
		t.Fatalf("committed blob %+v", resp)
	}
	bl, err = bb.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err != nil || len(bl.UncommittedBlocks) != 0 || len(bl.CommittedBlocks) != 3 ||
		*bl.CommittedBlocks[0].Name != blockID(2) || *bl.CommittedBlocks[2].Size != int64(len(parts[1])) || *bl.BlobContentLength != int64(len(whole)) {
		t.Fatalf("committed list %+v %v", bl, err)
	}
	// Recommit: one committed block kept, one new, the rest dropped.
	if _, err := bb.StageBlock(ctx, blockID(3), rsc([]byte("new")), nil); err != nil {
		t.Fatal(err)
	}
	bl, _ = bb.GetBlockList(ctx, blockblob.BlockListTypeUncommitted, nil)
	if len(bl.UncommittedBlocks) != 1 || bl.CommittedBlocks != nil && len(bl.CommittedBlocks) != 0 {
		t.Fatalf("uncommitted only %+v", bl)
	}
	if _, err := bb.CommitBlockList(ctx, []string{blockID(2), blockID(3)}, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := download(t, bb, nil); string(got) != "tailnew" {
		t.Fatalf("recommitted %q", got)
	}
	// container, blob, and one chunk each of blocks 2 and 3.
	if n := e.store.Len(); n != 4 {
		t.Fatalf("%d entities, want 4: data of dropped blocks was kept", n)
	}
}

func TestUploadBufferAndStream(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	data := randBytes(5<<20+123, 3)
	sum := md5.Sum(data)
	// UploadBuffer puts anything up to 256 MiB in one request, whatever
	// the block size; the service keeps the MD5 of such a blob.
	bb := e.block("box", "buffer")
	if _, err := bb.UploadBuffer(ctx, data, &blockblob.UploadBufferOptions{BlockSize: 1 << 20, Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	bl, err := bb.GetBlockList(ctx, blockblob.BlockListTypeCommitted, nil)
	if err != nil || len(bl.CommittedBlocks) != 0 {
		t.Fatalf("%d blocks, %v", len(bl.CommittedBlocks), err)
	}
	if got, resp := download(t, bb, nil); !bytes.Equal(got, data) || !bytes.Equal(resp.ContentMD5, sum[:]) {
		t.Fatal("UploadBuffer content differs")
	}
	st := e.block("box", "stream")
	if _, err := st.UploadStream(ctx, bytes.NewReader(data), &blockblob.UploadStreamOptions{BlockSize: 512 << 10, Concurrency: 3}); err != nil {
		t.Fatal(err)
	}
	// A committed block list has no MD5 unless the client sets one.
	if got, resp := download(t, st, nil); !bytes.Equal(got, data) || resp.ContentMD5 != nil {
		t.Fatal("UploadStream content differs")
	}
	p, _ := st.GetProperties(ctx, nil)
	bl, err = st.GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
	if err != nil || len(bl.CommittedBlocks) < 2 || len(bl.UncommittedBlocks) != 0 {
		t.Fatalf("block list %+v, %v", bl, err)
	}
	// The service counts committed blocks in the properties of append
	// blobs only.
	if p.BlobCommittedBlockCount != nil {
		t.Fatalf("a block blob's properties count its blocks: %d", *p.BlobCommittedBlockCount)
	}
}

func TestListBlobs(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	names := []string{"a.txt", "logs/2024/01.log", "logs/2024/02.log", "logs/2025/01.log", "logs/readme", "z"}
	for _, n := range names {
		if _, err := e.client.UploadBuffer(ctx, "box", n, []byte(n), &azblob.UploadBufferOptions{Metadata: map[string]*string{"N": to.Ptr("x")}}); err != nil {
			t.Fatal(err)
		}
	}
	cc := e.container("box")
	var flat []string
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: to.Ptr[int32](4), Include: container.ListBlobsInclude{Metadata: true}})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range page.Segment.BlobItems {
			flat = append(flat, *b.Name)
			if *b.Metadata["n"] != "x" || *b.Properties.ContentLength != int64(len(*b.Name)) || *b.Properties.BlobType != blob.BlobTypeBlockBlob {
				t.Fatalf("item %+v", b)
			}
		}
	}
	if strings.Join(flat, " ") != strings.Join(names, " ") {
		t.Fatalf("flat %v", flat)
	}
	hier := func(prefix string, max int32) (items []string) {
		p := cc.NewListBlobsHierarchyPager("/", &container.ListBlobsHierarchyOptions{Prefix: &prefix, MaxResults: &max})
		for p.More() {
			page, err := p.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, bp := range page.Segment.BlobPrefixes {
				items = append(items, "P:"+*bp.Name)
			}
			for _, b := range page.Segment.BlobItems {
				items = append(items, *b.Name)
			}
			items = append(items, "|")
		}
		return items
	}
	if got := strings.Join(hier("", 2), " "); got != "a.txt P:logs/ | z |" && got != "P:logs/ a.txt | z |" {
		t.Fatalf("hierarchy: %s", got)
	}
	if got := strings.Join(hier("logs/", 5000), " "); got != "P:logs/2024/ P:logs/2025/ logs/readme |" {
		t.Fatalf("hierarchy under logs/: %s", got)
	}
	if got := strings.Join(hier("logs/2024/", 1), " "); got != "logs/2024/01.log | logs/2024/02.log |" {
		t.Fatalf("hierarchy under logs/2024/: %s", got)
	}
}

func TestLargeStreamedUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("64 MiB upload")
	}
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	const size = 64 << 20
	// The body is made as it is read, so the client holds none of it
	// either, and the collector runs often: the heap's peak is then what
	// the server holds. A memory store keeps the data on the heap, so the
	// heap grows by the body once; a server that also buffered the body
	// would grow by it twice.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := heapAlloc()
	stop := make(chan struct{})
	peak := make(chan uint64)
	go func() {
		var max uint64
		for {
			select {
			case <-stop:
				peak <- max
				return
			case <-time.After(2 * time.Millisecond):
				if h := heapAlloc(); h > max {
					max = h
				}
			}
		}
	}()
	_, err := e.block("box", "big").Upload(ctx, &patternBody{size: size}, nil)
	close(stop)
	top := <-peak
	if err != nil {
		t.Fatal(err)
	}
	if grow := int64(top) - int64(base); grow > size+size/2 {
		t.Fatalf("heap peaked %d MiB above the start for a %d MiB body", grow>>20, size>>20)
	} else {
		t.Logf("heap peaked %d MiB above the start for a %d MiB body", grow>>20, size>>20)
	}
	bb := e.block("box", "big")
	r, err := bb.DownloadStream(ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: size - 1000, Count: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r.Body)
	r.Body.Close()
	want, _ := io.ReadAll(io.LimitReader(&pattern{n: size - 1000}, 1000))
	if !bytes.Equal(got, want) {
		t.Fatal("the end of the blob differs")
	}
	full, err := bb.DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := md5.New()
	n, _ := io.Copy(h, full.Body)
	full.Body.Close()
	wh := md5.New()
	io.Copy(wh, io.LimitReader(&pattern{}, size))
	if n != size || !bytes.Equal(h.Sum(nil), wh.Sum(nil)) || !bytes.Equal(full.ContentMD5, wh.Sum(nil)) {
		t.Fatalf("downloaded %d bytes, MD5 %x", n, h.Sum(nil))
	}
}

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// patternBody is a seekable request body of the pattern, made as it is
// read.
type patternBody struct {
	off, size int64
}

func (p *patternBody) Read(b []byte) (int, error) {
	if p.off >= p.size {
		return 0, io.EOF
	}
	b = b[:min(int64(len(b)), p.size-p.off)]
	pt := pattern{n: p.off}
	n, _ := pt.Read(b)
	p.off += int64(n)
	return n, nil
}

func (p *patternBody) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		p.off = off
	case io.SeekCurrent:
		p.off += off
	case io.SeekEnd:
		p.off = p.size + off
	}
	return p.off, nil
}

func (p *patternBody) Close() error { return nil }

// pattern is an endless reader of a byte pattern that does not repeat
// within a chunk.
type pattern struct{ n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	for i := range b {
		x := p.n + int64(i)
		b[i] = byte(x ^ x>>8 ^ x>>16)
	}
	p.n += int64(len(b))
	return len(b), nil
}

func TestSAS(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	e.client.UploadBuffer(ctx, "box", "readme", []byte("hello"), nil)
	key, _ := base64.StdEncoding.DecodeString(auth.DevAccountKey)
	sasClient := func(perms string) *container.Client {
		tok := auth.NewBlobSAS(auth.DevAccountName, key, auth.BlobSAS{Container: "box", Permissions: perms, Expiry: time.Now().Add(time.Hour)})
		c, err := container.NewClientWithNoCredential(e.url+"box?"+tok, &container.ClientOptions{ClientOptions: clientOptions()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ro := sasClient("rl")
	b, err := ro.NewBlockBlobClient("readme").DownloadStream(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(b.Body)
	b.Body.Close()
	if string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
	if page, err := ro.NewListBlobsFlatPager(nil).NextPage(ctx); err != nil || len(page.Segment.BlobItems) != 1 {
		t.Fatalf("list %v", err)
	}
	_, err = ro.NewBlockBlobClient("new").Upload(ctx, rsc([]byte("x")), nil)
	wantCode(t, err, bloberror.AuthorizationPermissionMismatch)
	_, err = ro.NewBlockBlobClient("readme").Delete(ctx, nil)
	wantCode(t, err, bloberror.AuthorizationPermissionMismatch)

	// Create may make a new blob but not overwrite one.
	cr := sasClient("c")
	if _, err := cr.NewBlockBlobClient("new").Upload(ctx, rsc([]byte("x")), nil); err != nil {
		t.Fatal(err)
	}
	_, err = cr.NewBlockBlobClient("readme").Upload(ctx, rsc([]byte("x")), nil)
	wantCode(t, err, bloberror.AuthorizationPermissionMismatch)

	rw := sasClient("rwd")
	if _, err := rw.NewBlockBlobClient("readme").UploadBuffer(ctx, []byte("changed"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.NewBlockBlobClient("readme").Delete(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// A container SAS reaches no container operation.
	_, err = rw.GetProperties(ctx, nil)
	wantStatus(t, err, 403)

	// A bad signature.
	bad, _ := container.NewClientWithNoCredential(e.url+"box?sv=2025-01-05&sr=c&sp=r&se=2099-01-01T00:00:00Z&sig=AAAA", &container.ClientOptions{ClientOptions: clientOptions()})
	_, err = bad.NewBlockBlobClient("new").GetProperties(ctx, nil)
	wantStatus(t, err, 403)

	// An account SAS for blobs.
	tok := auth.NewAccountSAS(auth.DevAccountName, key, auth.AccountSAS{Permissions: "rl", ResourceTypes: "sco", Services: "b", Expiry: time.Now().Add(time.Hour)})
	svc, err := service.NewClientWithNoCredential(e.url+"?"+tok, &service.ClientOptions{ClientOptions: clientOptions()})
	if err != nil {
		t.Fatal(err)
	}
	if page, err := svc.NewListContainersPager(nil).NextPage(ctx); err != nil || len(page.ContainerItems) != 1 {
		t.Fatalf("account SAS list: %v", err)
	}
	_, err = svc.CreateContainer(ctx, "other", nil)
	wantCode(t, err, bloberror.AuthorizationPermissionMismatch)
}

func TestNotImplemented(t *testing.T) {
	e := newEnv(t)
	e.client.CreateContainer(ctx, "box", nil)
	e.client.UploadBuffer(ctx, "box", "b", []byte("x"), nil)
	cc := e.container("box")
	for name, call := range map[string]func() error{
		"append blob": func() error { _, err := cc.NewAppendBlobClient("ab").Create(ctx, nil); return err },
		"page blob":   func() error { _, err := cc.NewPageBlobClient("pb").Create(ctx, 512, nil); return err },
		"snapshot":    func() error { _, err := cc.NewBlobClient("b").CreateSnapshot(ctx, nil); return err },
		"lease": func() error {
			_, err := cc.NewBlobClient("b").SetTier(ctx, blob.AccessTierCool, nil)
			return err
		},
		"tags": func() error {
			_, err := cc.NewBlobClient("b").SetTags(ctx, map[string]string{"a": "b"}, nil)
			return err
		},
		"copy":          func() error { _, err := cc.NewBlobClient("c").StartCopyFromURL(ctx, e.url+"box/b", nil); return err },
		"service props": func() error { _, err := e.client.ServiceClient().GetProperties(ctx, nil); return err },
		"access policy": func() error { _, err := cc.GetAccessPolicy(ctx, nil); return err },
		"tier on upload": func() error {
			_, err := e.block("box", "t").Upload(ctx, rsc(nil), &blockblob.UploadOptions{Tier: to.Ptr(blob.AccessTierCool)})
			return err
		},
		"list with snapshots": func() error {
			_, err := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true}}).NextPage(ctx)
			return err
		},
	} {
		err := call()
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != 501 || re.ErrorCode != "NotImplemented" {
			t.Errorf("%s: %v, want 501 NotImplemented", name, err)
		}
	}
}
