package auth

import (
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/svcerr"
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

// FuzzVerifyBlobQueue does the same for the Blob and Queue services,
// whose signatures cover every x-ms-* header and query parameter, and
// checks that whatever grant comes out answers every question.
func FuzzVerifyBlobQueue(f *testing.F) {
	key := DevAccount().Keys[0]
	f.Add(uint8(1), "SharedKey devstoreaccount1:abc=", "x-ms-meta-a_1", "v", "/devstoreaccount1/box/a%20b", "comp=block&blockid=QQ%3D%3D", "box", "a b")
	f.Add(uint8(2), "SharedKeyLite devstoreaccount1:abc=", "x-ms-version", "2025-01-05", "/devstoreaccount1/jobs/messages", "numofmessages=3", "jobs", "")
	f.Add(uint8(1), "", "", "", "/devstoreaccount1/box/b", NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Blob: "b", Permissions: "rw", Expiry: now.Add(time.Hour)}), "box", "b")
	f.Add(uint8(1), "", "", "", "/devstoreaccount1/box", NewBlobSAS(DevAccountName, key, BlobSAS{Container: "box", Permissions: "rl", Version: "2018-11-09", Expiry: now.Add(time.Hour)})+"&sr=bs&snapshot=x", "box", "")
	f.Add(uint8(2), "", "", "", "/devstoreaccount1/jobs", NewQueueSAS(DevAccountName, key, QueueSAS{Queue: "jobs", Permissions: "raup", Expiry: now.Add(time.Hour)}), "jobs", "")
	f.Add(uint8(2), "", "", "", "/devstoreaccount1", NewAccountSAS(DevAccountName, key, AccountSAS{Services: "bq", Permissions: "rl", ResourceTypes: "s", Version: "2025-01-05", Expiry: now.Add(time.Hour)}), "", "")
	f.Fuzz(func(t *testing.T, svc uint8, authz, hname, hvalue, path, query, container, blob string) {
		v := verifier()
		d := now.Format(time1123)
		h := headers{{"Authorization", authz}, {"x-ms-date", d}, {hname, hvalue}}
		g, err := v.Verify(Request{Service: Service(svc % 3), Method: "PUT", RawPath: path, Query: query, Account: DevAccountName, Scheme: "http",
			RemoteIP: "127.0.0.1", Now: now, Header: h.get, Headers: h.each, Container: container, Blob: blob})
		if err != nil {
			if svcerr.From(err).Status() != 403 {
				t.Fatalf("a refusal that is not a 403: %v", err)
			}
			return
		}
		for p := Read; p <= Process; p++ {
			for l := ServiceLevel; l <= ObjectLevel; l++ {
				_ = g.CheckBlob(p, l, container, blob)
				_ = g.CheckQueue(p, l, container)
			}
		}
	})
}
