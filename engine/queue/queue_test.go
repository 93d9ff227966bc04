package queue

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/svcerr"
)

const acct = "devstoreaccount1"

// clock is a settable clock for the store.
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

func newService(t *testing.T) (*Service, *clock, *engine.Store) {
	t.Helper()
	c := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := engine.New(engine.Options{OpenKeys: true, Now: c.now})
	s, err := New(st)
	if err != nil {
		t.Fatal(err)
	}
	return s, c, st
}

// ids returns an id source counting from 1 with a prefix.
func ids(prefix string) func() string {
	n := 0
	return func() string { n++; return prefix + strconv.Itoa(n) }
}

func wantCode(t *testing.T, err error, code svcerr.Code) {
	t.Helper()
	if !svcerr.Is(err, code) {
		t.Fatalf("got %v, want %s", err, code)
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"abc", "a-b-c", "0queue", strings.Repeat("a", 63), "my-queue-1"} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for name, code := range map[string]svcerr.Code{
		"ab":                    svcerr.OutOfRangeInput,
		strings.Repeat("a", 64): svcerr.OutOfRangeInput,
		"Abc":                   svcerr.InvalidResourceName,
		"-abc":                  svcerr.InvalidResourceName,
		"abc-":                  svcerr.InvalidResourceName,
		"a--b":                  svcerr.InvalidResourceName,
		"a_bc":                  svcerr.InvalidResourceName,
		"a.bc":                  svcerr.InvalidResourceName,
	} {
		wantCode(t, ValidateName(name), code)
	}
}

func TestCreateDeleteList(t *testing.T) {
	s, _, _ := newService(t)
	created, err := s.Create(acct, "orders", []Pair{{"Owner", "ana"}})
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	// Same metadata (names in any case): succeeds, creates nothing.
	if created, err := s.Create(acct, "orders", []Pair{{"owner", "ana"}}); err != nil || created {
		t.Fatalf("create again, same metadata: %v %v", created, err)
	}
	_, err = s.Create(acct, "orders", []Pair{{"Owner", "bo"}})
	wantCode(t, err, svcerr.QueueAlreadyExists)
	_, err = s.Create(acct, "orders", nil)
	wantCode(t, err, svcerr.QueueAlreadyExists)
	_, err = s.Create(acct, "Orders", nil)
	wantCode(t, err, svcerr.InvalidResourceName)

	for _, n := range []string{"alpha", "beta", "betamax", "gamma"} {
		if _, err := s.Create(acct, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Another account's queues are its own.
	if _, err := s.Create("other", "zzz", nil); err != nil {
		t.Fatal(err)
	}
	var names []string
	marker := ""
	for pages := 0; ; pages++ {
		p, err := s.List(acct, ListOptions{MaxResults: 2, Marker: marker, Metadata: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range p.Queues {
			names = append(names, q.Name)
			if q.Name == "orders" && (len(q.Metadata) != 1 || q.Metadata[0] != (Pair{"Owner", "ana"})) {
				t.Errorf("orders metadata: %v", q.Metadata)
			}
		}
		if p.NextMarker == "" {
			if pages != 2 {
				t.Errorf("%d pages, want 3", pages+1)
			}
			break
		}
		if !strings.HasPrefix(p.NextMarker, "/"+acct+"/") {
			t.Errorf("marker %q", p.NextMarker)
		}
		marker = p.NextMarker
	}
	if got := strings.Join(names, ","); got != "alpha,beta,betamax,gamma,orders" {
		t.Fatalf("listed %s", got)
	}
	p, err := s.List(acct, ListOptions{Prefix: "beta"})
	if err != nil || len(p.Queues) != 2 || p.Queues[0].Name != "beta" || p.Queues[1].Name != "betamax" || p.NextMarker != "" {
		t.Fatalf("prefix: %+v %v", p, err)
	}
	if p.Queues[0].Metadata != nil {
		t.Error("metadata listed without asking")
	}

	if err := s.Delete(acct, "beta"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Delete(acct, "beta"), svcerr.QueueNotFound)
	_, _, err = s.Properties(acct, "beta")
	wantCode(t, err, svcerr.QueueNotFound)
}

func TestMetadata(t *testing.T) {
	s, _, _ := newService(t)
	if _, err := s.Create(acct, "qq1", nil); err != nil {
		t.Fatal(err)
	}
	meta := []Pair{{"A", "1"}, {"bee", "two words"}}
	if err := s.SetMetadata(acct, "qq1", meta); err != nil {
		t.Fatal(err)
	}
	q, n, err := s.Properties(acct, "qq1")
	if err != nil || n != 0 || len(q.Metadata) != 2 || q.Metadata[0] != meta[0] || q.Metadata[1] != meta[1] {
		t.Fatalf("%+v %d %v", q, n, err)
	}
	if err := s.SetMetadata(acct, "qq1", nil); err != nil {
		t.Fatal(err)
	}
	if q, _, _ := s.Properties(acct, "qq1"); len(q.Metadata) != 0 {
		t.Fatalf("cleared metadata: %v", q.Metadata)
	}
	wantCode(t, s.SetMetadata(acct, "nope", meta), svcerr.QueueNotFound)
}

func TestPutGetVisibility(t *testing.T) {
	s, c, _ := newService(t)
	if _, err := s.Create(acct, "work", nil); err != nil {
		t.Fatal(err)
	}
	t0 := c.now()
	m, err := s.Put(acct, "work", "hello <world> & ünïcode", PutOptions{NewID: ids("id")})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "id1" || m.PopReceipt != "id2" || !m.Inserted.Equal(t0) || !m.NextVisible.Equal(t0) || !m.Expires.Equal(t0.Add(7*24*time.Hour)) {
		t.Fatalf("put: %+v", m)
	}
	got, err := s.Get(acct, "work", GetOptions{NewID: ids("r")})
	if err != nil || len(got) != 1 {
		t.Fatalf("get: %v %v", got, err)
	}
	g := got[0]
	if g.ID != "id1" || g.Text != "hello <world> & ünïcode" || g.DequeueCount != 1 || g.PopReceipt != "r1" || !g.NextVisible.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("got %+v", g)
	}
	// Invisible now: neither got nor peeked, but still counted.
	if got, _ := s.Get(acct, "work", GetOptions{}); len(got) != 0 {
		t.Fatalf("invisible message got: %+v", got)
	}
	if p, _ := s.Peek(acct, "work", 1); len(p) != 0 {
		t.Fatalf("invisible message peeked: %+v", p)
	}
	if _, n, _ := s.Properties(acct, "work"); n != 1 {
		t.Fatalf("count %d", n)
	}
	// 29 s later still hidden; at 30 s it reappears, dequeued twice.
	c.add(29 * time.Second)
	if got, _ := s.Get(acct, "work", GetOptions{}); len(got) != 0 {
		t.Fatal("visible before its timeout")
	}
	c.add(time.Second)
	p, err := s.Peek(acct, "work", 32)
	if err != nil || len(p) != 1 || p[0].DequeueCount != 1 || p[0].PopReceipt != "" {
		t.Fatalf("peek: %+v %v", p, err)
	}
	got, _ = s.Get(acct, "work", GetOptions{VisibilityTimeout: time.Minute, NewID: ids("s")})
	if len(got) != 1 || got[0].DequeueCount != 2 || got[0].PopReceipt != "s1" {
		t.Fatalf("second get: %+v", got)
	}
	// The first receipt is stale now: the service finds no message under
	// it, as it answers a consumer whose message another one took.
	wantCode(t, s.DeleteMessage(acct, "work", "id1", "r1"), svcerr.MessageNotFound)
	wantCode(t, s.DeleteMessage(acct, "work", "id1", "never-issued"), svcerr.MessageNotFound)
	wantCode(t, s.DeleteMessage(acct, "work", "nope", "s1"), svcerr.MessageNotFound)
	if err := s.DeleteMessage(acct, "work", "id1", "s1"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DeleteMessage(acct, "work", "id1", "s1"), svcerr.MessageNotFound)
	if _, n, _ := s.Properties(acct, "work"); n != 0 {
		t.Fatalf("count after delete %d", n)
	}
}

// TestStaleReceipt is the competing consumers' case: A's visibility
// timeout lapses, B gets the message, and A's receipt no longer finds it.
// The service answers 404 MessageNotFound there, not PopReceiptMismatch;
// the message stays for B.
func TestStaleReceipt(t *testing.T) {
	s, c, _ := newService(t)
	s.Create(acct, "que", nil)
	m, _ := s.Put(acct, "que", "job", PutOptions{})
	a, _ := s.Get(acct, "que", GetOptions{VisibilityTimeout: 30 * time.Second})
	c.add(31 * time.Second)
	b, _ := s.Get(acct, "que", GetOptions{VisibilityTimeout: 30 * time.Second})
	if len(a) != 1 || len(b) != 1 || a[0].PopReceipt == b[0].PopReceipt {
		t.Fatalf("gets: %+v %+v", a, b)
	}
	wantCode(t, s.DeleteMessage(acct, "que", m.ID, a[0].PopReceipt), svcerr.MessageNotFound)
	_, err := s.Update(acct, "que", m.ID, a[0].PopReceipt, UpdateOptions{})
	wantCode(t, err, svcerr.MessageNotFound)
	wantCode(t, s.DeleteMessage(acct, "que", m.ID, m.PopReceipt), svcerr.MessageNotFound)
	// B's update makes B's own first receipt stale too.
	u, err := s.Update(acct, "que", m.ID, b[0].PopReceipt, UpdateOptions{VisibilityTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.DeleteMessage(acct, "que", m.ID, b[0].PopReceipt), svcerr.MessageNotFound)
	if err := s.DeleteMessage(acct, "que", m.ID, u.PopReceipt); err != nil {
		t.Fatal(err)
	}
}

// TestMalformedReceipt: a string no id source makes is refused as an
// invalid query parameter before any message is looked for, as the service
// answers a malformed popreceipt (MicrosoftDocs/feedback#2842); never as
// PopReceiptMismatch.
func TestMalformedReceipt(t *testing.T) {
	s, _, _ := newService(t)
	s.Create(acct, "que", nil)
	m, _ := s.Put(acct, "que", "job", PutOptions{})
	// A base64 receipt whose "+" arrived as a space.
	bad := m.PopReceipt[:5] + " " + m.PopReceipt[6:]
	for _, r := range []string{"", bad, "not a receipt", "ünï", strings.Repeat("a", 65)} {
		wantCode(t, s.DeleteMessage(acct, "que", m.ID, r), svcerr.InvalidQueryParameterValue)
		_, err := s.Update(acct, "que", m.ID, r, UpdateOptions{})
		wantCode(t, err, svcerr.InvalidQueryParameterValue)
		wantCode(t, s.DeleteMessage(acct, "que", "missing", r), svcerr.InvalidQueryParameterValue)
		wantCode(t, s.DeleteMessage(acct, "absent", m.ID, r), svcerr.InvalidQueryParameterValue)
	}
	for i := 0; i < 100; i++ {
		for _, r := range []string{randomReceipt(), RandomID(), "r" + strconv.Itoa(i)} {
			if !WellFormedReceipt(r) {
				t.Fatalf("%q refused", r)
			}
		}
	}
	if err := s.DeleteMessage(acct, "que", m.ID, m.PopReceipt); err != nil {
		t.Fatal(err)
	}
}

func TestPutOptionsAndOrder(t *testing.T) {
	s, c, _ := newService(t)
	s.Create(acct, "que", nil)
	t0 := c.now()
	late, _ := s.Put(acct, "que", "late", PutOptions{VisibilityTimeout: time.Minute})
	forever, _ := s.Put(acct, "que", "forever", PutOptions{TTL: -1})
	short, _ := s.Put(acct, "que", "short", PutOptions{TTL: 10 * time.Second})
	if !late.NextVisible.Equal(t0.Add(time.Minute)) || !forever.Expires.Equal(Never) || !short.Expires.Equal(t0.Add(10*time.Second)) {
		t.Fatalf("%+v %+v %+v", late, forever, short)
	}
	if Never.Format(time.RFC1123) != "Fri, 31 Dec 9999 23:59:59 UTC" {
		t.Fatalf("never is %v", Never)
	}
	for i := 0; i < 5; i++ {
		s.Put(acct, "que", "m"+strconv.Itoa(i), PutOptions{})
	}
	p, _ := s.Peek(acct, "que", 32)
	var texts []string
	for _, m := range p {
		texts = append(texts, m.Text)
	}
	if got := strings.Join(texts, ","); got != "forever,short,m0,m1,m2,m3,m4" {
		t.Fatalf("peek order %s", got)
	}
	// Past the short TTL: gone from peek, count and get (which removes it).
	c.add(11 * time.Second)
	if _, n, _ := s.Properties(acct, "que"); n != 7 {
		t.Fatalf("count %d, want 7", n)
	}
	got, _ := s.Get(acct, "que", GetOptions{Count: 3})
	if len(got) != 3 || got[0].Text != "forever" || got[1].Text != "m0" || got[2].Text != "m1" {
		t.Fatalf("get 3: %+v", got)
	}
	wantCode(t, s.DeleteMessage(acct, "que", short.ID, short.PopReceipt), svcerr.MessageNotFound)
	// The message put invisible shows up after its minute, at the end.
	c.add(time.Minute)
	p, _ = s.Peek(acct, "que", 32)
	if len(p) != 7 || p[0].Text != "late" {
		t.Fatalf("after a minute: %d, first %q", len(p), p[0].Text)
	}
	// A receipt from Put works until the message is got.
	if err := s.DeleteMessage(acct, "que", late.ID, late.PopReceipt); err != nil {
		t.Fatal(err)
	}
	if err := s.Clear(acct, "que"); err != nil {
		t.Fatal(err)
	}
	if _, n, _ := s.Properties(acct, "que"); n != 0 {
		t.Fatalf("count after clear %d", n)
	}
	// The queue still works after a clear, and keeps insertion order.
	if _, err := s.Put(acct, "que", "x", PutOptions{}); err != nil {
		t.Fatal(err)
	}
	s.Put(acct, "que", "y", PutOptions{})
	if p, _ := s.Peek(acct, "que", 2); len(p) != 2 || p[0].Text != "x" || p[1].Text != "y" {
		t.Fatalf("after clear: %+v", p)
	}
}

func TestUpdate(t *testing.T) {
	s, c, _ := newService(t)
	s.Create(acct, "que", nil)
	m, _ := s.Put(acct, "que", "v1", PutOptions{NewID: ids("p")})
	got, _ := s.Get(acct, "que", GetOptions{NewID: ids("g")})
	text := "v2"
	u, err := s.Update(acct, "que", m.ID, got[0].PopReceipt, UpdateOptions{Text: &text, VisibilityTimeout: 10 * time.Second, NewID: ids("u")})
	if err != nil || u.PopReceipt != "u1" || !u.NextVisible.Equal(c.now().Add(10*time.Second)) || u.DequeueCount != 1 {
		t.Fatalf("update: %+v %v", u, err)
	}
	_, err = s.Update(acct, "que", m.ID, got[0].PopReceipt, UpdateOptions{})
	wantCode(t, err, svcerr.MessageNotFound)
	_, err = s.Update(acct, "que", "missing", "u1", UpdateOptions{})
	wantCode(t, err, svcerr.MessageNotFound)
	c.add(10 * time.Second)
	p, _ := s.Peek(acct, "que", 1)
	if len(p) != 1 || p[0].Text != "v2" {
		t.Fatalf("after update: %+v", p)
	}
	// Visibility only, now visible at once, text kept.
	u, err = s.Update(acct, "que", m.ID, "u1", UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Peek(acct, "que", 1); len(p) != 1 || p[0].Text != "v2" {
		t.Fatalf("visibility-only update: %+v", p)
	}
	big := strings.Repeat("x", MaxMessageBytes+1)
	_, err = s.Update(acct, "que", m.ID, u.PopReceipt, UpdateOptions{Text: &big})
	wantCode(t, err, svcerr.RequestBodyTooLarge)
	// Not past the message's expiry.
	short, _ := s.Put(acct, "que", "s", PutOptions{TTL: time.Minute})
	_, err = s.Update(acct, "que", short.ID, short.PopReceipt, UpdateOptions{VisibilityTimeout: 2 * time.Minute})
	wantCode(t, err, svcerr.InvalidQueryParameterValue)
}

func TestLimits(t *testing.T) {
	s, _, _ := newService(t)
	s.Create(acct, "que", nil)
	if _, err := s.Put(acct, "que", strings.Repeat("é", MaxMessageBytes/2), PutOptions{}); err != nil {
		t.Fatalf("64 KiB message: %v", err)
	}
	_, err := s.Put(acct, "que", strings.Repeat("é", MaxMessageBytes/2)+"x", PutOptions{})
	wantCode(t, err, svcerr.RequestBodyTooLarge)
	_, err = s.Put(acct, "nope", "x", PutOptions{})
	wantCode(t, err, svcerr.QueueNotFound)
	_, err = s.Get(acct, "que", GetOptions{Count: 33})
	wantCode(t, err, svcerr.OutOfRangeQueryParameterValue)
	_, err = s.Peek(acct, "que", 0)
	wantCode(t, err, svcerr.OutOfRangeQueryParameterValue)
	wantCode(t, s.Clear(acct, "nope"), svcerr.QueueNotFound)
}

// A poison message: each worker gets it and dies without deleting it;
// after the visibility timeout it comes back with a higher dequeue count,
// until a worker sees the count past its limit and moves it aside.
func TestPoisonMessage(t *testing.T) {
	s, c, _ := newService(t)
	s.Create(acct, "jobs", nil)
	s.Create(acct, "jobs-poison", nil)
	s.Put(acct, "jobs", "bad job", PutOptions{})
	const limit = 3
	for attempt := 1; ; attempt++ {
		got, err := s.Get(acct, "jobs", GetOptions{VisibilityTimeout: 30 * time.Second})
		if err != nil || len(got) != 1 {
			t.Fatalf("attempt %d: %v %v", attempt, got, err)
		}
		m := got[0]
		if m.DequeueCount != int64(attempt) {
			t.Fatalf("attempt %d: dequeue count %d", attempt, m.DequeueCount)
		}
		if m.DequeueCount > limit {
			s.Put(acct, "jobs-poison", m.Text, PutOptions{})
			if err := s.DeleteMessage(acct, "jobs", m.ID, m.PopReceipt); err != nil {
				t.Fatal(err)
			}
			break
		}
		c.add(30 * time.Second) // the worker died
	}
	if _, n, _ := s.Properties(acct, "jobs"); n != 0 {
		t.Fatal("poison message still in the queue")
	}
	if p, _ := s.Peek(acct, "jobs-poison", 1); len(p) != 1 || p[0].Text != "bad job" {
		t.Fatalf("poison queue: %+v", p)
	}
}

// Concurrent getters never take the same message, and concurrent putters
// never lose one.
func TestConcurrentGet(t *testing.T) {
	s, _, _ := newService(t)
	s.Create(acct, "que", nil)
	const n = 200
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n/8; i++ {
				if _, err := s.Put(acct, "que", "m", PutOptions{}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	var mu sync.Mutex
	seen := map[string]int{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				got, err := s.Get(acct, "que", GetOptions{Count: 5})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, m := range got {
					seen[m.ID]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d distinct messages got, want %d", len(seen), n)
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("message %s got %d times", id, k)
		}
	}
}

// A queue deleted and created again starts empty, and a deletion a crash
// interrupted is finished when the service starts.
func TestDeleteRecreateAndRecovery(t *testing.T) {
	s, _, st := newService(t)
	s.Create(acct, "que", nil)
	for i := 0; i < 150; i++ {
		s.Put(acct, "que", "old", PutOptions{})
	}
	if err := s.Delete(acct, "que"); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 0 {
		t.Fatalf("%d entities left after delete", st.Len())
	}
	s.Create(acct, "que", nil)
	if p, _ := s.Peek(acct, "que", 32); len(p) != 0 {
		t.Fatalf("recreated queue has %d messages", len(p))
	}
	// Simulate a crash mid-deletion: the record written and the queue gone,
	// the messages still there.
	s.Put(acct, "que", "x", PutOptions{})
	q, _ := s.lookup(acct, "que")
	part := q.partition(acct)
	st.Write(deletingTable, engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: part}})
	st.Write(queuesTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: acct, RowKey: "que"}})
	// And one recorded whose queue was never removed.
	s.Create(acct, "kept", nil)
	s.Put(acct, "kept", "y", PutOptions{})
	k, _ := s.lookup(acct, "kept")
	st.Write(deletingTable, engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: k.partition(acct)}})
	s2, err := New(st)
	if err != nil {
		t.Fatal(err)
	}
	// What is left: the kept queue, its counter, message and id.
	if st.Len() != 4 {
		t.Fatalf("%d entities after recovery, want 4", st.Len())
	}
	if p, _ := s2.Peek(acct, "kept", 1); len(p) != 1 || p[0].Text != "y" {
		t.Fatalf("kept queue: %+v", p)
	}
}

// The model's keys keep to the Table service's rules, so a durable store
// that cannot open its keys still holds queues.
func TestTableKeyStore(t *testing.T) {
	st := engine.New(engine.Options{})
	s, err := New(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(acct, "keys-q", []Pair{{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	m, err := s.Put(acct, "keys-q", "x", PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(acct, "keys-q", GetOptions{})
	if err != nil || len(got) != 1 {
		t.Fatalf("get: %v %v", got, err)
	}
	if _, err := s.Update(acct, "keys-q", m.ID, got[0].PopReceipt, UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.List(acct, ListOptions{Metadata: true}); err != nil || len(p.Queues) != 1 {
		t.Fatalf("list: %+v %v", p, err)
	}
	if err := s.Delete(acct, "keys-q"); err != nil {
		t.Fatal(err)
	}
	if st.Len() != 0 {
		t.Fatalf("%d entities left", st.Len())
	}
}
