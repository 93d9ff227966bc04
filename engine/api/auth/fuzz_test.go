package auth

import (
	"testing"
	"time"
)

// FuzzVerify throws arbitrary headers and queries at the verifier: it
// must answer, never panic.
func FuzzVerify(f *testing.F) {
	key := DevAccount().Keys[0]
	f.Add("SharedKeyLite devstoreaccount1:abc=", "Sun, 22 Nov 2026 14:00:00 GMT", "/devstoreaccount1/t", "")
	f.Add("", "", "/devstoreaccount1/t", NewTableSAS(DevAccountName, key, TableSAS{Table: "t", Permissions: "r", Expiry: now.Add(time.Hour), StartPartitionKey: "a"}))
	f.Add("", "", "/devstoreaccount1/Tables", NewAccountSAS(DevAccountName, key, AccountSAS{Permissions: "rl", ResourceTypes: "sco", Expiry: now.Add(time.Hour)}))
	f.Add("SharedKey devstoreaccount1", "garbage", "/", "sig=%zz&se=x")
	f.Fuzz(func(t *testing.T, authz, date, path, query string) {
		v := verifier()
		g, err := v.Verify(Request{Method: "GET", RawPath: path, Query: query, Account: DevAccountName, Scheme: "http", RemoteIP: "127.0.0.1", Now: now,
			Header: header(map[string]string{"Authorization": authz, "x-ms-date": date})})
		if err == nil {
			_ = g.Check(Read, "t", "a", "b")
			_ = g.CheckTable(ListTables, "")
		}
	})
}
