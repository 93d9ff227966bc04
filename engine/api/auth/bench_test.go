package auth

import (
	"testing"
	"time"
)

// BenchmarkVerifySAS measures verifying a SAS the verifier has seen
// before, as every request after a client's first presents it: the
// browser's account SAS on a point read, and a table SAS with a key
// range and an address range.
func BenchmarkVerifySAS(b *testing.B) {
	key := DevAccount().Keys[0]
	account := NewAccountSAS(DevAccountName, key, AccountSAS{Services: "bqt", Permissions: "rwdlacup", ResourceTypes: "sco",
		Expiry: time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC)})
	table := NewTableSAS(DevAccountName, key, TableSAS{Table: "Bench", Permissions: "raud", Start: now.Add(-time.Hour), Expiry: now.Add(time.Hour),
		IP: "127.0.0.1-127.0.0.9", StartPartitionKey: "p0000", EndPartitionKey: "p0009"})
	noHeaders := func(string) string { return "" }
	for _, c := range []struct{ name, query string }{
		{"repeat/account", account},
		{"repeat/table", table},
	} {
		b.Run(c.name, func(b *testing.B) {
			v := verifier()
			r := Request{Method: "GET", RawPath: "/devstoreaccount1/Bench(PartitionKey='p0001',RowKey='0001234')", Query: c.query,
				Header: noHeaders, Account: DevAccountName, Scheme: "http", RemoteIP: "127.0.0.1", Now: now}
			if _, err := v.Verify(r); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
