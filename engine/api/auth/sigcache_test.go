package auth

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestSASCacheStillChecksTheRequest(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	q := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https", StartPartitionKey: "b", EndPartitionKey: "d"})
	r := sasRequest("people", q)
	r.Scheme = "https"
	g, err := v.Verify(r)
	if err != nil {
		t.Fatal(err)
	}
	if v.sas.len() != 1 {
		t.Fatalf("a verified SAS is remembered: %d entries", v.sas.len())
	}
	for i := 0; i < 2; i++ { // from the cache: the grant is the same
		g, err = v.Verify(r)
		if err != nil {
			t.Fatal(err)
		}
		if g.Check(Read, "people", "c", "x") != nil || !svcerr.Is(g.Check(Update, "people", "c", "x"), svcerr.AuthorizationPermissionMismatch) || g.Check(Read, "people", "e", "x") == nil {
			t.Fatal("a cached SAS keeps its permissions and key range")
		}
	}
	expired := r
	expired.Now = now.Add(time.Hour + time.Second)
	if _, err := v.Verify(expired); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("cached SAS after its expiry: %v", err)
	}
	early := r
	early.Now = now.Add(-2 * time.Hour)
	if _, err := v.Verify(early); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("cached SAS before its start: %v", err)
	}
	elsewhere := r
	elsewhere.RemoteIP = "127.0.0.2"
	if _, err := v.Verify(elsewhere); !svcerr.Is(err, svcerr.AuthorizationSourceIPMismatch) {
		t.Errorf("cached SAS from another address: %v", err)
	}
	plain := r
	plain.Scheme = "http"
	if _, err := v.Verify(plain); !svcerr.Is(err, svcerr.AuthorizationProtocolMismatch) {
		t.Errorf("cached https-only SAS over http: %v", err)
	}
	if _, err := v.Verify(r); err != nil {
		t.Errorf("the same SAS within its terms: %v", err)
	}
}

func TestSASCacheRefusesChangedFields(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	tableQ := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https,http", StartPartitionKey: "b", StartRowKey: "1", EndPartitionKey: "d", EndRowKey: "9"})
	accountQ := NewAccountSAS(DevAccountName, key, AccountSAS{Permissions: "rl", ResourceTypes: "sco", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https,http"})
	for _, c := range []struct {
		name, table, query string
		fields             map[string]string
	}{
		{"service SAS", "people", tableQ, map[string]string{"sp": "raud", "st": "2026-11-22T12:00:01Z", "se": "2026-11-22T15:00:01Z",
			"tn": "others", "sip": "127.0.0.1-127.0.0.9", "spr": "https", "sv": "2020-12-06", "spk": "a", "srk": "0", "epk": "z", "erk": "z"}},
		{"account SAS", "Tables", accountQ, map[string]string{"sp": "rwdlacu", "ss": "tq", "srt": "o", "st": "2026-11-22T12:00:01Z",
			"se": "2026-11-22T15:00:01Z", "sip": "127.0.0.1-127.0.0.9", "spr": "https", "sv": "2020-12-06"}},
	} {
		if _, err := v.Verify(sasRequest(c.table, c.query)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		before := v.sas.len()
		for field, value := range c.fields {
			vals, _ := url.ParseQuery(c.query)
			vals.Set(field, value)
			if _, err := v.Verify(sasRequest(c.table, vals.Encode())); !svcerr.Is(err, svcerr.AuthenticationFailed) {
				t.Errorf("%s with %s changed, its signature kept: %v", c.name, field, err)
			}
		}
		// The same token presented for another account covers another resource.
		other := sasRequest(c.table, c.query)
		other.Account = "second"
		if _, err := v.Verify(other); !svcerr.Is(err, svcerr.AuthenticationFailed) {
			t.Errorf("%s for another account: %v", c.name, err)
		}
		if v.sas.len() != before {
			t.Errorf("%s: forged tokens were remembered (%d entries, want %d)", c.name, v.sas.len(), before)
		}
	}

	// A key taken off the account no longer vouches for what it signed.
	v.Accounts[0].Keys = [][]byte{[]byte("a new key")}
	if _, err := v.Verify(sasRequest("people", tableQ)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("cached SAS after its key was rotated out: %v", err)
	}
}

func TestSASCacheIsBounded(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	token := func(i int) string {
		return NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Expiry: now.Add(time.Hour + time.Duration(i)*time.Second)})
	}
	n := 3 * sigCacheSize
	for i := 0; i < n; i++ {
		if _, err := v.Verify(sasRequest("people", token(i))); err != nil {
			t.Fatalf("token %d: %v", i, err)
		}
		if v.sas.len() > sigCacheSize {
			t.Fatalf("after %d tokens the cache holds %d, above its bound %d", i+1, v.sas.len(), sigCacheSize)
		}
	}
	if v.sas.len() != sigCacheSize {
		t.Errorf("a full cache holds %d, want %d", v.sas.len(), sigCacheSize)
	}
	for _, i := range []int{0, n / 2, n - 1} { // forgotten or not, each still verifies
		if _, err := v.Verify(sasRequest("people", token(i))); err != nil {
			t.Errorf("token %d again: %v", i, err)
		}
	}
}

func TestSASCacheConcurrent(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				q := NewTableSAS(DevAccountName, key, TableSAS{Table: fmt.Sprintf("t%d", i%20), Permissions: "r", Expiry: now.Add(time.Hour)})
				if _, err := v.Verify(sasRequest(fmt.Sprintf("t%d", i%20), q)); err != nil {
					t.Errorf("worker %d, token %d: %v", w, i, err)
					return
				}
				forged, _ := url.ParseQuery(q)
				forged.Set("sp", "raud")
				if _, err := v.Verify(sasRequest(fmt.Sprintf("t%d", i%20), forged.Encode())); !svcerr.Is(err, svcerr.AuthenticationFailed) {
					t.Errorf("worker %d, forged token %d: %v", w, i, err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if v.sas.len() != 20 {
		t.Errorf("20 distinct tokens, %d remembered", v.sas.len())
	}
}

// setRaw returns query with the value of its first parameter called
// name replaced by value, as sent: the other parameters keep their
// order and escapes, so the token keeps every other field's cache id.
func setRaw(query, name, value string) string {
	pairs := strings.Split(query, "&")
	for i, p := range pairs {
		if n, _, _ := strings.Cut(p, "="); n == name {
			pairs[i] = name + "=" + value
			return strings.Join(pairs, "&")
		}
	}
	return query + "&" + name + "=" + value
}

// TestSASCacheFieldChangedInPlace changes each field of cached tokens as
// sent, the rest of the query byte for byte the same, and gives fields
// twice: each is refused and none is remembered.
func TestSASCacheFieldChangedInPlace(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	tableQ := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https,http", StartPartitionKey: "b", StartRowKey: "1", EndPartitionKey: "d", EndRowKey: "9"})
	wider := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "raud", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https,http", StartPartitionKey: "b", StartRowKey: "1", EndPartitionKey: "d", EndRowKey: "9"})
	accountQ := NewAccountSAS(DevAccountName, key, AccountSAS{Permissions: "rl", ResourceTypes: "sco", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1", Protocol: "https,http"})
	for _, q := range []string{tableQ, wider, accountQ} {
		if _, err := v.Verify(sasRequest("people", q)); err != nil {
			t.Fatal(err)
		}
	}
	remembered := v.sas.len()
	for _, q := range []string{tableQ, accountQ} {
		for _, pair := range strings.Split(q, "&") {
			name, value, _ := strings.Cut(pair, "=")
			for _, changed := range []string{value + "Z", "", value[:len(value)/2]} {
				if _, err := v.Verify(sasRequest("people", setRaw(q, name, changed))); err == nil {
					t.Errorf("%s=%s in place of %s=%s: accepted", name, changed, name, value)
				}
			}
			// Under the name of another field the token leaves out.
			for _, other := range sasNames {
				if vals, _ := url.ParseQuery(q); !vals.Has(other) {
					renamed := strings.Replace(q, pair, other+"="+value, 1)
					if _, err := v.Verify(sasRequest("people", renamed)); err == nil {
						t.Errorf("%s=%s as %s: accepted", name, value, other)
					}
				}
			}
			// Given twice, whichever copy comes first, or under an escaped name.
			for _, twice := range []string{q + "&" + pair, pair + "&" + q, q + "&" + escapeName(name) + "=" + value} {
				if _, err := v.Verify(sasRequest("people", twice)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
					t.Errorf("%s given twice (%s): %v", name, twice, err)
				}
			}
		}
	}
	// The permissions of one cached token with the signature of another.
	if _, err := v.Verify(sasRequest("people", setRaw(tableQ, "sp", "raud"))); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("a cached token's permissions under another's signature: %v", err)
	}
	if v.sas.len() != remembered {
		t.Errorf("refused tokens were remembered: %d entries, want %d", v.sas.len(), remembered)
	}
	// Spelled otherwise (an escape decoded), a token is the same token.
	respelled := strings.ReplaceAll(tableQ, "%3A", ":")
	if respelled == tableQ {
		t.Fatal("the token has no escaped colon to decode")
	}
	if _, err := v.Verify(sasRequest("people", respelled)); err != nil {
		t.Errorf("the token with its colons unescaped: %v", err)
	}
}

// sasNames are the query parameters a SAS's check reads.
var sasNames = []string{"sv", "ss", "srt", "sp", "st", "se", "sip", "spr", "sig", "si", "sr", "sdd", "skoid", "sktid", "skt", "ske", "sks", "skv",
	"saoid", "suoid", "scid", "ses", "tn", "spk", "srk", "epk", "erk", "rscc", "rscd", "rsce", "rscl", "rsct", "snapshot", "versionid"}

// escapeName escapes a parameter's name in full, which decodes to the
// same name.
func escapeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		fmt.Fprintf(&b, "%%%02X", name[i])
	}
	return b.String()
}

// TestSASCacheHitStillJudged checks that a token found in the cache is
// judged at each request: its expiry and start against the request's
// time, and its stored access policy as it stands now.
func TestSASCacheHitStillJudged(t *testing.T) {
	policies := map[string]Policy{"p1": {ID: "p1", Permissions: "r", Expiry: now.Add(time.Hour)}}
	v := verifier()
	v.Policies = func(account, table, id string) (Policy, bool) {
		p, ok := policies[id]
		return p, ok && account == DevAccountName && table == "people"
	}
	key := DevAccount().Keys[0]
	plain := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour)})
	stored := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Identifier: "p1"})
	for _, q := range []string{plain, stored} {
		if _, err := v.Verify(sasRequest("people", q)); err != nil {
			t.Fatal(err)
		}
	}
	if v.sas.len() != 2 {
		t.Fatalf("%d tokens remembered, want 2", v.sas.len())
	}
	at := func(q string, when time.Time) (Grant, error) {
		r := sasRequest("people", q)
		r.Now = when
		return v.Verify(r)
	}
	if _, err := at(plain, now.Add(time.Hour)); err != nil {
		t.Errorf("at its expiry: %v", err)
	}
	if _, err := at(plain, now.Add(time.Hour+time.Second)); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("a second after its expiry: %v", err)
	}
	if _, err := at(plain, now.Add(-time.Hour-MaxClockSkew-time.Second)); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "not valid yet") {
		t.Errorf("before its start: %v", err)
	}

	// The stored policy as it stands at each request.
	g, err := at(stored, now)
	if err != nil || g.Check(Read, "people", "a", "b") != nil || g.Check(Add, "people", "a", "b") == nil {
		t.Fatalf("under p1 (r): %v", err)
	}
	policies["p1"] = Policy{ID: "p1", Permissions: "a", Expiry: now.Add(time.Hour)}
	g, err = at(stored, now)
	if err != nil || g.Check(Add, "people", "a", "b") != nil || g.Check(Read, "people", "a", "b") == nil {
		t.Errorf("p1 changed to a: %v", err)
	}
	policies["p1"] = Policy{ID: "p1", Permissions: "a", Expiry: now.Add(-time.Second)}
	if _, err := at(stored, now); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("p1 expired: %v", err)
	}
	delete(policies, "p1")
	if _, err := at(stored, now); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "p1") {
		t.Errorf("p1 removed: %v", err)
	}
	policies["p1"] = Policy{ID: "p1", Permissions: "r", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour)}
	if _, err := at(plain, now); err != nil {
		t.Fatal(err)
	}
	if _, err := at(stored, now); err != nil {
		t.Errorf("p1 back: %v", err)
	}
	if v.sas.len() != 2 {
		t.Errorf("%d tokens remembered, want 2: every request after the first found its token", v.sas.len())
	}
}

// TestSASCacheBlobResources checks that a cached service SAS of the Blob
// and Queue services still covers only what it signs: a container SAS
// any blob of its container, verified once; a blob SAS its blob, a
// snapshot SAS its snapshot, a queue SAS its queue.
func TestSASCacheBlobResources(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	req := func(svc Service, container, blob, query string) Request {
		return Request{Service: svc, Method: "GET", RawPath: "/devstoreaccount1/" + container + "/" + blob, Query: query, Account: DevAccountName,
			Scheme: "http", RemoteIP: "127.0.0.1", Now: now, Container: container, Blob: blob}
	}
	box := NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Permissions: "r", Expiry: now.Add(time.Hour)})
	for _, b := range []string{"a", "b", "c/d"} {
		if _, err := v.Verify(req(Blob, "box", b, box)); err != nil {
			t.Fatalf("container SAS for %s: %v", b, err)
		}
	}
	if v.sas.len() != 1 {
		t.Errorf("a container SAS over three blobs: %d entries, want 1", v.sas.len())
	}
	if _, err := v.Verify(req(Blob, "other", "a", box)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("container SAS for another container: %v", err)
	}
	one := NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Blob: "a", Permissions: "r", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(req(Blob, "box", "a", one)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(req(Blob, "box", "b", one)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("blob SAS for another blob: %v", err)
	}

	// A snapshot SAS (sr=bs) signs the snapshot, a parameter not its own.
	se := now.Add(time.Hour).Format("2006-01-02T15:04:05Z")
	toSign := strings.Join([]string{"r", "", se, "/blob/devstoreaccount1/box/a", "", "", "", SASVersion, "bs", "2026-01-01T00:00:00.0000000Z", "", "", "", "", "", ""}, "\n")
	snap := "sv=" + SASVersion + "&sr=bs&sp=r&se=" + se + "&sig=" + url.QueryEscape(Sign(key, toSign))
	if _, err := v.Verify(req(Blob, "box", "a", snap+"&snapshot=2026-01-01T00:00:00.0000000Z")); err != nil {
		t.Fatalf("snapshot SAS: %v", err)
	}
	if _, err := v.Verify(req(Blob, "box", "a", snap+"&snapshot=2026-01-02T00:00:00.0000000Z")); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("snapshot SAS for another snapshot: %v", err)
	}
	if _, err := v.Verify(req(Blob, "box", "a", snap+"&snapshot=2026-01-01T00:00:00.0000000Z&snapshot=2026-01-02T00:00:00.0000000Z")); err != nil {
		t.Errorf("snapshot given twice, the signed one first: %v", err)
	}

	jobs := NewQueueSAS(DevAccountName, key, QueueSAS{Queue: "jobs", Permissions: "r", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(req(Queue, "jobs", "", jobs)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(req(Queue, "other", "", jobs)); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("queue SAS for another queue: %v", err)
	}
	// An account SAS is for the services it names, cached or not.
	acct := NewAccountSAS(DevAccountName, key, AccountSAS{Services: "b", Permissions: "r", ResourceTypes: "o", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(req(Blob, "box", "a", acct)); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(req(Queue, "jobs", "", acct)); !svcerr.Is(err, svcerr.AuthorizationServiceMismatch) {
		t.Errorf("a blob account SAS on the Queue service: %v", err)
	}
}

// sameAnswer fails t unless a verifier that has seen tokens (warm), one
// that has seen none (cold) and the verifier as it was before its cache
// (referenceVerify) answer r alike: the cache may save work, never
// change an answer.
func sameAnswer(t *testing.T, warm *Verifier, r Request) {
	t.Helper()
	cold := &Verifier{Accounts: warm.Accounts, Policies: warm.Policies, SharedKey: warm.SharedKey}
	gw, ew := warm.Verify(r)
	gc, ec := cold.Verify(r)
	gr, er := cold.referenceVerify(r)
	if fmt.Sprint(ew) != fmt.Sprint(ec) || !reflect.DeepEqual(gw, gc) || fmt.Sprint(ew) != fmt.Sprint(er) || !reflect.DeepEqual(gw, gr) {
		t.Fatalf("query %q, service %v, %s/%s at %v from %s over %s:\nwarm %+v %v\ncold %+v %v\nas it was %+v %v",
			r.Query, r.Service, r.Container, r.Blob, r.Now, r.RemoteIP, r.Scheme, gw, ew, gc, ec, gr, er)
	}
}

// cacheSeeds are tokens of every kind, with the requests they are for.
func cacheSeeds() []Request {
	key := DevAccount().Keys[0]
	table := func(q string) Request { return sasRequest("people", q) }
	blob := func(container, blob, q string) Request {
		return Request{Service: Blob, Method: "GET", RawPath: "/devstoreaccount1/" + container + "/" + blob, Query: q, Account: DevAccountName,
			Scheme: "https", RemoteIP: "127.0.0.1", Now: now, Container: container, Blob: blob}
	}
	queue := func(name, q string) Request {
		return Request{Service: Queue, Method: "GET", RawPath: "/devstoreaccount1/" + name + "/messages", Query: q, Account: DevAccountName,
			Scheme: "http", RemoteIP: "10.0.0.1", Now: now, Container: name}
	}
	return []Request{
		table(NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "ra", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
			IP: "127.0.0.1-127.0.0.9", Protocol: "https,http", StartPartitionKey: "b", StartRowKey: "1", EndPartitionKey: "d", EndRowKey: "9"})),
		table(NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Identifier: "p1"}) + "&$filter=PartitionKey%20eq%20%27b%27"),
		table(NewAccountSAS(DevAccountName, key, AccountSAS{Services: "bqt", Permissions: "rwdlacup", ResourceTypes: "sco", Expiry: now.Add(time.Hour)})),
		blob("box", "a", NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Permissions: "rl", Expiry: now.Add(time.Hour), ContentType: "x/y"})),
		blob("box", "a b", NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Blob: "a b", Permissions: "rw", Protocol: "https", Expiry: now.Add(time.Hour)})),
		queue("jobs", NewQueueSAS(DevAccountName, key, QueueSAS{Queue: "jobs", Permissions: "raup", IP: "10.0.0.1", Expiry: now.Add(time.Hour)})),
	}
}

// TestSASCacheAnswersAsWithout changes every byte of every seed token in
// turn, and the request's time, address and resource, against a
// verifier that has verified every seed: each answer must be the one a
// verifier without a cache gives.
func TestSASCacheAnswersAsWithout(t *testing.T) {
	v := verifier()
	// An account with the development account's key: its tokens sign its
	// name, so the other's, cached, say nothing of it.
	v.Accounts = append(v.Accounts, Account{Name: "twin", Keys: DevAccount().Keys})
	v.Policies = func(account, table, id string) (Policy, bool) {
		return Policy{ID: id, Permissions: "r", Expiry: now.Add(time.Hour)}, id == "p1"
	}
	seeds := cacheSeeds()
	for _, r := range seeds {
		if _, err := v.Verify(r); err != nil {
			t.Fatalf("seed %q: %v", r.Query, err)
		}
	}
	for _, r := range seeds {
		q := r.Query
		for i := range len(q) {
			for _, c := range []string{"", "0", "a", "%", "&", "=", "%41", q[i:i+1] + q[i:i+1]} {
				m := r
				m.Query = q[:i] + c + q[i+1:]
				sameAnswer(t, v, m)
			}
		}
		for _, pair := range strings.Split(q, "&") { // a parameter again, first, or under an escaped name
			name, value, _ := strings.Cut(pair, "=")
			for _, m := range []string{q + "&" + pair, pair + "&" + q, strings.Replace(q, pair, escapeName(name)+"="+value, 1),
				strings.Replace(q, pair, "", 1) + "&" + pair, q + "&" + name + "=", q + "&" + name + "=x"} {
				mr := r
				mr.Query = m
				sameAnswer(t, v, mr)
			}
		}
		for _, other := range seeds { // another seed's request with this token
			m := other
			m.Query = r.Query
			sameAnswer(t, v, m)
		}
		for _, change := range []func(*Request){
			func(m *Request) { m.Now = m.Now.Add(2 * time.Hour) },
			func(m *Request) { m.Now = m.Now.Add(-2 * time.Hour) },
			func(m *Request) { m.RemoteIP = "192.168.0.1" },
			func(m *Request) { m.Scheme = "http" },
			func(m *Request) { m.Container += "x" },
			func(m *Request) { m.Blob += "x" },
			func(m *Request) { m.Account = "second" },
			func(m *Request) { m.Account = "twin" },
			func(m *Request) { m.Account = DevAccountName + "-secondary" },
			func(m *Request) { m.Service = (m.Service + 1) % 3 },
		} {
			m := r
			change(&m)
			sameAnswer(t, v, m)
		}
	}
}

// FuzzSASCache checks, for any query and resource, that a verifier that
// has verified tokens of every kind answers as one without a cache.
func FuzzSASCache(f *testing.F) {
	for _, r := range cacheSeeds() {
		f.Add(uint8(r.Service), r.Query, r.Container, r.Blob, int64(0))
	}
	policies := func(account, table, id string) (Policy, bool) {
		return Policy{ID: id, Permissions: "r", Expiry: now.Add(time.Hour)}, id == "p1"
	}
	f.Fuzz(func(t *testing.T, svc uint8, query, container, blob string, shift int64) {
		v := verifier()
		v.Policies = policies
		for _, r := range cacheSeeds() {
			if _, err := v.Verify(r); err != nil {
				t.Fatalf("seed %q: %v", r.Query, err)
			}
		}
		sameAnswer(t, v, Request{Service: Service(svc % 3), Method: "GET", RawPath: "/devstoreaccount1/x", Query: query, Account: DevAccountName,
			Scheme: "http", RemoteIP: "127.0.0.1", Now: now.Add(time.Duration(shift) * time.Second), Container: container, Blob: blob})
	})
}

func TestSASField(t *testing.T) {
	for i, name := range sasNames {
		if got := sasField(name); got != i {
			t.Errorf("sasField(%q) = %d, want %d", name, got, i)
		}
	}
	for _, name := range []string{"", " ", "s", "g", "sigs", "ig", "sv ss", "snap", "SV", "$filter", "comp", "timeout", "sip ", "sv       ", "snapshot ", "versionid "} {
		if got := sasField(name); got != -1 {
			t.Errorf("sasField(%q) = %d, want -1", name, got)
		}
	}
	if numFields != len(sasNames) || fieldSnapshot != len(sasNames)-2 || partAccount != numFields || numParts > 64 {
		t.Errorf("%d fields, snapshot at %d", numFields, fieldSnapshot)
	}
}

// TestSASCacheOwnsItsStrings checks that what the cache keeps of a token
// holds no part of the request's text, which it would keep alive (a
// whole batch, in the browser) and which a host may reuse.
func TestSASCacheOwnsItsStrings(t *testing.T) {
	key := DevAccount().Keys[0]
	for _, r := range append(cacheSeeds(), Request{Service: Blob, Method: "GET", RawPath: "/devstoreaccount1/box/a", Account: DevAccountName,
		Scheme: "http", RemoteIP: "127.0.0.1", Now: now, Container: "box", Blob: "a",
		Query: NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Blob: "a", Permissions: "r", Expiry: now.Add(time.Hour), ContentType: "x/y", CacheControl: "no"})}) {
		v := verifier()
		v.Policies = func(account, table, id string) (Policy, bool) {
			return Policy{ID: id, Permissions: "r", Expiry: now.Add(time.Hour)}, id == "p1"
		}
		text := "GET /?" + r.Query + "&" + r.Container + "&" + r.Blob + " HTTP/1.1"
		base := uintptr(unsafe.Pointer(unsafe.StringData(text)))
		r.Query = text[len("GET /?"):][:len(r.Query)]
		at := len("GET /?") + len(r.Query) + 1
		r.Container = text[at : at+len(r.Container)]
		r.Blob = text[at+len(r.Container)+1:][:len(r.Blob)]
		if _, err := v.Verify(r); err != nil {
			t.Fatalf("%q: %v", r.Query, err)
		}
		if v.sas.len() != 1 {
			t.Fatalf("%q: %d entries", r.Query, v.sas.len())
		}
		for _, e := range v.sas.verified {
			walkStrings(reflect.ValueOf(e).Elem(), func(path, s string) {
				if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); s != "" && p >= base && p < base+uintptr(len(text)) {
					t.Errorf("%q: the cached %s (%q) is part of the request", r.Query, path, s)
				}
			})
		}
	}
}

// walkStrings calls fn for every string in v, however deep.
func walkStrings(v reflect.Value, fn func(path, s string)) {
	switch v.Kind() {
	case reflect.String:
		fn(v.Type().String(), v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			walkStrings(v.Field(i), func(path, s string) { fn(v.Type().Field(i).Name+"."+path, s) })
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkStrings(v.Index(i), fn)
		}
	}
}
