package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// client sends raw protocol requests to an anonymous-access server.
type client struct {
	t   *testing.T
	srv *Server
}

func newClient(t *testing.T) *client {
	t.Helper()
	srv := NewServer(engine.New(engine.Options{}), Options{Verifier: &auth.Verifier{AllowAnonymous: true}})
	c := &client{t: t, srv: srv}
	c.want(c.do("POST", "/Tables", `{"TableName":"people"}`), 201)
	return c
}

func (c *client) do(method, target, body string, headers ...string) *Response {
	r := &Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10002", Scheme: "http", Body: []byte(body)}
	r.Header.Set("Accept", "application/json;odata=minimalmetadata")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return c.srv.Serve(r)
}

func (c *client) want(resp *Response, status int) *Response {
	c.t.Helper()
	if resp.Status != status {
		c.t.Fatalf("status %d, want %d: %s", resp.Status, status, resp.Body)
	}
	return resp
}

func (c *client) wantError(resp *Response, status int, code string) {
	c.t.Helper()
	var body struct {
		Err struct {
			Code    string
			Message struct{ Lang, Value string }
		} `json:"odata.error"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		c.t.Fatalf("error body %s: %v", resp.Body, err)
	}
	if resp.Status != status || body.Err.Code != code {
		c.t.Fatalf("got %d %s, want %d %s: %s", resp.Status, body.Err.Code, status, code, resp.Body)
	}
	if body.Err.Message.Lang != "en-US" || !strings.Contains(body.Err.Message.Value, "\nRequestId:"+resp.Header.Get("x-ms-request-id")+"\nTime:") {
		c.t.Fatalf("error message %q lacks the request id and time", body.Err.Message.Value)
	}
	if resp.Header.Has("x-ms-error-code") {
		c.t.Fatal("the service sends no x-ms-error-code on Table errors")
	}
}

func TestWireForms(t *testing.T) {
	c := newClient(t)
	c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r","W":3.0,"W@odata.type":"Edm.Double","Big":"9007199254740993","Big@odata.type":"Edm.Int64","I":7,"odata.etag":"ignored","Timestamp":"2000-01-01T00:00:00Z","Null":null}`,
		"Prefer", "return-no-content"), 204)
	resp := c.want(c.do("GET", "/people(PartitionKey='p',RowKey='r')", ""), 200)
	body := string(resp.Body)
	for _, frag := range []string{`"W":3.0`, `"Big@odata.type":"Edm.Int64","Big":"9007199254740993"`, `"I":7`, `"odata.etag":"W/\"datetime'`, `"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#people/@Element"`} {
		if !strings.Contains(body, frag) {
			t.Errorf("missing %s in %s", frag, body)
		}
	}
	if strings.Contains(body, "Null") || strings.Contains(body, "2000-01-01") {
		t.Errorf("null or client Timestamp stored: %s", body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json;odata=minimalmetadata;streaming=true;charset=utf-8" {
		t.Errorf("content type %s", ct)
	}
	if resp.Header.Get("ETag") == "" || resp.Header.Get("x-ms-version") != "2019-02-02" || resp.Header.Get("Date") == "" {
		t.Errorf("headers %+v", resp.Header)
	}
	none := string(c.want(c.do("GET", "/people(PartitionKey='p',RowKey='r')?$format=application/json;odata=nometadata", ""), 200).Body)
	if strings.Contains(none, "odata") || !strings.Contains(none, `"Big":"9007199254740993"`) {
		t.Errorf("nometadata: %s", none)
	}
	full := string(c.want(c.do("GET", "/people(PartitionKey='p',RowKey='r')", "", "Accept", "application/json;odata=fullmetadata"), 200).Body)
	for _, frag := range []string{`"odata.type":"devstoreaccount1.people"`, `"odata.id":"http://127.0.0.1:10002/devstoreaccount1/people(PartitionKey='p',RowKey='r')"`, `"odata.editLink":"people(PartitionKey='p',RowKey='r')"`, `"Timestamp@odata.type":"Edm.DateTime"`} {
		if !strings.Contains(full, frag) {
			t.Errorf("fullmetadata lacks %s: %s", frag, full)
		}
	}
	sel := string(c.want(c.do("GET", "/people()?$select=I,Missing", ""), 200).Body)
	if !strings.Contains(sel, `"I":7,"Missing":null`) || strings.Contains(sel, "Big") {
		t.Errorf("$select: %s", sel)
	}
	c.wantError(c.do("GET", "/people(PartitionKey='p',RowKey='r')", "", "Accept", "application/atom+xml"), 415, "AtomFormatNotSupported")
	// An insert without Prefer answers 201 with the entity and Location.
	created := c.want(c.do("POST", "/people", `{"PartitionKey":"O'Brien & Co","RowKey":"é 1"}`), 201)
	if created.Header.Get("Location") != "http://127.0.0.1:10002/devstoreaccount1/people(PartitionKey='O''Brien%20&%20Co',RowKey='%C3%A9%201')" {
		t.Errorf("Location %s", created.Header.Get("Location"))
	}
	c.want(c.do("GET", "/people(PartitionKey='O''Brien%20%26%20Co',RowKey='%C3%A9%201')", ""), 200)
	c.want(c.do("GET", "/people(PartitionKey='O%27%27Brien%20&%20Co', RowKey='%C3%A9%201')", ""), 200)
}

func TestBadRequests(t *testing.T) {
	c := newClient(t)
	c.wantError(c.do("POST", "/people", `{"PartitionKey":"p"}`), 400, "PropertiesNeedValue")
	c.wantError(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r",`), 400, "InvalidInput")
	c.wantError(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r","X":1,"X":2}`), 400, "DuplicatePropertiesSpecified")
	c.wantError(c.do("POST", "/people", `{"PartitionKey":5,"RowKey":"r"}`), 400, "InvalidInput")
	c.wantError(c.do("POST", "/people", ``), 400, "InvalidInput")
	c.wantError(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r","X":[1]}`), 400, "InvalidInput")
	c.wantError(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r","a-b":1}`), 400, "PropertyNameInvalid")
	c.wantError(c.do("GET", "/people()?$top=-1", ""), 400, "InvalidInput")
	c.wantError(c.do("GET", "/people()?$top=1001", ""), 400, "InvalidInput")
	c.wantError(c.do("GET", "/people()?NextPartitionKey=1!%25%25", ""), 400, "InvalidInput")
	c.wantError(c.do("PUT", "/people", ""), 405, "MethodNotAllowed")
	c.wantError(c.do("DELETE", "/people(PartitionKey='p',RowKey='r')", ""), 400, "MissingRequiredHeader")
	c.wantError(c.do("GET", "/people(PartitionKey='p')", ""), 400, "InvalidInput")
	c.wantError(c.do("GET", "/people(PartitionKey='p',RowKey='r", ""), 400, "InvalidUri")
	c.wantError(c.do("PUT", "/people(PartitionKey='p',RowKey='r')", `{}`, "If-Match", "bogus"), 400, "InvalidInput")
	c.wantError(c.do("POST", "/Tables", `{"TableName":"people"}`, "Prefer", "return-no-content"), 409, "TableAlreadyExists")
	resp := c.do("POST", "/Tables", `{"TableName":"people"}`, "Prefer", "return-no-content")
	if resp.Header.Get("Preference-Applied") != "return-no-content" {
		t.Error("Preference-Applied is echoed on errors of requests that had Prefer")
	}
	c.wantError(c.do("GET", "/nosuch()", ""), 404, "TableNotFound")
	c.wantError(c.do("DELETE", "/Tables('nosuch')", ""), 404, "ResourceNotFound")
	if r := c.do("GET", "/people()", "", "x-ms-client-request-id", "abc-123"); r.Header.Get("x-ms-client-request-id") != "abc-123" {
		t.Error("x-ms-client-request-id is echoed")
	}
	// Without credentials, and anonymous access off.
	strict := NewServer(engine.New(engine.Options{}), Options{})
	r := &Request{Method: "GET", Target: "/devstoreaccount1/Tables", Host: "127.0.0.1:10002"}
	if resp := strict.Serve(r); resp.Status != 403 || !strings.Contains(string(resp.Body), "AuthorizationFailure") {
		t.Errorf("anonymous request: %d %s", resp.Status, resp.Body)
	}
}

// TestVersionHeader checks x-ms-version: a well-formed version is
// echoed, a malformed one refused with InvalidHeaderValue.
func TestVersionHeader(t *testing.T) {
	c := newClient(t)
	for _, v := range []string{"2019-02-02", "2025-11-05", "2024-02-29"} {
		if r := c.want(c.do("GET", "/Tables", "", "x-ms-version", v), 200); r.Header.Get("x-ms-version") != v {
			t.Errorf("version %s echoed as %q", v, r.Header.Get("x-ms-version"))
		}
	}
	if r := c.want(c.do("GET", "/Tables", ""), 200); r.Header.Get("x-ms-version") != DefaultVersion {
		t.Errorf("no version: answered %q", r.Header.Get("x-ms-version"))
	}
	for _, v := range []string{"2019-2-2", "yesterday", "2019-13-01", "2023-02-29", "2019-02-02x", "２０１９-02-02"} {
		c.wantError(c.do("GET", "/Tables", "", "x-ms-version", v), 400, "InvalidHeaderValue")
		c.wantError(c.do("POST", "/people", `{"PartitionKey":"v","RowKey":"`+v+`"}`, "x-ms-version", v), 400, "InvalidHeaderValue")
	}
	// Nothing was written by the refused inserts.
	r := c.want(c.do("GET", "/people()?$filter=PartitionKey%20eq%20'v'", ""), 200)
	if strings.Contains(string(r.Body), `"RowKey"`) {
		t.Fatalf("a refused request wrote: %s", r.Body)
	}
}

// TestIfMatchForms checks If-Match as the service reads it: a weak ETag's
// W/ in either case, "*", and a strong or malformed ETag refused with
// InvalidInput, alone and inside a batch, where nothing of the batch is
// written.
func TestIfMatchForms(t *testing.T) {
	c := newClient(t)
	r := c.want(c.do("POST", "/people", `{"PartitionKey":"m","RowKey":"r","N":1}`), 201)
	etag := r.Header.Get("ETag")
	if !strings.HasPrefix(etag, `W/"`) {
		t.Fatalf("ETag %q", etag)
	}
	lower := "w" + etag[1:]
	r = c.want(c.do("PUT", "/people(PartitionKey='m',RowKey='r')", `{"N":2}`, "If-Match", lower), 204)
	etag = r.Header.Get("ETag")
	c.wantError(c.do("PUT", "/people(PartitionKey='m',RowKey='r')", `{"N":3}`, "If-Match", lower), 412, "UpdateConditionNotSatisfied")
	for _, bad := range []string{etag[2:], "W/", `W/"`, "bogus", `"*"`, `x/"abc"`} {
		c.wantError(c.do("PUT", "/people(PartitionKey='m',RowKey='r')", `{"N":4}`, "If-Match", bad), 400, "InvalidInput")
		c.wantError(c.do("DELETE", "/people(PartitionKey='m',RowKey='r')", "", "If-Match", bad), 400, "InvalidInput")
	}
	op := func(method, rk, ifMatch, body string) string {
		return "--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			method + " http://127.0.0.1:10002/devstoreaccount1/people(PartitionKey='m',RowKey='" + rk + "') HTTP/1.1\r\n" +
			"Content-Type: application/json\r\nIf-Match: " + ifMatch + "\r\n\r\n" + body + "\r\n"
	}
	batch := func(ops ...string) string {
		return "--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n" + strings.Join(ops, "") + "--cs--\r\n--b--\r\n"
	}
	// The first operation would succeed; the second's strong ETag fails
	// the whole batch.
	resp := c.do("POST", "/$batch", batch(op("PUT", "r", "*", `{"N":5}`), op("MERGE", "r", etag[2:], `{"M":1}`)), "Content-Type", "multipart/mixed; boundary=b")
	if !strings.Contains(string(resp.Body), "400 Bad Request") || !strings.Contains(string(resp.Body), "InvalidInput") {
		t.Fatalf("batch with a strong ETag: %d %s", resp.Status, resp.Body)
	}
	got := c.want(c.do("GET", "/people(PartitionKey='m',RowKey='r')", ""), 200)
	if !strings.Contains(string(got.Body), `"N":2`) {
		t.Fatalf("the failed batch wrote: %s", got.Body)
	}
	// A lower-case weak ETag inside a batch matches.
	resp = c.do("POST", "/$batch", batch(op("MERGE", "r", "w"+etag[1:], `{"M":1}`)), "Content-Type", "multipart/mixed; boundary=b")
	if !strings.Contains(string(resp.Body), "204 No Content") {
		t.Fatalf("batch with w/: %d %s", resp.Status, resp.Body)
	}
}

// TestBooleanLiteralsAnyCase checks that a filter's True or FALSE is the
// boolean, as the service reads it, over the protocol.
func TestBooleanLiteralsAnyCase(t *testing.T) {
	c := newClient(t)
	c.want(c.do("POST", "/people", `{"PartitionKey":"b","RowKey":"yes","On":true}`, "Prefer", "return-no-content"), 204)
	c.want(c.do("POST", "/people", `{"PartitionKey":"b","RowKey":"no","On":false}`, "Prefer", "return-no-content"), 204)
	for filter, want := range map[string]string{"On eq True": "yes", "On eq FALSE": "no", "not (On eq tRuE)": "no"} {
		r := c.want(c.do("GET", "/people()?$filter="+url.QueryEscape(filter), ""), 200)
		var body struct{ Value []map[string]any }
		json.Unmarshal(r.Body, &body)
		if len(body.Value) != 1 || body.Value[0]["RowKey"] != want {
			t.Errorf("%s: %s", filter, r.Body)
		}
	}
}

// TestTopZero checks $top=0 as the service answers it: an empty page,
// and the continuation of the first match when there is one, for
// entities and for tables.
func TestTopZero(t *testing.T) {
	c := newClient(t)
	for _, rk := range []string{"b", "c"} {
		c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"`+rk+`"}`, "Prefer", "return-no-content"), 204)
	}
	empty := func(resp *Response) {
		t.Helper()
		var body struct{ Value []map[string]any }
		if err := json.Unmarshal(resp.Body, &body); err != nil || body.Value == nil || len(body.Value) != 0 {
			t.Fatalf("want an empty value array, got %s (%v)", resp.Body, err)
		}
	}
	resp := c.want(c.do("GET", "/people()?$top=0", ""), 200)
	empty(resp)
	npk, nrk := resp.Header.Get("x-ms-continuation-NextPartitionKey"), resp.Header.Get("x-ms-continuation-NextRowKey")
	if npk == "" || nrk == "" || resp.Header.Get("X-Tablelab-Returned") != "0" {
		t.Fatalf("continuation %q %q, returned %s", npk, nrk, resp.Header.Get("X-Tablelab-Returned"))
	}
	// The continuation starts at the first match: nothing is skipped.
	next := c.want(c.do("GET", "/people()?NextPartitionKey="+npk+"&NextRowKey="+nrk, ""), 200)
	var body struct{ Value []map[string]any }
	json.Unmarshal(next.Body, &body)
	if len(body.Value) != 2 || body.Value[0]["RowKey"] != "b" {
		t.Fatalf("after the $top=0 page: %s", next.Body)
	}
	// Nothing matches: an empty page and no continuation.
	resp = c.want(c.do("GET", "/people()?$top=0&$filter=RowKey%20eq%20'zz'", ""), 200)
	empty(resp)
	if h := resp.Header.Get("x-ms-continuation-NextPartitionKey"); h != "" {
		t.Fatalf("continuation %q with no match", h)
	}
	resp = c.want(c.do("GET", "/Tables?$top=0", ""), 200)
	empty(resp)
	if h := resp.Header.Get("x-ms-continuation-NextTableName"); h == "" {
		t.Fatal("no NextTableName on $top=0 with a table")
	}
}

func TestContinuationAndPlanHeaders(t *testing.T) {
	c := newClient(t)
	for i := 0; i < 25; i++ {
		c.want(c.do("POST", "/people", `{"PartitionKey":"","RowKey":"`+string(rune('a'+i))+`"}`, "Prefer", "return-no-content"), 204)
	}
	seen := 0
	next := "/people()?$top=10"
	for page := 0; ; page++ {
		resp := c.want(c.do("GET", next, ""), 200)
		var body struct{ Value []map[string]any }
		json.Unmarshal(resp.Body, &body)
		seen += len(body.Value)
		if resp.Header.Get("X-Tablelab-Plan") != "table-scan" {
			t.Fatalf("plan %s", resp.Header.Get("X-Tablelab-Plan"))
		}
		npk := resp.Header.Get("x-ms-continuation-NextPartitionKey")
		if npk == "" {
			break
		}
		// An empty PartitionKey still gives a non-empty token.
		next = "/people()?$top=10&NextPartitionKey=" + npk + "&NextRowKey=" + resp.Header.Get("x-ms-continuation-NextRowKey")
	}
	if seen != 25 {
		t.Fatalf("paged %d entities", seen)
	}
	resp := c.want(c.do("GET", "/people()?$filter="+strings.ReplaceAll("PartitionKey eq '' and RowKey eq 'c'", " ", "%20"), ""), 200)
	if resp.Header.Get("X-Tablelab-Plan") != "point" || resp.Header.Get("X-Tablelab-Examined") != "1" || resp.Header.Get("X-Tablelab-Returned") != "1" {
		t.Fatalf("point plan headers: %v", resp.Header)
	}
}

const goBatch = "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n" +
	"--changeset_c\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n" +
	"POST http://127.0.0.1:10002/devstoreaccount1/people?%24format=application%2Fjson%3Bodata%3Dminimalmetadata HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\nContent-Type: application/json\r\nDataServiceVersion: \r\nPrefer: return-no-content\r\nx-ms-version: \r\n\r\n" +
	`{"PartitionKey":"b","RowKey":"1"}` + "\r\n" +
	"--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
	"POST http://127.0.0.1:10002/devstoreaccount1/people HTTP/1.1\r\nContent-Type: application/json\r\nContent-ID: 7\r\n\r\n" +
	`{"PartitionKey":"b","RowKey":"2"}` + "\r\n" +
	"--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
	"DELETE http://127.0.0.1:10002/devstoreaccount1/people(PartitionKey='b',RowKey='x') HTTP/1.1\r\nIf-Match: *\r\n\r\n\r\n" +
	"--changeset_c--\r\n\r\n--batch_b--\r\n"

func TestBatchResponses(t *testing.T) {
	c := newClient(t)
	c.want(c.do("POST", "/people", `{"PartitionKey":"b","RowKey":"x"}`), 201)
	resp := c.want(c.do("POST", "/$batch", goBatch, "Content-Type", "multipart/mixed; boundary=batch_b"), 202)
	body := string(resp.Body)
	ct := resp.Header.Get("Content-Type")
	if !strings.HasPrefix(ct, "multipart/mixed; boundary=batchresponse_") || !strings.HasPrefix(body, "--"+strings.TrimPrefix(ct, "multipart/mixed; boundary=")+"\r\n") {
		t.Fatalf("framing: %s\n%s", ct, body)
	}
	for _, frag := range []string{"\r\nContent-Type: multipart/mixed; boundary=changesetresponse_", "HTTP/1.1 204 No Content\r\n", "HTTP/1.1 201 Created\r\nContent-ID: 7\r\n", "Preference-Applied: return-no-content", "--\r\n"} {
		if !strings.Contains(body, frag) {
			t.Errorf("batch response lacks %q:\n%s", frag, body)
		}
	}
	if strings.Count(body, "application/http") != 3 {
		t.Errorf("want three parts:\n%s", body)
	}
	c.want(c.do("GET", "/people(PartitionKey='b',RowKey='2')", ""), 200)
	c.want(c.do("GET", "/people(PartitionKey='b',RowKey='x')", ""), 404)

	// The same batch again fails at index 0 (b/1 exists): one part, 202,
	// the index first in the message, nothing applied.
	c.want(c.do("PUT", "/people(PartitionKey='b',RowKey='x')", `{}`), 204)
	resp = c.want(c.do("POST", "/$batch", goBatch, "Content-Type", "multipart/mixed; boundary=batch_b"), 202)
	body = string(resp.Body)
	if strings.Count(body, "application/http") != 1 || !strings.Contains(body, "HTTP/1.1 409 Conflict") || !strings.Contains(body, `"value":"0:The specified entity already exists.`) {
		t.Fatalf("failed batch:\n%s", body)
	}
	c.want(c.do("GET", "/people(PartitionKey='b',RowKey='x')", ""), 200)

	c.wantError(c.do("POST", "/$batch", "garbage", "Content-Type", "multipart/mixed; boundary=batch_b"), 400, "InvalidInput")
	c.wantError(c.do("POST", "/$batch", goBatch, "Content-Type", "application/json"), 400, "InvalidInput")
}

// TestBatchQuery checks a batch holding one GET of an entity, as the
// service allows: one part outside any change set, with the entity, or
// with the error when it is missing or the GET is not a point read. The
// error names the operation's index, 0, as a change set's errors do and
// as Azurite's own suite expects of it ("0:The specified resource does
// not exist.").
func TestBatchQuery(t *testing.T) {
	c := newClient(t)
	c.want(c.do("POST", "/people", `{"PartitionKey":"q","RowKey":"one","N":7,"S":"x"}`, "Prefer", "return-no-content"), 204)
	query := func(target string) *Response {
		body := "--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET http://127.0.0.1:10002/devstoreaccount1/" +
			target + " HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\n\r\n--b--\r\n"
		return c.want(c.do("POST", "/$batch", body, "Content-Type", "multipart/mixed; boundary=b"), 202)
	}
	r := query("people(PartitionKey='q',RowKey='one')?$select=N")
	body := string(r.Body)
	if !strings.Contains(body, "HTTP/1.1 200 OK") || !strings.Contains(body, `"N":7`) || strings.Contains(body, `"S":`) ||
		!strings.Contains(body, "ETag: W/") || strings.Contains(body, "changesetresponse") {
		t.Fatalf("found: %s", body)
	}
	if r.Header.Get("X-Tablelab-Plan") != "point" {
		t.Errorf("plan %q", r.Header.Get("X-Tablelab-Plan"))
	}
	if body := string(query("people(PartitionKey='q',RowKey='two')").Body); !strings.Contains(body, "HTTP/1.1 404") ||
		!strings.Contains(body, `{"odata.error":{"code":"ResourceNotFound","message":{"lang":"en-US","value":"0:The specified resource does not exist.\nRequestId:`) {
		t.Fatalf("missing: %s", body)
	}
	if body := string(query("people()").Body); !strings.Contains(body, "HTTP/1.1 400") || !strings.Contains(body, `"code":"InvalidInput"`) ||
		!strings.Contains(body, `"value":"0:A query in a batch`) {
		t.Fatalf("a table query: %s", body)
	}
}

// TestUnsupportedAnswersHonestly covers what tablelab does not build: it
// answers in the service's format instead of pretending.
func TestUnsupportedAnswersHonestly(t *testing.T) {
	c := newClient(t)
	c.wantError(c.do("GET", "/nosuch?comp=acl", ""), 404, "TableNotFound")
	// A host that keeps no settings (the browser's) answers the defaults
	// and refuses changes; package settings keeps them on the server.
	if r := c.want(c.do("GET", "/?restype=service&comp=properties", ""), 200); !strings.Contains(string(r.Body), "<Cors />") {
		t.Errorf("default properties: %s", r.Body)
	}
	c.wantError(c.do("PUT", "/?restype=service&comp=properties", "<StorageServiceProperties/>"), 501, "NotImplemented")
	if r := c.want(c.do("GET", "/people?comp=acl", ""), 200); !strings.Contains(string(r.Body), "<SignedIdentifiers />") {
		t.Errorf("default ACL: %s", r.Body)
	}
	c.wantError(c.do("PUT", "/people?comp=acl", "<SignedIdentifiers/>"), 501, "NotImplemented")
	c.wantError(c.do("POST", "/Tables", `{"TableName":"$MetricsTable"}`), 400, "InvalidResourceName")
}
