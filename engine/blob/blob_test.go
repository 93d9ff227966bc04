package blob

import (
	"bytes"
	"crypto/md5"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/svcerr"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newService(t *testing.T) (*Service, *engine.Store, *clock) {
	t.Helper()
	c := &clock{time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := engine.New(engine.Options{OpenKeys: true, Now: c.now})
	s, err := New(st)
	if err != nil {
		t.Fatal(err)
	}
	return s, st, c
}

func wantCode(t *testing.T, err error, code svcerr.Code) {
	t.Helper()
	if !svcerr.Is(err, code) {
		t.Fatalf("err = %v, want %s", err, code)
	}
}

func readAll(t *testing.T, s *Service, b *Blob, off, n int64) []byte {
	t.Helper()
	r := s.Open(b, off, n)
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func randBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestContainers(t *testing.T) {
	s, _, c := newService(t)
	if _, err := s.CreateContainer("Bad_Name", nil); !svcerr.Is(err, svcerr.InvalidResourceName) {
		t.Fatalf("bad name: %v", err)
	}
	for _, n := range []string{"a-b", "abc", "zz9", "ab--c"} {
		_, err := s.CreateContainer(n, []Pair{{"K", "v"}})
		if n == "ab--c" {
			wantCode(t, err, svcerr.InvalidResourceName)
			continue
		}
		if err != nil {
			t.Fatal(n, err)
		}
		c.t = c.t.Add(time.Second)
	}
	_, err := s.CreateContainer("abc", nil)
	wantCode(t, err, svcerr.ContainerAlreadyExists)
	p, err := s.ListContainers("", "", 2)
	if err != nil || len(p.Containers) != 2 || p.Containers[0].Name != "a-b" || p.NextMarker != "zz9" {
		t.Fatalf("page 1: %+v %v", p, err)
	}
	p, err = s.ListContainers("", p.NextMarker, 2)
	if err != nil || len(p.Containers) != 1 || p.Containers[0].Name != "zz9" || p.NextMarker != "" {
		t.Fatalf("page 2: %+v %v", p, err)
	}
	got, err := s.GetContainer("abc", nil)
	if err != nil || len(got.Metadata) != 1 || got.Metadata[0] != (Pair{"K", "v"}) {
		t.Fatalf("get: %+v %v", got, err)
	}
	c.t = c.t.Add(time.Minute)
	up, err := s.SetContainerMetadata("abc", []Pair{{"x", "1"}}, &Conditions{IfModifiedSince: c.t})
	wantCode(t, err, svcerr.ConditionNotMet)
	up, err = s.SetContainerMetadata("abc", []Pair{{"x", "1"}}, nil)
	if err != nil || up.ETag == got.ETag || !up.LastModified.After(got.LastModified) {
		t.Fatalf("set metadata: %+v %v", up, err)
	}
	if err := s.DeleteContainer("abc", nil); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetContainer("abc", nil)
	wantCode(t, err, svcerr.ContainerNotFound)
	wantCode(t, s.DeleteContainer("abc", nil), svcerr.ContainerNotFound)
}

func TestPutGetBlob(t *testing.T) {
	s, st, _ := newService(t)
	s.CreateContainer("box", nil)
	data := randBytes(2*ChunkSize+12345, 1)
	sum := md5.Sum(data)
	_, err := s.PutBlob("box", "dir/a?b#c", bytes.NewReader(data), int64(len(data)), Properties{ContentType: "text/x"}, nil, []byte("0123456789abcdef"), nil)
	wantCode(t, err, svcerr.MD5Mismatch)
	if st.Len() != 1 {
		t.Fatalf("a failed upload left %d entities", st.Len())
	}
	b, err := s.PutBlob("box", "dir/a?b#c", bytes.NewReader(data), int64(len(data)), Properties{ContentType: "text/x"}, []Pair{{"m", "1"}}, sum[:], nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.ContentMD5, sum[:]) || b.Size != int64(len(data)) {
		t.Fatalf("blob %+v", b)
	}
	g, err := s.GetBlob("box", "dir/a?b#c", nil)
	if err != nil || g.ETag != b.ETag || g.ContentType != "text/x" || g.Metadata[0].Value != "1" {
		t.Fatalf("get %+v %v", g, err)
	}
	if got := readAll(t, s, g, 0, g.Size); !bytes.Equal(got, data) {
		t.Fatal("content differs")
	}
	for _, r := range [][2]int64{{0, 1}, {ChunkSize - 3, 10}, {ChunkSize * 2, 12345}, {5, ChunkSize * 2}} {
		if got := readAll(t, s, g, r[0], r[1]); !bytes.Equal(got, data[r[0]:r[0]+r[1]]) {
			t.Fatalf("range %v differs", r)
		}
	}
	_, err = s.GetBlob("box", "dir/a?b#c", &Conditions{IfNoneMatch: b.ETag})
	if err != ErrNotModified {
		t.Fatalf("If-None-Match: %v", err)
	}
	_, err = s.PutBlob("box", "dir/a?b#c", strings.NewReader("x"), 1, Properties{}, nil, nil, &Conditions{IfNoneMatch: "*"})
	wantCode(t, err, svcerr.BlobAlreadyExists)
	_, err = s.PutBlob("box", "dir/a?b#c", strings.NewReader("x"), 1, Properties{}, nil, nil, &Conditions{IfMatch: `"0x1"`})
	wantCode(t, err, svcerr.ConditionNotMet)
	// Overwriting drops the old data.
	b2, err := s.PutBlob("box", "dir/a?b#c", strings.NewReader("hello"), 5, Properties{}, nil, nil, &Conditions{IfMatch: b.ETag})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, b2, 0, 5); string(got) != "hello" {
		t.Fatalf("got %q", got)
	}
	// container, blob, one chunk
	if st.Len() != 3 {
		t.Fatalf("%d entities after overwrite, want 3", st.Len())
	}
	wantCode(t, s.DeleteBlob("box", "dir/a?b#c", &Conditions{IfMatch: b.ETag}), svcerr.ConditionNotMet)
	if err := s.DeleteBlob("box", "dir/a?b#c", nil); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 1 {
		t.Fatalf("%d entities after delete, want 1", st.Len())
	}
	wantCode(t, s.DeleteBlob("box", "dir/a?b#c", nil), svcerr.BlobNotFound)
	_, err = s.GetBlob("nope", "x", nil)
	wantCode(t, err, svcerr.ContainerNotFound)
	_, err = s.PutBlob("box", "short", strings.NewReader("abc"), 10, Properties{}, nil, nil, nil)
	wantCode(t, err, svcerr.InvalidInput)
	if st.Len() != 1 {
		t.Fatalf("%d entities after a short body, want 1", st.Len())
	}
}

func TestBlocks(t *testing.T) {
	s, st, _ := newService(t)
	s.CreateContainer("cnt", nil)
	id := func(i int) string { return []string{"QUFB", "QkJC", "Q0ND", "RERE"}[i] } // AAA BBB CCC DDD
	parts := [][]byte{randBytes(ChunkSize+7, 2), []byte("second"), randBytes(100, 3)}
	for i, p := range parts {
		if err := s.PutBlock("cnt", "b", id(i), bytes.NewReader(p), int64(len(p)), nil); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, s.PutBlock("cnt", "b", "QUFBQQ==", strings.NewReader("x"), 1, nil), svcerr.InvalidBlobOrBlock)
	wantCode(t, s.PutBlock("cnt", "b", "not base64!", strings.NewReader("x"), 1, nil), svcerr.InvalidQueryParameterValue)
	// Staging a block again replaces it.
	if err := s.PutBlock("cnt", "b", id(1), strings.NewReader("SECOND"), 6, nil); err != nil {
		t.Fatal(err)
	}
	bl, err := s.GetBlockList("cnt", "b", true, true, nil)
	if err != nil || bl.Blob != nil || len(bl.Uncommitted) != 3 || len(bl.Committed) != 0 {
		t.Fatalf("block list %+v %v", bl, err)
	}
	_, err = s.GetBlob("cnt", "b", nil)
	wantCode(t, err, svcerr.BlobNotFound)
	_, err = s.PutBlockList("cnt", "b", []BlockRef{{id(0), Latest}, {id(3), Latest}}, Properties{}, nil, nil)
	wantCode(t, err, svcerr.InvalidBlockList)
	_, err = s.PutBlockList("cnt", "b", []BlockRef{{id(0), Committed}}, Properties{}, nil, nil)
	wantCode(t, err, svcerr.InvalidBlockList)
	b, err := s.PutBlockList("cnt", "b", []BlockRef{{id(0), Uncommitted}, {id(1), Latest}, {id(0), Latest}}, Properties{ContentType: "a/b"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]byte{}, parts[0]...), "SECOND"...), parts[0]...)
	if got := readAll(t, s, b, 0, b.Size); !bytes.Equal(got, want) {
		t.Fatal("committed content differs")
	}
	bl, err = s.GetBlockList("cnt", "b", true, true, nil)
	if err != nil || len(bl.Uncommitted) != 0 || len(bl.Committed) != 3 || bl.Committed[1] != (Block{id(1), 6}) {
		t.Fatalf("after commit %+v %v", bl, err)
	}
	// Block 2 was never committed and went with the commit: container,
	// blob, and the data of blocks 0 (two chunks) and 1.
	if st.Len() != 5 {
		t.Fatalf("%d entities, want 5", st.Len())
	}
	// Recommit keeping block 1 only, from the committed list.
	if err := s.PutBlock("cnt", "b", id(3), strings.NewReader("new"), 3, nil); err != nil {
		t.Fatal(err)
	}
	b, err = s.PutBlockList("cnt", "b", []BlockRef{{id(1), Committed}, {id(3), Uncommitted}}, Properties{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, b, 0, b.Size); string(got) != "SECONDnew" {
		t.Fatalf("got %q", got)
	}
	if st.Len() != 4 {
		t.Fatalf("%d entities, want 4", st.Len())
	}
	// A blob put whole has no committed blocks, and takes no others' ids.
	if _, err := s.PutBlob("cnt", "b", strings.NewReader("x"), 1, Properties{}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	bl, _ = s.GetBlockList("cnt", "b", true, true, nil)
	if len(bl.Committed) != 0 || st.Len() != 3 {
		t.Fatalf("after put blob: %+v, %d entities", bl, st.Len())
	}
}

func TestLongBlockList(t *testing.T) {
	s, _, _ := newService(t)
	s.CreateContainer("cnt", nil)
	// Ids of 64 bytes make an encoded list of ~9,000 × 107 bytes, more
	// than the blob's entity keeps inline.
	const n = 9000
	refs := make([]BlockRef, n)
	for i := range refs {
		raw := bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 32)
		refs[i] = BlockRef{ID: b64(raw)}
		if err := s.PutBlock("cnt", "big", refs[i].ID, bytes.NewReader(raw[:2]), 2, nil); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.PutBlockList("cnt", "big", refs, Properties{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Size != 2*n || b.Blocks != n {
		t.Fatalf("size %d blocks %d", b.Size, b.Blocks)
	}
	g, _ := s.GetBlob("cnt", "big", nil)
	got := readAll(t, s, g, 2*4000, 4)
	if !bytes.Equal(got, []byte{0xa0, 0x0f, 0xa1, 0x0f}) {
		t.Fatalf("got %x", got)
	}
	bl, err := s.GetBlockList("cnt", "big", true, false, nil)
	if err != nil || len(bl.Committed) != n {
		t.Fatalf("%d committed, %v", len(bl.Committed), err)
	}
	if err := s.DeleteContainer("cnt", nil); err != nil {
		t.Fatal(err)
	}
	if s.store.Len() != 0 {
		t.Fatalf("%d entities left", s.store.Len())
	}
}

func TestListBlobs(t *testing.T) {
	s, _, _ := newService(t)
	s.CreateContainer("cnt", nil)
	names := []string{"a", "b/1", "b/2", "b/c/3", "c", "d/1"}
	for _, n := range names {
		if _, err := s.PutBlob("cnt", n, strings.NewReader(n), int64(len(n)), Properties{}, nil, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	list := func(prefix, delim, marker string, max int) (got []string, next string) {
		p, err := s.ListBlobs("cnt", prefix, delim, marker, max)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range p.Items {
			if it.Blob != nil {
				got = append(got, it.Blob.Name)
			} else {
				got = append(got, "P:"+it.Prefix)
			}
		}
		return got, p.NextMarker
	}
	check := func(got []string, want string) {
		t.Helper()
		if strings.Join(got, " ") != want {
			t.Fatalf("got %q, want %q", strings.Join(got, " "), want)
		}
	}
	got, next := list("", "/", "", 0)
	check(got, "a P:b/ c P:d/")
	got, next = list("", "/", "", 2)
	check(got, "a P:b/")
	if next != "c" {
		t.Fatalf("next %q", next)
	}
	got, next = list("", "/", next, 2)
	check(got, "c P:d/")
	got, _ = list("b/", "/", "", 0)
	check(got, "b/1 b/2 P:b/c/")
	got, next = list("b", "", "", 3)
	check(got, "b/1 b/2 b/c/3")
	if next != "" {
		t.Fatalf("next %q", next)
	}
	got, next = list("", "", "", 5)
	check(got, "a b/1 b/2 b/c/3 c")
	if next != "d/1" {
		t.Fatalf("next %q", next)
	}
	got, next = list("", "/", "", 1)
	got, next = list("", "/", next, 1)
	check(got, "P:b/")
	if next != "c" {
		t.Fatalf("next %q", next)
	}
}

func TestRecoverAndDiscardStaged(t *testing.T) {
	s, st, c := newService(t)
	s.CreateContainer("cnt", nil)
	c2, _ := s.CreateContainer("dead", nil)
	// An upload that never committed, and a deleted container whose
	// blobs were not yet removed, as a crash leaves them.
	c1, _ := s.container("cnt")
	if _, err := s.write(c1.gen, bytes.NewReader(make([]byte, ChunkSize+1)), ChunkSize+1); err != nil {
		t.Fatal(err)
	}
	s.PutBlob("dead", "x", strings.NewReader("abc"), 3, Properties{}, nil, nil, nil)
	st.Batch(containersTable, []engine.Op{
		{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: containersPK, RowKey: "c/dead"}},
		{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: containersPK, RowKey: "g/" + c2.gen}},
	})
	if err := s.PutBlock("cnt", "staged", "QUFB", strings.NewReader("abc"), 3, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := New(st); err != nil {
		t.Fatal(err)
	}
	// container, stage, block, its data
	if st.Len() != 4 {
		t.Fatalf("%d entities after recovery, want 4", st.Len())
	}
	c.t = c.t.Add(6 * 24 * time.Hour)
	if n, err := s.DiscardStaged(StagedLifetime); n != 0 || err != nil {
		t.Fatal(n, err)
	}
	c.t = c.t.Add(2 * 24 * time.Hour)
	if n, err := s.DiscardStaged(StagedLifetime); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if st.Len() != 1 {
		t.Fatalf("%d entities after discarding, want 1", st.Len())
	}
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
