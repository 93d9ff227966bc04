package queueapi

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// FuzzServe sends any method, target, body and metadata header to a
// server holding a queue with a message. No request may panic (Serve
// recovers, and would answer 500), every failure must be the service's
// XML error with its code in x-ms-error-code, and a failed request must
// leave the queue as it was.
func FuzzServe(f *testing.F) {
	for _, s := range [][4]string{
		{"GET", "/fuzz/messages?numofmessages=32&visibilitytimeout=1", "", ""},
		{"GET", "/fuzz/messages?peekonly=true&numofmessages=2", "", ""},
		{"POST", "/fuzz/messages?visibilitytimeout=5&messagettl=-1", "<QueueMessage><MessageText>hi</MessageText></QueueMessage>", ""},
		{"POST", "/fuzz/messages", "<?xml version=\"1.0\"?><QueueMessage><MessageText><![CDATA[<x>]]>&#x263a;</MessageText></QueueMessage>", ""},
		{"PUT", "/fuzz/messages/m1?popreceipt=r1&visibilitytimeout=0", "<QueueMessage><MessageText>new</MessageText></QueueMessage>", ""},
		{"DELETE", "/fuzz/messages/m1?popreceipt=r1", "", ""},
		{"DELETE", "/fuzz/messages", "", ""},
		{"PUT", "/fuzz?comp=metadata", "", "Color"},
		{"HEAD", "/fuzz?comp=metadata", "", ""},
		{"PUT", "/other-q", "", "_k"},
		{"DELETE", "/fuzz", "", ""},
		{"GET", "/?comp=list&prefix=f&maxresults=1&include=metadata&marker=/devstoreaccount1/a", "", ""},
		{"GET", "/?restype=service&comp=stats", "", ""},
		{"PATCH", "/fuzz/messages/%zz", "", ""},
		{"POST", "/fuzz/messages", "<QueueMessage><MessageText>&bogus;</MessageText></QueueMessage>", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, method, target, body, meta string) {
		w := newWireServer(t)
		w.do("PUT", "/fuzz", "")
		w.do("POST", "/fuzz/messages", "<QueueMessage><MessageText>keep</MessageText></QueueMessage>")
		before := w.do("GET", "/fuzz/messages?peekonly=true&numofmessages=32", "")
		var r = w.do(method, "/"+strings.TrimPrefix(target, "/"), body, "x-ms-meta-"+meta, "v")
		if r.Status == 500 {
			t.Fatalf("%s %s: internal error\n%s", method, target, r.Body)
		}
		if r.Status < 400 {
			return
		}
		code := r.Header.Get("x-ms-error-code")
		if code == "" || svcerr.Code(code).Status() != r.Status {
			t.Fatalf("%s %s: status %d with code %q", method, target, r.Status, code)
		}
		if method != "HEAD" {
			root, err := xmlwire.Parse(r.Body)
			if err != nil || root.Child("Code") == nil || root.Child("Code").Text != code {
				t.Fatalf("%s %s: error body %q (%v)", method, target, r.Body, err)
			}
		}
		after := w.do("GET", "/fuzz/messages?peekonly=true&numofmessages=32", "")
		if string(after.Body) != string(before.Body) && after.Status == 200 {
			t.Fatalf("%s %s failed (%s) but changed the queue:\n%s\n%s", method, target, code, before.Body, after.Body)
		}
	})
}

// FuzzMessageText reads any body as a <QueueMessage>: an error is the
// service's, a text read is UTF-8, and a text written back out in a
// QueueMessage reads back the same.
func FuzzMessageText(f *testing.F) {
	for _, s := range []string{
		"<QueueMessage><MessageText>hello</MessageText></QueueMessage>",
		"<QueueMessage><MessageText/></QueueMessage>",
		"<QueueMessage><MessageText>a\r\nb &amp; &#13; &#x1F600;</MessageText></QueueMessage>",
		"<QueueMessage><MessageText><b>x</b></MessageText></QueueMessage>",
		"<QueueMessage></QueueMessage>",
		"<?xml version=\"1.0\" encoding=\"utf-8\"?><!-- c --><QueueMessage><MessageText><![CDATA[]]>]]></MessageText></QueueMessage>",
		"<QueueMessage><MessageText>x</MessageText><MessageText>y</MessageText></QueueMessage>",
		"<!DOCTYPE x><QueueMessage/>",
		"",
	} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, body string, required bool) {
		text, err := messageText([]byte(body), required)
		if err != nil {
			if _, ok := err.(*svcerr.Error); !ok {
				t.Fatalf("%q: error %T %v", body, err, err)
			}
			return
		}
		if text == nil {
			if required {
				t.Fatalf("%q: no text, no error", body)
			}
			return
		}
		if !utf8.ValidString(*text) {
			t.Fatalf("%q: text not UTF-8", body)
		}
		again := "<QueueMessage>" + string(xmlwire.AppendElement(nil, "MessageText", *text)) + "</QueueMessage>"
		back, err := messageText([]byte(again), true)
		if err != nil || *back != *text {
			t.Fatalf("%q: round trip of %q gave %v, %v", body, *text, back, err)
		}
	})
}
