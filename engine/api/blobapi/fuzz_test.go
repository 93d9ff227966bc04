package blobapi

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/blob"
)

// FuzzServe sends any request to a server holding a container, a blob
// and a staged block. Whatever comes in, the answer is never an internal
// error (a panic is one), an error body is the service's XML, and no
// upload is left half made.
func FuzzServe(f *testing.F) {
	seeds := []struct{ method, target, headers, body string }{
		{"GET", "/devstoreaccount1?comp=list&include=metadata&maxresults=1", "", ""},
		{"GET", "/devstoreaccount1/box?restype=container&comp=list&delimiter=/&prefix=d&marker=d", "", ""},
		{"PUT", "/devstoreaccount1/box2?restype=container", "x-ms-meta-a: 1", ""},
		{"DELETE", "/devstoreaccount1/box?restype=container", "If-Modified-Since: Mon, 02 Jan 2006 15:04:05 GMT", ""},
		{"HEAD", "/devstoreaccount1/box?restype=container&comp=metadata", "", ""},
		{"PUT", "/devstoreaccount1/box?restype=container&comp=metadata", "x-ms-meta-1bad: x", ""},
		{"PUT", "/devstoreaccount1/box/dir/b%20c", "x-ms-blob-type: BlockBlob\nContent-MD5: 1B2M2Y8AsgTpgAmY7PhCfg==", ""},
		{"PUT", "/devstoreaccount1/box/b", "x-ms-blob-type: BlockBlob\nIf-None-Match: *", "data"},
		{"PUT", "/devstoreaccount1/box/b", "x-ms-blob-type: AppendBlob", ""},
		{"GET", "/devstoreaccount1/box/b", "x-ms-range: bytes=1-2", ""},
		{"GET", "/devstoreaccount1/box/b", "Range: bytes=9-\nx-ms-range-get-content-md5: true", ""},
		{"HEAD", "/devstoreaccount1/box/b", "If-None-Match: \"x\", *", ""},
		{"PUT", "/devstoreaccount1/box/b?comp=block&blockid=QUFB", "Content-MD5: xx", "abc"},
		{"PUT", "/devstoreaccount1/box/b?comp=blocklist", "x-ms-blob-content-type: a/b", "<BlockList><Latest>QUFB</Latest><Committed>QkJC</Committed></BlockList>"},
		{"PUT", "/devstoreaccount1/box/b?comp=blocklist", "", "<?xml version=\"1.0\"?><BlockList><Uncommitted>QUFB</Uncommitted></BlockList>"},
		{"GET", "/devstoreaccount1/box/b?comp=blocklist&blocklisttype=all", "", ""},
		{"PUT", "/devstoreaccount1/box/b?comp=properties", "x-ms-blob-content-md5: AAAAAAAAAAAAAAAAAAAAAA==", ""},
		{"PUT", "/devstoreaccount1/box/b?comp=metadata", "x-ms-meta-k: v", ""},
		{"GET", "/devstoreaccount1/box/b?comp=metadata", "", ""},
		{"DELETE", "/devstoreaccount1/box/b", "If-Match: *", ""},
		{"GET", "/devstoreaccount1/box/b?snapshot=x", "", ""},
		{"PUT", "/devstoreaccount1/box/b?comp=lease", "x-ms-lease-action: acquire", ""},
		{"POST", "/devstoreaccount1/box/%zz", "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.headers, []byte(s.body))
	}
	st := engine.New(engine.Options{OpenKeys: true})
	svc, err := blob.New(st)
	if err != nil {
		f.Fatal(err)
	}
	svc.CreateContainer("box", nil)
	svc.PutBlob("box", "b", strings.NewReader("hello world"), 11, blob.Properties{}, nil, nil, nil)
	svc.PutBlock("box", "b", "QUFB", strings.NewReader("abc"), 3, nil)
	srv := NewServer(svc, Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	f.Fuzz(func(t *testing.T, method, target, headers string, body []byte) {
		if len(body) > 1<<16 {
			return
		}
		req := &api.Request{Method: method, Target: target, Host: "127.0.0.1:10000", Body: body}
		for _, line := range strings.Split(headers, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				req.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
			}
		}
		// Half the inputs arrive streamed, as a host that can stream
		// hands them over.
		if len(body)%2 == 1 {
			req.BodyStream = bytes.NewReader(body)
			req.Body = nil
		}
		resp := srv.Serve(req)
		if resp.Status == 500 {
			t.Fatalf("%s %s: internal error %s", method, target, resp.Body)
		}
		if resp.BodyStream != nil {
			resp.BodyStream.Close()
		}
		if resp.Status >= 400 && method != "HEAD" {
			root, err := xmlwire.Parse(resp.Body)
			if err != nil || root.Name != "Error" || root.Child("Code") == nil {
				t.Fatalf("%s %s: error body %q", method, target, resp.Body)
			}
		}
		page, err := st.Query("blobs", engine.Query{Filter: "RowKey ge 'p/' and RowKey lt 'p0'"})
		if err != nil || len(page.Entities) > 0 {
			t.Fatalf("%s %s: an upload was left behind (%v)", method, target, err)
		}
	})
}

// FuzzBlockList reads any document as a Put Block List body: it is a
// list of ids, or InvalidXmlDocument, never a panic.
func FuzzBlockList(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>QUFB</Latest><Committed>QkJC</Committed><Uncommitted>Q0ND</Uncommitted></BlockList>`,
		`<BlockList/>`,
		`<BlockList><Latest><![CDATA[QUFB]]></Latest><!-- c --></BlockList>`,
		`<BlockList><Other>x</Other></BlockList>`,
		`<BlockList><Latest><X/></Latest></BlockList>`,
		`<List><Latest>a</Latest></List>`,
		`<BlockList><Latest>&#65;&amp;</Latest>`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		refs, err := parseBlockList(doc)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "InvalidXmlDocument") {
				t.Fatalf("error %v", err)
			}
			return
		}
		for _, r := range refs {
			if r.Kind > blob.Uncommitted {
				t.Fatalf("kind %d", r.Kind)
			}
		}
	})
}
