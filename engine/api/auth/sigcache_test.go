package auth

import (
	"fmt"
	"net/url"
	"sync"
	"testing"
	"time"

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
