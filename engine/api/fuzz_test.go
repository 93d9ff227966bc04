package api

import (
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// FuzzServe sends arbitrary requests through the whole protocol: every
// one gets an answer with a status, none panics.
func FuzzServe(f *testing.F) {
	f.Add("GET", "/devstoreaccount1/people(PartitionKey='a',RowKey='b')?$select=A", "")
	f.Add("POST", "/devstoreaccount1/people", `{"PartitionKey":"a","RowKey":"b","X":1}`)
	f.Add("POST", "/devstoreaccount1/$batch", goBatch)
	f.Add("GET", "/devstoreaccount1/people()?$filter=A%20eq%201&$top=5&NextPartitionKey=1!YQ", "")
	f.Add("DELETE", "/devstoreaccount1/Tables('people')", "")
	f.Add("PATCH", "/devstoreaccount1/people(RowKey='b', PartitionKey='a')", `{"Y":"2"}`)
	f.Fuzz(func(t *testing.T, method, target, body string) {
		srv := NewServer(engine.New(engine.Options{}), Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
		srv.Serve(&Request{Method: "POST", Target: "/devstoreaccount1/Tables", Host: "127.0.0.1", Body: []byte(`{"TableName":"people"}`)})
		r := &Request{Method: method, Target: target, Host: "127.0.0.1:10002", Body: []byte(body)}
		r.Header.Set("Content-Type", "multipart/mixed; boundary=batch_b")
		r.Header.Set("If-Match", "*")
		resp := srv.Serve(r)
		if resp.Status < 200 || resp.Status > 599 {
			t.Fatalf("status %d", resp.Status)
		}
		if resp.Status == 500 {
			t.Fatalf("internal error for %s %q: %s", method, target, resp.Body)
		}
	})
}
