package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/durable/durabletest"
)

// memStorage is an object's storage in memory.
type memStorage struct {
	mu    sync.Mutex
	kv    map[string]string
	media map[string]*durabletest.Medium
}

func newMemStorage() *memStorage {
	return &memStorage{kv: map[string]string{}, media: map[string]*durabletest.Medium{}}
}

func (s *memStorage) medium(name string) (durable.Medium, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.media[name]
	if ok {
		// Opened again, as after the object's restart: what it made
		// durable.
		m = m.Crash()
	} else {
		m = durabletest.NewMedium()
	}
	s.media[name] = m
	return m, nil
}

func (s *memStorage) get(k string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.kv[k]
	return v, ok, nil
}

func (s *memStorage) put(k, v string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv[k] = v
	return nil
}

func (s *memStorage) del(k string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.kv, k)
	return nil
}

func (s *memStorage) scan(prefix, from string, limit int) ([]pair, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []pair
	for k, v := range s.kv {
		if strings.HasPrefix(k, prefix) && k >= prefix+from {
			out = append(out, pair{k, v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].k < out[j].k })
	return out[:min(len(out), limit)], nil
}

func (s *memStorage) wipe() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kv, s.media = map[string]string{}, map[string]*durabletest.Medium{}
	return nil
}

// cloud is the Durable Object mode in one process: a front and the
// objects it calls, each object's storage in memory, every call counted
// by the object it went to.
type cloud struct {
	h       *host
	mu      sync.Mutex
	storage map[string]*memStorage
	calls   map[string]int
}

func newCloud(t *testing.T) *cloud {
	t.Helper()
	cfg, err := readConfig(env(map[string]string{envDev: "1"}))
	if err != nil {
		t.Fatal(err)
	}
	c := &cloud{storage: map[string]*memStorage{}, calls: map[string]int{}}
	c.h, err = newDurableHost(cfg, c.call, func(r *http.Request) (storage, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		name := r.Header.Get(hdrObject)
		st := c.storage[name]
		if st == nil {
			st = newMemStorage()
			c.storage[name] = st
		}
		return st, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// call is a stub's fetch: the request crosses as HTTP would carry it,
// and so does the answer (header names canonical, the body read whole).
func (c *cloud) call(name string, r *http.Request) (*recorder, error) {
	c.mu.Lock()
	c.calls[name]++
	c.mu.Unlock()
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
	}
	in := httptest.NewRequest(r.Method, r.URL.String(), bytes.NewReader(body))
	in.RequestURI = r.RequestURI
	in.Host = r.Host
	in.Header = r.Header.Clone()
	in.Header.Set(hdrObject, name)
	in.Header.Set(hdrInstance, "1")
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, in)
	rec := newRecorder()
	for k, vs := range w.Result().Header {
		for _, v := range vs {
			rec.hdr.Add(k, v)
		}
	}
	rec.status = w.Code
	rec.body.Write(w.Body.Bytes())
	return rec, nil
}

func (c *cloud) do(t *testing.T, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	return do(c.h, r)
}

func TestShardsCreateInsertRead(t *testing.T) {
	c := newCloud(t)
	if w := c.do(t, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"tone"}`)); w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	if w := c.do(t, signed("POST", "/devstoreaccount1/tone", `{"PartitionKey":"a","RowKey":"1","V":"a1"}`)); w.Code != 201 {
		t.Fatalf("insert: %d %s", w.Code, w.Body)
	}
	w := c.do(t, signed("GET", "/devstoreaccount1/tone(PartitionKey='a',RowKey='1')", ""))
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"V":"a1"`) {
		t.Fatalf("get: %d %s", w.Code, w.Body)
	}
}

// ok sends r and fails the test unless the answer has status want.
func (c *cloud) ok(t *testing.T, want int, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	w := c.do(t, r)
	if w.Code != want {
		t.Fatalf("%s %s: %d, want %d: %s", r.Method, r.URL, w.Code, want, w.Body)
	}
	return w
}

func (c *cloud) reset() {
	c.mu.Lock()
	clear(c.calls)
	c.mu.Unlock()
}

// partitionsCalled counts the partition objects called since reset.
func (c *cloud) partitionsCalled() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for name := range c.calls {
		if strings.HasPrefix(name, "part/") {
			n++
		}
	}
	return n
}

// insertAll makes table and puts rows rows in each of the partitions
// p00…, with a property N counting the entities.
func (c *cloud) insertAll(t *testing.T, table string, partitions, rows int) []string {
	t.Helper()
	c.ok(t, 201, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"`+table+`"}`))
	var keys []string
	for p := range partitions {
		for r := range rows {
			pk, rk := "p"+strconv.Itoa(100 + p)[1:], "r"+strconv.Itoa(r)
			c.ok(t, 201, signed("POST", "/devstoreaccount1/"+table, `{"PartitionKey":"`+pk+`","RowKey":"`+rk+`","N":`+strconv.Itoa(len(keys))+`}`))
			keys = append(keys, pk+"/"+rk)
		}
	}
	return keys
}

// page is one answer of a query.
type page struct {
	keys           []string
	plan           string
	examined       int
	nextPK, nextRK string
}

func (c *cloud) query(t *testing.T, target string) page {
	t.Helper()
	w := c.ok(t, 200, signed("GET", target, ""))
	var body struct {
		Value []struct{ PartitionKey, RowKey string }
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("%s: %v: %s", target, err, w.Body)
	}
	p := page{plan: w.Header().Get("X-Tablelab-Plan"), nextPK: w.Header().Get("X-Ms-Continuation-Nextpartitionkey"), nextRK: w.Header().Get("X-Ms-Continuation-Nextrowkey")}
	p.examined, _ = strconv.Atoi(w.Header().Get("X-Tablelab-Examined"))
	for _, e := range body.Value {
		p.keys = append(p.keys, e.PartitionKey+"/"+e.RowKey)
	}
	return p
}

// all follows a query's continuations and returns every key, and the
// pages' sizes.
func (c *cloud) all(t *testing.T, target string) (keys []string, sizes []int) {
	t.Helper()
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	next := target
	for range 1000 {
		p := c.query(t, next)
		keys = append(keys, p.keys...)
		sizes = append(sizes, len(p.keys))
		if p.nextPK == "" {
			return keys, sizes
		}
		next = target + sep + "NextPartitionKey=" + url.QueryEscape(p.nextPK) + "&NextRowKey=" + url.QueryEscape(p.nextRK)
	}
	t.Fatal("no end of pages")
	return nil, nil
}

func TestShardsEachPartitionItsObject(t *testing.T) {
	c := newCloud(t)
	c.insertAll(t, "spread", 5, 2)
	for _, pk := range []string{"p00", "p04"} {
		st := c.storage["part/devstoreaccount1/1/"+pk]
		if st == nil || st.kv["registered"] != "1" {
			t.Fatalf("partition %s has no object of its own, or its directory does not know it", pk)
		}
	}
	c.reset()
	p := c.query(t, "/devstoreaccount1/spread()?$filter=PartitionKey%20eq%20'p03'")
	if strings.Join(p.keys, " ") != "p03/r0 p03/r1" || p.plan != "partition-scan" || c.partitionsCalled() != 1 {
		t.Errorf("one partition's query: %v %s, %d objects called", p.keys, p.plan, c.partitionsCalled())
	}
	c.reset()
	p = c.query(t, "/devstoreaccount1/spread()?$filter=PartitionKey%20ge%20'p01'%20and%20PartitionKey%20lt%20'p03'%20and%20N%20ge%203")
	if strings.Join(p.keys, " ") != "p01/r1 p02/r0 p02/r1" || p.plan != "table-scan" || p.examined != 4 || c.partitionsCalled() != 2 {
		t.Errorf("a range of partitions: %v %s examined %d, %d objects called", p.keys, p.plan, p.examined, c.partitionsCalled())
	}
}

func TestShardsTableScanPagesInKeyOrder(t *testing.T) {
	c := newCloud(t)
	// More partitions than one page visits, so the pages also stop at a
	// partition with nothing returned yet.
	want := c.insertAll(t, "paged", maxFan+8, 3)
	for _, q := range []string{"/devstoreaccount1/paged()", "/devstoreaccount1/paged()?$top=7", "/devstoreaccount1/paged()?$top=3", "/devstoreaccount1/paged()?$top=1000"} {
		got, sizes := c.all(t, q)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s: %d entities in pages %v, want %d in key order:\n%v", q, len(got), sizes, len(want), got)
		}
	}
	_, sizes := c.all(t, "/devstoreaccount1/paged()?$top=7")
	if sizes[0] != 7 || sizes[1] != 7 {
		t.Errorf("pages of $top=7 across partitions: %v", sizes)
	}
	p := c.query(t, "/devstoreaccount1/paged()")
	if len(p.keys) != maxFan*3 || p.nextPK == "" || p.examined != maxFan*3 {
		t.Errorf("a page visits %d partitions: %d entities, examined %d, next %q", maxFan, len(p.keys), p.examined, p.nextPK)
	}
	// A filter matching one entity far along: empty pages carry the
	// continuation until it is found.
	got, _ := c.all(t, "/devstoreaccount1/paged()?$filter=N%20eq%20110")
	if strings.Join(got, " ") != want[110] {
		t.Errorf("sparse filter: %v", got)
	}
	// $top=0 says where the first match is.
	p = c.query(t, "/devstoreaccount1/paged()?$top=0&$filter=N%20ge%204")
	if len(p.keys) != 0 || p.nextPK == "" {
		t.Errorf("$top=0: %v next %q", p.keys, p.nextPK)
	}
}

func TestShardsBatchIsOnePartitionsTransaction(t *testing.T) {
	c := newCloud(t)
	c.ok(t, 201, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"batched"}`))
	send := func(ops ...[2]string) *httptest.ResponseRecorder {
		r := signed("POST", "/devstoreaccount1/$batch", batchBody("batched", ops))
		r.Header.Set("Content-Type", "multipart/mixed; boundary=batch_x")
		return c.ok(t, 202, r)
	}
	if w := send([2]string{"a", "1"}, [2]string{"a", "2"}); strings.Contains(w.Body.String(), "odata.error") {
		t.Fatalf("batch: %s", w.Body)
	}
	if w := send([2]string{"a", "3"}, [2]string{"a", "1"}); !strings.Contains(w.Body.String(), "EntityAlreadyExists") {
		t.Fatalf("colliding batch: %s", w.Body)
	}
	if w := send([2]string{"a", "4"}, [2]string{"b", "1"}); !strings.Contains(w.Body.String(), "CommandsInBatchActOnDifferentPartitions") {
		t.Fatalf("two partitions: %s", w.Body)
	}
	got, _ := c.all(t, "/devstoreaccount1/batched()")
	if strings.Join(got, " ") != "a/1 a/2" {
		t.Errorf("after the batches: %v", got)
	}
}

// batchBody is a change set inserting the (pk, rk) rows into table.
func batchBody(table string, rows [][2]string) string {
	var b strings.Builder
	b.WriteString("--batch_x\r\nContent-Type: multipart/mixed; boundary=cs_y\r\n\r\n")
	for _, row := range rows {
		b.WriteString("--cs_y\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString("POST http://127.0.0.1:10002/devstoreaccount1/" + table + " HTTP/1.1\r\nContent-Type: application/json\r\nPrefer: return-no-content\r\n\r\n")
		b.WriteString(`{"PartitionKey":"` + row[0] + `","RowKey":"` + row[1] + `"}` + "\r\n")
	}
	b.WriteString("--cs_y--\r\n--batch_x--\r\n")
	return b.String()
}

func TestShardsDeleteTableRemovesEveryPartition(t *testing.T) {
	c := newCloud(t)
	c.insertAll(t, "doomed", 4, 2)
	// A second isolate's front, which learns the table's generation now
	// and keeps it.
	other, err := newDurableHost(c.h.cfg, c.call, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := do(other, signed("GET", "/devstoreaccount1/doomed(PartitionKey='p01',RowKey='r0')", "")); w.Code != 200 {
		t.Fatalf("other front: %d %s", w.Code, w.Body)
	}
	c.ok(t, 204, signed("DELETE", "/devstoreaccount1/Tables('doomed')", ""))
	for p := range 4 {
		st := c.storage["part/devstoreaccount1/1/p0"+strconv.Itoa(p)]
		if len(st.media) != 0 || st.kv["dropped"] != "1" || len(st.kv) != 1 {
			t.Errorf("partition p0%d after the delete: %d media, %v", p, len(st.media), st.kv)
		}
	}
	if parts, _ := c.storage["dir/devstoreaccount1"].scan("p/", "", 100); len(parts) != 0 {
		t.Errorf("the directory still lists %v", parts)
	}
	c.ok(t, 404, signed("GET", "/devstoreaccount1/doomed(PartitionKey='p01',RowKey='r0')", ""))
	// Made again: empty, in new objects; the other front's generation
	// is out of date and it finds the new one.
	c.ok(t, 201, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"doomed"}`))
	if w := do(other, signed("GET", "/devstoreaccount1/doomed(PartitionKey='p01',RowKey='r0')", "")); w.Code != 404 || !strings.Contains(w.Body.String(), "ResourceNotFound") {
		t.Fatalf("other front after the table was made again: %d %s", w.Code, w.Body)
	}
	if w := do(other, signed("PUT", "/devstoreaccount1/doomed(PartitionKey='p01',RowKey='r0')", `{"X":1}`)); w.Code != 204 {
		t.Fatalf("other front's write: %d %s", w.Code, w.Body)
	}
	if got, _ := c.all(t, "/devstoreaccount1/doomed()"); strings.Join(got, " ") != "p01/r0" {
		t.Errorf("the table made again holds %v", got)
	}
	if c.storage["part/devstoreaccount1/2/p01"] == nil {
		t.Error("the table made again does not use new objects")
	}
}

func TestShardsStoredPolicyReachesThePartitions(t *testing.T) {
	c := newCloud(t)
	c.ok(t, 201, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"guarded"}`))
	c.ok(t, 201, signed("POST", "/devstoreaccount1/guarded", `{"PartitionKey":"a","RowKey":"1"}`))
	acl := `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><SignedIdentifier><Id>readers</Id><AccessPolicy><Expiry>2099-01-01T00:00:00Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`
	r := signed("PUT", "/devstoreaccount1/guarded?comp=acl", acl)
	r.Header.Set("Content-Type", "application/xml")
	c.ok(t, 204, r)
	w := c.ok(t, 200, signed("GET", "/devstoreaccount1/guarded?comp=acl", ""))
	if !strings.Contains(w.Body.String(), "<Id>readers</Id>") {
		t.Fatalf("acl: %s", w.Body)
	}
	// A SAS naming the policy, at the partition's object: the policy is
	// the directory's.
	sas := auth.NewTableSAS("devstoreaccount1", auth.DevAccount().Keys[0], auth.TableSAS{Table: "guarded", Identifier: "readers"})
	get := func() int {
		r := httptest.NewRequest("GET", "http://127.0.0.1:10002/devstoreaccount1/guarded(PartitionKey='a',RowKey='1')?"+sas, nil)
		r.Header.Set("Accept", "application/json;odata=nometadata")
		return c.do(t, r).Code
	}
	if code := get(); code != 200 {
		t.Fatalf("read through the policy: %d", code)
	}
	r = signed("PUT", "/devstoreaccount1/guarded?comp=acl", "")
	c.ok(t, 204, r)
	if code := get(); code != 403 {
		t.Fatalf("read after the policy was removed: %d", code)
	}
	if _, ok := c.storage["dir/devstoreaccount1"].media["settings"]; !ok {
		t.Error("the directory keeps no settings store")
	}
}

// TestShardsPartitionQueryWarns checks that a query of one partition,
// which its partition's object answers whole, passes on the object's
// X-Tablelab-Warning.
func TestShardsPartitionQueryWarns(t *testing.T) {
	c := newCloud(t)
	c.ok(t, 201, signed("POST", "/devstoreaccount1/Tables", `{"TableName":"warned"}`))
	c.ok(t, 201, signed("POST", "/devstoreaccount1/warned", `{"PartitionKey":"a","RowKey":"1","Age":3}`))
	w := c.ok(t, 200, signed("GET", "/devstoreaccount1/warned()?$filter="+url.QueryEscape("PartitionKey eq 'a' and Age gt '2'"), ""))
	if got := w.Header().Get(api.WarningHeader); !strings.HasPrefix(got, "Age is Edm.Int32 on the one entity where the filter tested it, but Age gt '2' compares it with an Edm.String literal") {
		t.Fatalf("warning %q", got)
	}
}
