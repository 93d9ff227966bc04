package queueapi

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/internal/servicetest"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/queue"
)

// wireServer is a server with anonymous access, a clock that stands
// still until moved, and ids counting up, so that whole responses are
// reproducible.
type wireServer struct {
	srv *Server
	now time.Time
}

func newWireServer(t testing.TB) *wireServer {
	w := &wireServer{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	st := engine.New(engine.Options{OpenKeys: true, Now: func() time.Time { return w.now }})
	svc, err := queue.New(st)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	w.srv = NewServer(svc, Options{
		Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, AllowAnonymous: true},
		NewID:    func() string { n++; return "id" + strconv.Itoa(n) },
	})
	return w
}

func (w *wireServer) do(method, target, body string, headers ...string) *api.Response {
	req := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10001", Body: []byte(body)}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return w.srv.Serve(req)
}

func wantResp(t *testing.T, r *api.Response, status int, body string) {
	t.Helper()
	if r.Status != status || string(r.Body) != body {
		t.Fatalf("got %d\n%s\nwant %d\n%s", r.Status, r.Body, status, body)
	}
}

const decl = `<?xml version="1.0" encoding="utf-8"?>`

func TestWireMessages(t *testing.T) {
	w := newWireServer(t)
	r := w.do("PUT", "/q1-x", "", "x-ms-meta-Owner", "ana")
	wantResp(t, r, 201, "")
	if r.Header.Get("x-ms-request-id") != "id1" || r.Header.Get("Date") != "Sun, 01 Mar 2026 12:00:00 GMT" || r.Header.Get("x-ms-version") != DefaultVersion {
		t.Fatalf("headers: %+v", r.Header)
	}
	wantResp(t, w.do("PUT", "/q1-x", "", "x-ms-meta-owner", "ana"), 204, "")

	// Put: the message id and pop receipt follow the request id.
	r = w.do("POST", "/q1-x/messages?messagettl=60", "<QueueMessage><MessageText>a &amp; b &lt;c&gt;</MessageText></QueueMessage>")
	wantResp(t, r, 201, decl+"<QueueMessagesList><QueueMessage><MessageId>id4</MessageId>"+
		"<InsertionTime>Sun, 01 Mar 2026 12:00:00 GMT</InsertionTime><ExpirationTime>Sun, 01 Mar 2026 12:01:00 GMT</ExpirationTime>"+
		"<PopReceipt>id5</PopReceipt><TimeNextVisible>Sun, 01 Mar 2026 12:00:00 GMT</TimeNextVisible></QueueMessage></QueueMessagesList>")
	if r.Header.Get("Content-Type") != "application/xml" {
		t.Fatalf("content type %q", r.Header.Get("Content-Type"))
	}
	r = w.do("GET", "/q1-x/messages?peekonly=true", "")
	wantResp(t, r, 200, decl+"<QueueMessagesList><QueueMessage><MessageId>id4</MessageId>"+
		"<InsertionTime>Sun, 01 Mar 2026 12:00:00 GMT</InsertionTime><ExpirationTime>Sun, 01 Mar 2026 12:01:00 GMT</ExpirationTime>"+
		"<DequeueCount>0</DequeueCount><MessageText>a &amp; b &lt;c&gt;</MessageText></QueueMessage></QueueMessagesList>")
	r = w.do("GET", "/q1-x/messages?visibilitytimeout=10", "")
	wantResp(t, r, 200, decl+"<QueueMessagesList><QueueMessage><MessageId>id4</MessageId>"+
		"<InsertionTime>Sun, 01 Mar 2026 12:00:00 GMT</InsertionTime><ExpirationTime>Sun, 01 Mar 2026 12:01:00 GMT</ExpirationTime>"+
		"<PopReceipt>id8</PopReceipt><TimeNextVisible>Sun, 01 Mar 2026 12:00:10 GMT</TimeNextVisible>"+
		"<DequeueCount>1</DequeueCount><MessageText>a &amp; b &lt;c&gt;</MessageText></QueueMessage></QueueMessagesList>")
	wantResp(t, w.do("GET", "/q1-x/messages", ""), 200, decl+"<QueueMessagesList />")

	// Update without a body keeps the text; the headers carry the new state.
	r = w.do("PUT", "/q1-x/messages/id4?popreceipt=id8&visibilitytimeout=0", "")
	wantResp(t, r, 204, "")
	if r.Header.Get("x-ms-popreceipt") != "id11" || r.Header.Get("x-ms-time-next-visible") != "Sun, 01 Mar 2026 12:00:00 GMT" {
		t.Fatalf("update headers: %+v", r.Header)
	}
	r = w.do("GET", "/q1-x?comp=metadata", "")
	if r.Status != 200 || r.Header.Get("x-ms-approximate-messages-count") != "1" || r.Header.Get("x-ms-meta-Owner") != "ana" {
		t.Fatalf("metadata: %d %+v", r.Status, r.Header)
	}
	if r := w.do("DELETE", "/q1-x/messages/id4?popreceipt=id8", ""); r.Status != 404 || r.Header.Get("x-ms-error-code") != "MessageNotFound" {
		t.Fatalf("stale receipt: %d %s", r.Status, r.Body)
	}
	wantResp(t, w.do("DELETE", "/q1-x/messages/id4?popreceipt=id11", ""), 204, "")
}

func TestWireErrors(t *testing.T) {
	w := newWireServer(t)
	w.do("PUT", "/que", "")
	for _, c := range []struct {
		method, target, body string
		status               int
		code                 string
		details              string
	}{
		{"GET", "/que/messages?numofmessages=0", "", 400, "OutOfRangeQueryParameterValue",
			"<QueryParameterName>numofmessages</QueryParameterName><QueryParameterValue>0</QueryParameterValue><MinimumAllowed>1</MinimumAllowed><MaximumAllowed>32</MaximumAllowed>"},
		{"GET", "/que/messages?numofmessages=x", "", 400, "InvalidQueryParameterValue",
			"<QueryParameterName>numofmessages</QueryParameterName><QueryParameterValue>x</QueryParameterValue>"},
		{"GET", "/que/messages?visibilitytimeout=604801", "", 400, "OutOfRangeQueryParameterValue", ""},
		{"POST", "/que/messages", "<QueueMessage><MessageText>x</MessageText>", 400, "InvalidXmlDocument", ""},
		{"POST", "/que/messages", "<Other/>", 400, "InvalidXmlDocument", ""},
		{"POST", "/que/messages", "<QueueMessage/>", 400, "MissingRequiredXmlNode", ""},
		{"POST", "/que/messages", "", 400, "InvalidXmlDocument", ""},
		{"POST", "/que/messages", "<QueueMessage><MessageText>" + strings.Repeat("x", 64<<10+1) + "</MessageText></QueueMessage>", 413, "RequestBodyTooLarge", ""},
		{"POST", "/que/messages?messagettl=-2", "<QueueMessage><MessageText>x</MessageText></QueueMessage>", 400, "OutOfRangeQueryParameterValue", ""},
		{"POST", "/nope/messages", "<QueueMessage><MessageText>x</MessageText></QueueMessage>", 404, "QueueNotFound", ""},
		{"DELETE", "/que/messages/abc", "", 400, "MissingRequiredQueryParameter", "<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue></QueryParameterValue>"},
		{"DELETE", "/que/messages/abc?popreceipt=r", "", 404, "MessageNotFound", ""},
		// A malformed receipt, as Azure answers it (MicrosoftDocs/feedback#2842),
		// before the queue or message is looked for; never PopReceiptMismatch.
		{"DELETE", "/que/messages/abc?popreceipt=", "", 400, "InvalidQueryParameterValue",
			"<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue></QueryParameterValue><Reason>Invalid pop receipt format</Reason>"},
		{"DELETE", "/que/messages/abc?popreceipt=AgAAAAMAAAAAAAAAYUMWAIg+1gE=", "", 400, "InvalidQueryParameterValue", // "+" read as a space
			"<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue>AgAAAAMAAAAAAAAAYUMWAIg 1gE=</QueryParameterValue><Reason>Invalid pop receipt format</Reason>"},
		{"DELETE", "/nope/messages/abc?popreceipt=a%20b", "", 400, "InvalidQueryParameterValue",
			"<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue>a b</QueryParameterValue><Reason>Invalid pop receipt format</Reason>"},
		{"PUT", "/que/messages/abc?popreceipt=a%3C%21&visibilitytimeout=0", "", 400, "InvalidQueryParameterValue",
			"<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue>a&lt;!</QueryParameterValue><Reason>Invalid pop receipt format</Reason>"},
		{"PUT", "/que/messages/abc?popreceipt=a%21", "", 400, "InvalidQueryParameterValue",
			"<QueryParameterName>popreceipt</QueryParameterName><QueryParameterValue>a!</QueryParameterValue><Reason>Invalid pop receipt format</Reason>"},
		{"PUT", "/que/messages/abc?popreceipt=r", "", 400, "MissingRequiredQueryParameter", ""},
		{"PUT", "/Que", "", 400, "InvalidResourceName", ""},
		{"PUT", "/qu", "", 400, "OutOfRangeInput", ""},
		{"PUT", "/que2", "", 400, "EmptyMetadataKey", ""}, // header below
		{"GET", "/que", "", 405, "UnsupportedHttpVerb", ""},
		{"HEAD", "/que/messages", "", 405, "UnsupportedHttpVerb", ""},
		{"GET", "/que?comp=acl", "", 501, "NotImplemented", ""},
		{"GET", "/?restype=service&comp=properties", "", 501, "NotImplemented", ""},
		{"GET", "/?comp=list&maxresults=0", "", 400, "OutOfRangeQueryParameterValue", ""},
		{"GET", "/?comp=list&include=acl", "", 400, "InvalidQueryParameterValue", ""},
		{"GET", "/que/messages/a/b", "", 400, "InvalidUri", ""},
		{"GET", "/", "", 400, "InvalidQueryParameterValue", ""},
	} {
		var r *api.Response
		if c.code == "EmptyMetadataKey" {
			r = w.do(c.method, c.target, c.body, "x-ms-meta-", "v")
		} else {
			r = w.do(c.method, c.target, c.body)
		}
		if r.Status != c.status || r.Header.Get("x-ms-error-code") != c.code {
			t.Errorf("%s %s: %d %s, want %d %s\n%s", c.method, c.target, r.Status, r.Header.Get("x-ms-error-code"), c.status, c.code, r.Body)
			continue
		}
		if c.method == "HEAD" {
			if len(r.Body) != 0 {
				t.Errorf("HEAD %s: a body", c.target)
			}
			continue
		}
		root, err := xmlwire.Parse(r.Body)
		if err != nil || root.Name != "Error" || root.Child("Code").Text != c.code || !strings.Contains(root.Child("Message").Text, "\nRequestId:") {
			t.Errorf("%s %s: error body %s (%v)", c.method, c.target, r.Body, err)
		}
		if c.details != "" && !strings.Contains(string(r.Body), "</Message>"+c.details+"</Error>") {
			t.Errorf("%s %s: details missing in %s", c.method, c.target, r.Body)
		}
	}
	// A HEAD error has no body.
	if r := w.do("HEAD", "/nope?comp=metadata", ""); r.Status != 404 || len(r.Body) != 0 || r.Header.Get("x-ms-error-code") != "QueueNotFound" {
		t.Fatalf("HEAD error: %d %q", r.Status, r.Body)
	}
}

func TestWireList(t *testing.T) {
	w := newWireServer(t)
	w.do("PUT", "/alpha", "", "x-ms-meta-k", "v<&>")
	w.do("PUT", "/beta", "")
	w.do("PUT", "/gamma", "")
	wantResp(t, w.do("GET", "/?comp=list&maxresults=2&include=metadata", ""), 200, decl+
		`<EnumerationResults ServiceEndpoint="http://127.0.0.1:10001/devstoreaccount1/"><MaxResults>2</MaxResults>`+
		`<Queues><Queue><Name>alpha</Name><Metadata><k>v&lt;&amp;&gt;</k></Metadata></Queue><Queue><Name>beta</Name><Metadata></Metadata></Queue></Queues>`+
		`<NextMarker>/devstoreaccount1/gamma</NextMarker></EnumerationResults>`)
	wantResp(t, w.do("GET", "/?comp=list&marker=/devstoreaccount1/gamma&prefix=", ""), 200, decl+
		`<EnumerationResults ServiceEndpoint="http://127.0.0.1:10001/devstoreaccount1/"><Prefix></Prefix><Marker>/devstoreaccount1/gamma</Marker>`+
		`<Queues><Queue><Name>gamma</Name></Queue></Queues><NextMarker /></EnumerationResults>`)
	wantResp(t, w.do("GET", "/?comp=list&prefix=zz", ""), 200, decl+
		`<EnumerationResults ServiceEndpoint="http://127.0.0.1:10001/devstoreaccount1/"><Prefix>zz</Prefix><Queues /><NextMarker /></EnumerationResults>`)
}

// Visibility and expiry follow the store's clock, not the wall's.
func TestWireClock(t *testing.T) {
	w := newWireServer(t)
	w.do("PUT", "/clock", "")
	w.do("POST", "/clock/messages?messagettl=100", "<QueueMessage><MessageText>tick</MessageText></QueueMessage>")
	if r := w.do("GET", "/clock/messages", ""); !strings.Contains(string(r.Body), "<DequeueCount>1</DequeueCount>") {
		t.Fatalf("first get: %s", r.Body)
	}
	w.now = w.now.Add(30 * time.Second)
	if r := w.do("GET", "/clock/messages", ""); !strings.Contains(string(r.Body), "<DequeueCount>2</DequeueCount>") {
		t.Fatalf("after 30 s: %s", r.Body)
	}
	w.now = w.now.Add(100 * time.Second)
	wantResp(t, w.do("GET", "/clock/messages?peekonly=true", ""), 200, decl+"<QueueMessagesList />")
}

// TestAccessPoliciesRefuseTokens checks that a queue's stored access
// policies are the account owner's: a bearer token reaches the messages,
// not the policies.
func TestAccessPoliciesRefuseTokens(t *testing.T) {
	svc, err := queue.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(svc, Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()},
		Bearer: func(string, auth.Request) error { return nil }}})
	if r := servicetest.AsToken(s, queueHost, "PUT", "/que", ""); r.Status != 201 {
		t.Fatalf("a token creating a queue: %d %s", r.Status, r.Body)
	}
	servicetest.TokensRefusedPolicies(t, s, queueHost, "/que?comp=acl")
}

// TestPreflight checks the CORS preflights the Queue service answers
// before any authentication; tablelab keeps no CORS rules for it.
func TestPreflight(t *testing.T) {
	svc, err := queue.New(engine.New(engine.Options{OpenKeys: true}))
	if err != nil {
		t.Fatal(err)
	}
	servicetest.Preflights(t, NewServer(svc, Options{}), queueHost, "/que/messages")
}

const queueHost = "127.0.0.1:10001"
