package blobapi

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/internal/servicetest"
	"github.com/tablelab/tablelab/engine/blob"
)

func TestParseBlockList(t *testing.T) {
	refs, err := parseBlockList([]byte(`<?xml version="1.0" encoding="utf-8"?>
<BlockList>
  <Latest> QUFB </Latest>
  <Committed>QkJC</Committed>
  <Uncommitted>Q0ND</Uncommitted>
</BlockList>`))
	want := []blob.BlockRef{{ID: "QUFB", Kind: blob.Latest}, {ID: "QkJC", Kind: blob.Committed}, {ID: "Q0ND", Kind: blob.Uncommitted}}
	if err != nil || len(refs) != 3 || refs[0] != want[0] || refs[1] != want[1] || refs[2] != want[2] {
		t.Fatalf("%+v %v", refs, err)
	}
	for _, bad := range []string{`<BlockList><Latest>a</Latest>`, `<Blocks/>`, `<BlockList><Block>a</Block></BlockList>`} {
		if _, err := parseBlockList([]byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "InvalidXmlDocument") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// wireServer is a server on a fixed clock, with ids that count.
func wireServer(t *testing.T) *Server {
	t.Helper()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	svc, err := blob.New(engine.New(engine.Options{OpenKeys: true, Now: func() time.Time { return now }}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	return NewServer(svc, Options{Verifier: &auth.Verifier{AllowAnonymous: true}, NewID: func() string {
		n++
		return "id-" + string(rune('0'+n))
	}})
}

func do(s *Server, method, target, headers, body string) *api.Response {
	req := &api.Request{Method: method, Target: target, Host: "127.0.0.1:10000", Body: []byte(body)}
	for _, line := range strings.Split(headers, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	}
	return s.Serve(req)
}

func TestWire(t *testing.T) {
	s := wireServer(t)
	const acct = "/devstoreaccount1"
	if r := do(s, "PUT", acct+"/box?restype=container", "", ""); r.Status != 201 || r.Header.Get("ETag") == "" {
		t.Fatalf("create: %d", r.Status)
	}
	r := do(s, "PUT", acct+"/box?restype=container", "", "")
	want := `<?xml version="1.0" encoding="utf-8"?><Error><Code>ContainerAlreadyExists</Code><Message>The specified container already exists.` +
		"\nRequestId:id-2\nTime:2025-01-02T03:04:05.0000000Z</Message></Error>"
	if r.Status != 409 || string(r.Body) != want || r.Header.Get("x-ms-error-code") != "ContainerAlreadyExists" {
		t.Fatalf("conflict: %d %s", r.Status, r.Body)
	}
	if r := do(s, "PUT", acct+"/box/a", "", "x"); r.Status != 400 || r.Header.Get("x-ms-error-code") != "MissingRequiredHeader" {
		t.Fatalf("no blob type: %d %s", r.Status, r.Body)
	}
	if r := do(s, "PUT", acct+"/box/a", "x-ms-blob-type: PageBlob", ""); r.Status != 501 || r.Header.Get("x-ms-error-code") != "NotImplemented" {
		t.Fatalf("page blob: %d %s", r.Status, r.Body)
	}
	for _, n := range []string{"d/1", "d/2", "e"} {
		if r := do(s, "PUT", acct+"/box/"+n, "x-ms-blob-type: BlockBlob\nx-ms-blob-content-type: text/plain", "hello"); r.Status != 201 ||
			r.Header.Get("Content-MD5") != "XUFAKrxLKna5cZ2REBfFkg==" {
			t.Fatalf("put %s: %d %s", n, r.Status, r.Body)
		}
	}
	r = do(s, "GET", acct+"/box?restype=container&comp=list&delimiter=/&maxresults=1", "", "")
	body := string(r.Body)
	if r.Status != 200 || !strings.Contains(body, `<EnumerationResults ServiceEndpoint="http://127.0.0.1:10000/devstoreaccount1/" ContainerName="box">`) ||
		!strings.Contains(body, "<MaxResults>1</MaxResults><Delimiter>/</Delimiter><Blobs><BlobPrefix><Name>d/</Name></BlobPrefix></Blobs><NextMarker>e</NextMarker>") {
		t.Fatalf("list: %s", body)
	}
	r = do(s, "GET", acct+"/box/e", "x-ms-range: bytes=5-9", "")
	if r.Status != 416 || r.Header.Get("Content-Range") != "bytes */5" {
		t.Fatalf("unsatisfiable range: %d %v", r.Status, r.Header.Get("Content-Range"))
	}
	r = do(s, "GET", acct+"/box/e", "Range: bytes=1-3", "")
	got, _ := io.ReadAll(r.BodyStream)
	r.BodyStream.Close()
	if r.Status != 206 || string(got) != "ell" || r.BodyLength != 3 || r.Header.Get("Content-Range") != "bytes 1-3/5" ||
		r.Header.Get("Content-Type") != "text/plain" || r.Header.Get("x-ms-blob-type") != "BlockBlob" {
		t.Fatalf("range: %d %q", r.Status, got)
	}
	r = do(s, "HEAD", acct+"/box/e", "If-None-Match: *", "")
	if r.Status != 304 || len(r.Body) != 0 {
		t.Fatalf("If-None-Match on HEAD: %d", r.Status)
	}
	r = do(s, "GET", acct+"/box/e?comp=blocklist&blocklisttype=all", "", "")
	if want := `<?xml version="1.0" encoding="utf-8"?><BlockList><CommittedBlocks></CommittedBlocks><UncommittedBlocks></UncommittedBlocks></BlockList>`; string(r.Body) != want {
		t.Fatalf("block list: %s", r.Body)
	}
	if r := do(s, "GET", acct+"/box/e?snapshot=2025-01-01", "", ""); r.Status != 501 {
		t.Fatalf("snapshot: %d", r.Status)
	}
	if r := do(s, "PATCH", acct+"/box/e", "", ""); r.Status != 405 {
		t.Fatalf("PATCH: %d", r.Status)
	}
}

// TestAccessPoliciesRefuseTokens checks that a container's stored access
// policies are the account owner's: a bearer token reaches the blobs,
// not the policies, before anything else is said of the operation.
func TestAccessPoliciesRefuseTokens(t *testing.T) {
	svc, err := blob.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(svc, Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()},
		Bearer: func(string, auth.Request) error { return nil }}})
	if r := servicetest.AsToken(s, blobHost, "PUT", "/box?restype=container", ""); r.Status != 201 {
		t.Fatalf("a token creating a container: %d %s", r.Status, r.Body)
	}
	servicetest.TokensRefusedPolicies(t, s, blobHost, "/box?restype=container&comp=acl")
}

// TestPreflight checks the CORS preflights the Blob service answers
// before any authentication; tablelab keeps no CORS rules for it.
func TestPreflight(t *testing.T) {
	svc, err := blob.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Preflights(t, NewServer(svc, Options{}), blobHost, "/box/a.txt")
}

const blobHost = "127.0.0.1:10000"
