package api

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// TestPointReadReportsPlan checks that a point GET carries its plan, as a
// $filter read does, whether it finds the entity or not.
func TestPointReadReportsPlan(t *testing.T) {
	c := newClient(t)
	c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r"}`), 201)
	for _, tc := range []struct {
		target           string
		status           int
		examined, served string
	}{
		{"/people(PartitionKey='p',RowKey='r')", 200, "1", "1"},
		{"/people(PartitionKey='p',RowKey='nope')", 404, "0", "0"},
		{"/people()?$filter=PartitionKey%20eq%20'p'%20and%20RowKey%20eq%20'r'", 200, "1", "1"},
	} {
		resp := c.want(c.do("GET", tc.target, ""), tc.status)
		h := &resp.Header
		if h.Get("X-Tablelab-Plan") != "point" || h.Get("X-Tablelab-Examined") != tc.examined || h.Get("X-Tablelab-Returned") != tc.served {
			t.Errorf("%s: plan %q examined %q returned %q, want point %s %s", tc.target,
				h.Get("X-Tablelab-Plan"), h.Get("X-Tablelab-Examined"), h.Get("X-Tablelab-Returned"), tc.examined, tc.served)
		}
	}
	// A table that does not exist was never read.
	resp := c.do("GET", "/nosuch(PartitionKey='p',RowKey='r')", "")
	if resp.Status != 404 || resp.Header.Has("X-Tablelab-Plan") {
		t.Errorf("a read of a missing table: %d, plan %q", resp.Status, resp.Header.Get("X-Tablelab-Plan"))
	}
}

// deletingJournal deletes a table after a write has committed and before
// it is answered, as a concurrent request may.
type deletingJournal struct {
	store *engine.Store
	armed bool
}

func (j *deletingJournal) Append([]byte) engine.Waiter { return j }

func (j *deletingJournal) Wait() error {
	if j.armed {
		j.armed = false
		return j.store.DeleteTable("people")
	}
	return nil
}

// TestAnswersNameTheTableAsWritten checks that a response names the table
// as created, from the operation's own result: a delete of the table
// between the write and the answer cannot change the name, as a second
// lookup of it would.
func TestAnswersNameTheTableAsWritten(t *testing.T) {
	j := &deletingJournal{}
	j.store = engine.New(engine.Options{Journal: j})
	c := &client{t: t, srv: NewServer(j.store, Options{Verifier: &auth.Verifier{AllowAnonymous: true}})}

	c.want(c.do("POST", "/Tables", `{"TableName":"people"}`), 201)
	j.armed = true
	resp := c.want(c.do("POST", "/PEOPLE", `{"PartitionKey":"p","RowKey":"r"}`), 201)
	if loc := resp.Header.Get("Location"); !strings.HasSuffix(loc, "/people(PartitionKey='p',RowKey='r')") {
		t.Errorf("insert: Location %q", loc)
	}
	if body := string(resp.Body); !strings.Contains(body, `$metadata#people/@Element`) {
		t.Errorf("insert: %s", body)
	}

	c.want(c.do("POST", "/Tables", `{"TableName":"people"}`), 201)
	j.armed = true
	batch := "--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n" +
		"--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"POST http://127.0.0.1:10002/devstoreaccount1/People HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=minimalmetadata\r\n\r\n" +
		`{"PartitionKey":"p","RowKey":"r"}` + "\r\n--cs--\r\n--b--\r\n"
	resp = c.want(c.do("POST", "/$batch", batch, "Content-Type", "multipart/mixed; boundary=b"), 202)
	if body := string(resp.Body); !strings.Contains(body, "/people(PartitionKey='p',RowKey='r')") {
		t.Errorf("batch: %s", body)
	}
}
