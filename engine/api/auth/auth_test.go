package auth

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/svcerr"
)

var now = time.Date(2026, 11, 22, 14, 0, 0, 0, time.UTC)

// time1123 is the form of a signed request's date.
const time1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

func header(h map[string]string) func(string) string {
	return func(name string) string {
		for k, v := range h {
			if strings.EqualFold(k, name) {
				return v
			}
		}
		return ""
	}
}

func verifier() *Verifier {
	second := Account{Name: "second", Keys: [][]byte{[]byte("key-one"), []byte("key-two")}}
	return &Verifier{Accounts: []Account{DevAccount(), second}, SharedKey: VerifySharedKey}
}

func signedRequest(account string, key []byte, date time.Time, path, query string) Request {
	d := date.UTC().Format(time1123)
	comp, _ := ParseQuery(query)
	return Request{Method: "GET", RawPath: path, Query: query, Account: account, Scheme: "http", Now: now,
		Header: header(map[string]string{"x-ms-date": d, "Authorization": SignSharedKeyLite(account, key, d, path, comp.Get("comp"))})}
}

func TestSharedKeyLite(t *testing.T) {
	v := verifier()
	dev := DevAccount()
	r := signedRequest(DevAccountName, dev.Keys[0], now, "/devstoreaccount1/people(PartitionKey='a',RowKey='b')", "$select=X")
	g, err := v.Verify(r)
	if err != nil || !g.full {
		t.Fatalf("valid signature refused: %v", err)
	}
	// Tampering with the signed parts fails; the query (but comp) is not signed.
	tampered := r
	tampered.RawPath = "/devstoreaccount1/people(PartitionKey='a',RowKey='c')"
	if _, err := v.Verify(tampered); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Fatalf("tampered path: %v", err)
	}
	for _, skew := range []time.Duration{16 * time.Minute, -16 * time.Minute} {
		if _, err := v.Verify(signedRequest(DevAccountName, dev.Keys[0], now.Add(skew), "/devstoreaccount1/Tables", "")); !svcerr.Is(err, svcerr.AuthenticationFailed) {
			t.Fatalf("skew %v accepted", skew)
		}
	}
	if _, err := v.Verify(signedRequest(DevAccountName, dev.Keys[0], now.Add(14*time.Minute), "/devstoreaccount1/Tables", "")); err != nil {
		t.Fatalf("14 minutes skew refused: %v", err)
	}
	// comp is part of the resource.
	acl := signedRequest(DevAccountName, dev.Keys[0], now, "/devstoreaccount1/people", "comp=acl")
	if _, err := v.Verify(acl); err != nil {
		t.Fatal(err)
	}
	acl.Query = "comp=properties"
	if _, err := v.Verify(acl); err == nil {
		t.Fatal("comp not signed")
	}
	// Any key of the account, not another account's.
	if _, err := v.Verify(signedRequest("second", []byte("key-two"), now, "/second/Tables", "")); err != nil {
		t.Fatalf("second key refused: %v", err)
	}
	if _, err := v.Verify(signedRequest("second", dev.Keys[0], now, "/second/Tables", "")); err == nil {
		t.Fatal("wrong key accepted")
	}
	if _, err := v.Verify(signedRequest("nobody", []byte("k"), now, "/nobody/Tables", "")); err == nil {
		t.Fatal("unknown account accepted")
	}
}

func TestSharedKeyFull(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	d := now.Format(time1123)
	path := "/devstoreaccount1/people"
	toSign := "POST\n\napplication/json\n" + d + "\n" + CanonicalResource(DevAccountName, path, "")
	r := Request{Method: "POST", RawPath: path, Account: DevAccountName, Now: now, Header: header(map[string]string{
		"x-ms-date": d, "Content-Type": "application/json", "Authorization": "SharedKey devstoreaccount1:" + Sign(key, toSign)})}
	if _, err := v.Verify(r); err != nil {
		t.Fatalf("SharedKey refused: %v", err)
	}
	r.Method = "PUT"
	if _, err := v.Verify(r); err == nil {
		t.Fatal("SharedKey signs the verb")
	}
}

// TestSASOnly checks a verifier without SharedKey, the browser's: a
// request signed with the account key, however well, is refused with
// AuthenticationFailed saying the host takes SAS only, while a SAS, a
// bearer check and anonymous access work as before.
func TestSASOnly(t *testing.T) {
	v := &Verifier{Accounts: []Account{DevAccount()}}
	key := DevAccount().Keys[0]
	lite := signedRequest(DevAccountName, key, now, "/devstoreaccount1/Tables", "")
	d := now.Format(time1123)
	full := Request{Method: "GET", RawPath: "/devstoreaccount1/Tables", Account: DevAccountName, Now: now, Header: header(map[string]string{
		"x-ms-date": d, "Authorization": "SharedKey devstoreaccount1:" + Sign(key, "GET\n\n\n"+d+"\n/devstoreaccount1/devstoreaccount1/Tables")})}
	if _, err := verifier().Verify(full); err != nil {
		t.Fatalf("the request is well signed: %v", err)
	}
	for _, svc := range []Service{Table, Blob, Queue} {
		for name, r := range map[string]Request{"SharedKeyLite": lite, "SharedKey": full} {
			r.Service = svc
			_, err := v.Verify(r)
			if !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "shared access signatures (SAS) only") ||
				!strings.Contains(err.Error(), "("+name+")") {
				t.Errorf("%v %s on a SAS-only host: %v", svc, name, err)
			}
		}
	}
	other := lite
	other.Header = header(map[string]string{"Authorization": "Basic dXNlcg=="})
	if _, err := v.Verify(other); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "scheme Basic is not supported") {
		t.Errorf("another scheme: %v", err)
	}
	sas := NewTableSAS(DevAccountName, key, TableSAS{Table: "people", Permissions: "r", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(sasRequest("people", sas)); err != nil {
		t.Errorf("a SAS on a SAS-only host: %v", err)
	}
	v.AllowAnonymous = true
	if _, err := v.Verify(lite); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("a signed request is judged by its signature, anonymous access or not: %v", err)
	}
}

func TestAnonymous(t *testing.T) {
	v := verifier()
	if _, err := v.Verify(Request{Account: DevAccountName}); !svcerr.Is(err, svcerr.AuthorizationFailure) {
		t.Fatalf("no credentials: %v", err)
	}
	v.AllowAnonymous = true
	g, err := v.Verify(Request{Account: DevAccountName})
	if err != nil || g.Check(Delete, "t", "a", "b") != nil {
		t.Fatalf("anonymous mode: %v", err)
	}
}

func sasRequest(table, query string) Request {
	return Request{Method: "GET", RawPath: "/devstoreaccount1/" + table, Query: query, Account: DevAccountName, Scheme: "http", RemoteIP: "127.0.0.1", Now: now}
}

func TestTableSAS(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	sas := func(s TableSAS) string {
		if s.Table == "" {
			s.Table = "People"
		}
		if s.Expiry.IsZero() {
			s.Expiry = now.Add(time.Hour)
		}
		return NewTableSAS(DevAccountName, key, s)
	}
	g, err := v.Verify(sasRequest("people", sas(TableSAS{Permissions: "r"})))
	if err != nil {
		t.Fatal(err)
	}
	if g.Check(Read, "PEOPLE", "a", "b") != nil || !svcerr.Is(g.Check(Add, "people", "a", "b"), svcerr.AuthorizationPermissionMismatch) {
		t.Fatal("read-only SAS")
	}
	if !svcerr.Is(g.CheckTable(Read, "other"), svcerr.AuthorizationFailure) || g.CheckTable(ListTables, "") == nil || g.CheckTable(CreateTable, "people") == nil {
		t.Fatal("a table SAS reaches only its table's entities")
	}
	for name, s := range map[string]TableSAS{
		"expired":       {Permissions: "r", Expiry: now.Add(-time.Minute)},
		"not yet valid": {Permissions: "r", Start: now.Add(time.Hour)},
	} {
		if _, err := v.Verify(sasRequest("people", sas(s))); !svcerr.Is(err, svcerr.AuthenticationFailed) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := v.Verify(sasRequest("people", sas(TableSAS{Permissions: "r", Protocol: "https"}))); !svcerr.Is(err, svcerr.AuthorizationProtocolMismatch) {
		t.Errorf("https only over http: %v", err)
	}
	if _, err := v.Verify(sasRequest("people", sas(TableSAS{Permissions: "r", IP: "10.0.0.1-10.0.0.9"}))); !svcerr.Is(err, svcerr.AuthorizationSourceIPMismatch) {
		t.Errorf("ip range: %v", err)
	}
	if _, err := v.Verify(sasRequest("people", sas(TableSAS{Permissions: "r", IP: "127.0.0.0-127.0.0.9"}))); err != nil {
		t.Errorf("ip in range: %v", err)
	}
	q := sas(TableSAS{Permissions: "r"})
	vals, _ := url.ParseQuery(q)
	vals.Set("sp", "raud") // widened permissions break the signature
	if _, err := v.Verify(sasRequest("people", vals.Encode())); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("tampered sp: %v", err)
	}

	// Key ranges: partition first, then row, both ends included.
	g, err = v.Verify(sasRequest("people", sas(TableSAS{Permissions: "raud", StartPartitionKey: "b", StartRowKey: "5", EndPartitionKey: "d", EndRowKey: "2"})))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pk, rk string
		ok     bool
	}{{"a", "9", false}, {"b", "4", false}, {"b", "5", true}, {"c", "", true}, {"d", "2", true}, {"d", "3", false}, {"e", "0", false}} {
		if err := g.Check(Update, "people", c.pk, c.rk); (err == nil) != c.ok || !c.ok && !svcerr.Is(err, svcerr.AuthorizationFailure) {
			t.Errorf("(%s,%s): %v, want allowed=%v", c.pk, c.rk, err, c.ok)
		}
		// A read outside the range finds nothing: 404, as the service
		// answers a point read there.
		if err := g.Check(Read, "people", c.pk, c.rk); (err == nil) != c.ok || !c.ok && !svcerr.Is(err, svcerr.ResourceNotFound) {
			t.Errorf("read (%s,%s): %v, want allowed=%v", c.pk, c.rk, err, c.ok)
		}
	}
	if lo, hi, ok := g.KeyRange(); !ok || lo != (Key{"b", "5"}) || hi != (Key{"d", "2"}) {
		t.Errorf("KeyRange %v %v %v", lo, hi, ok)
	}
	// Without r, a read is refused for want of the permission, in the
	// range or out of it.
	g, err = v.Verify(sasRequest("people", sas(TableSAS{Permissions: "a", StartPartitionKey: "b", EndPartitionKey: "d"})))
	if err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"a", "c"} {
		if err := g.Check(Read, "people", pk, "1"); !svcerr.Is(err, svcerr.AuthorizationPermissionMismatch) {
			t.Errorf("read %s without r: %v", pk, err)
		}
	}
}

// TestRepeatedSASParameter checks that a token naming a parameter twice
// is refused, whichever copy is the signed one: read by its first value
// it could carry rights its signature does not cover.
func TestRepeatedSASParameter(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	good := NewTableSAS(DevAccountName, key, TableSAS{Table: "People", Permissions: "r", Expiry: now.Add(time.Hour)})
	if _, err := v.Verify(sasRequest("people", good)); err != nil {
		t.Fatal(err)
	}
	q, _ := ParseQuery(good)
	for _, extra := range []string{"sig=" + url.QueryEscape(q.Get("sig")), "sig=AAAA", "sp=raud", "se=2099-01-01T00%3A00%3A00Z"} {
		for _, token := range []string{good + "&" + extra, extra + "&" + good} {
			if _, err := v.Verify(sasRequest("people", token)); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "more than once") {
				t.Errorf("%s: %v", token, err)
			}
		}
	}
}

// TestBearer checks the bearer scheme's checks that do not depend on the
// token: refused unless the host enables it, over HTTP, without a token;
// the host's check decides the rest.
func TestBearer(t *testing.T) {
	req := func(scheme, authz string) Request {
		return Request{Method: "GET", RawPath: "/devstoreaccount1/Tables", Account: DevAccountName, Scheme: scheme, Now: now,
			Header: func(name string) string {
				if name == "Authorization" {
					return authz
				}
				return ""
			}}
	}
	off := verifier()
	if _, err := off.Verify(req("https", "Bearer abc")); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("bearer without a check: %v", err)
	}
	var seen string
	on := &Verifier{Accounts: []Account{DevAccount()}, Bearer: func(token string, r Request) error {
		seen = token
		if token != "good" {
			return BearerFailed("no")
		}
		return nil
	}}
	if _, err := on.Verify(req("http", "Bearer good")); !svcerr.Is(err, svcerr.AuthenticationFailed) || !strings.Contains(err.Error(), "HTTP") {
		t.Errorf("bearer over HTTP: %v", err)
	}
	if _, err := on.Verify(req("https", "Bearer ")); !svcerr.Is(err, svcerr.InvalidAuthenticationInfo) {
		t.Errorf("bearer without a token: %v", err)
	}
	if _, err := on.Verify(req("https", "Bearer bad")); !svcerr.Is(err, svcerr.AuthenticationFailed) {
		t.Errorf("a refused token: %v", err)
	}
	g, err := on.Verify(req("https", "Bearer good"))
	if err != nil || seen != "good" || g.Check(Delete, "t", "p", "r") != nil {
		t.Errorf("a good token: %v, saw %q", err, seen)
	}
	// Stored access policies are the owner's: Azure's data roles grant
	// no action on them, and the service answers a token 404.
	if err := g.CheckOwner(); !svcerr.Is(err, svcerr.ResourceNotFound) {
		t.Errorf("a token reading access policies: %v, want ResourceNotFound", err)
	}
	if err := (Grant{full: true}).CheckOwner(); err != nil {
		t.Errorf("the account key reading access policies: %v", err)
	}
}

func TestAccountSAS(t *testing.T) {
	v := verifier()
	key := DevAccount().Keys[0]
	q := NewAccountSAS(DevAccountName, key, AccountSAS{Permissions: "rl", ResourceTypes: "c", Expiry: now.Add(time.Hour)})
	g, err := v.Verify(sasRequest("Tables", q))
	if err != nil {
		t.Fatal(err)
	}
	if g.CheckTable(ListTables, "") != nil {
		t.Error("list tables with srt=c sp=l")
	}
	if !svcerr.Is(g.CheckTable(CreateTable, "x"), svcerr.AuthorizationPermissionMismatch) {
		t.Error("create needs c or w")
	}
	if !svcerr.Is(g.Check(Read, "people", "a", "b"), svcerr.AuthorizationResourceTypeMismatch) {
		t.Error("entities need srt=o")
	}
}

func TestParseAccounts(t *testing.T) {
	as, err := ParseAccounts("one:a2V5MQ==:a2V5Mg==;two:a2V5Mw==")
	if err != nil || len(as) != 2 || len(as[0].Keys) != 2 || string(as[1].Keys[0]) != "key3" {
		t.Fatalf("%v %v", as, err)
	}
	for _, bad := range []string{"nokey", "x:%%%", ":a2V5"} {
		if _, err := ParseAccounts(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
