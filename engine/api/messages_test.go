package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode"
)

// TestMessagesReadAsSentences sends a set of bad requests and checks that
// each error message reads as a sentence: it starts with a capital and
// ends with one period, and no part of it that was a sentence of its own
// leaves a stray period behind (". at", "..", ". (").
func TestMessagesReadAsSentences(t *testing.T) {
	c := newClient(t)
	filter := func(f string) string { return "/people()?$filter=" + url.QueryEscape(f) }
	batchOf := func(body string) string {
		return batchRaw("POST http://127.0.0.1:10002/devstoreaccount1/people HTTP/1.1\r\nContent-Type: application/json\r\n\r\n" + body)
	}
	type req struct{ method, target, body string }
	reqs := []req{
		{"GET", filter("Price eq 1.5x"), ""},
		{"GET", filter("Price eq 12e"), ""},
		{"GET", filter("When eq datetime'yesterday'"), ""},
		{"GET", filter("Id eq guid'not-a-guid'"), ""},
		{"GET", filter("Bin eq X'0g'"), ""},
		{"GET", filter("Name eq 'open"), ""},
		{"GET", filter("Name eq #"), ""},
		{"GET", filter("(Name eq 'a'"), ""},
		{"GET", filter("Name AND Age"), ""},
		{"GET", filter("Name eq"), ""},
		{"GET", filter("Name eq Age"), ""},
		{"GET", filter("'a'"), ""},
		{"GET", filter(strings.Repeat("(", 200) + "A eq 1" + strings.Repeat(")", 200)), ""},
		{"GET", "/people()?$top=1001", ""},
		{"GET", "/people()?NextPartitionKey=1!%25%25", ""},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int32","N":"abc"}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Double","N":"1.5x"}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","W@odata.type":"Edm.DateTime","W":"soon"}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Nothing","N":"1"}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","N":{"nested":1}}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r",`},
		{"POST", "/people", `{"PartitionKey":"p" "RowKey":"r"}`},
		{"POST", "/people", `{"PartitionKey":"p","RowKey":"r","S":"\q"}`},
		{"POST", "/people", `[1]`},
		{"POST", "/people", ``},
		{"PUT", "/people(PartitionKey='p',RowKey='r')", `{"A":1e}`},
		{"POST", "/$batch", batchOf(`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"x"}`)},
		{"POST", "/$batch", batchOf(`{"PartitionKey":"p",`)},
		{"POST", "/$batch", batchRaw("POST\r\n\r\n")},
		{"POST", "/$batch", batchRaw("GET /devstoreaccount1/people() HTTP/1.1\r\n\r\n")},
	}
	for _, r := range reqs {
		headers := []string{}
		if r.target == "/$batch" {
			headers = append(headers, "Content-Type", "multipart/mixed; boundary=b")
		}
		resp := c.do(r.method, r.target, r.body, headers...)
		body := string(resp.Body)
		if r.target == "/$batch" {
			// The failing operation's part carries the error: its body
			// is the JSON after the part's headers.
			if i := strings.Index(body, "{"); i >= 0 {
				body = body[i : strings.LastIndex(body, "}")+1]
			}
		}
		var e struct {
			Err struct {
				Code    string
				Message struct{ Value string }
			} `json:"odata.error"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || e.Err.Code == "" {
			t.Errorf("%s %s: no error in %d %s", r.method, r.target, resp.Status, resp.Body)
			continue
		}
		msg, _, _ := strings.Cut(e.Err.Message.Value, "\nRequestId:")
		if testing.Verbose() {
			t.Logf("%s %s: %s", r.method, r.target, msg)
		}
		if i := strings.IndexByte(msg, ':'); r.target == "/$batch" && i >= 0 && strings.Trim(msg[:i], "0123456789") == "" {
			msg = msg[i+1:] // the batch's "index:" prefix
		}
		first, _ := utf8First(msg)
		switch {
		case strings.Contains(msg, ". at"), strings.Contains(msg, ".."), strings.Contains(msg, ". ("), strings.Contains(msg, ".:"):
			t.Errorf("%s %s: a stray period in %q", r.method, r.target, msg)
		case !strings.HasSuffix(msg, ".") || !unicode.IsUpper(first):
			t.Errorf("%s %s: %q is not a sentence", r.method, r.target, msg)
		}
	}
}

// batchRaw is a $batch body of one change set holding one operation.
func batchRaw(op string) string {
	return "--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n" +
		"--cs\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		op + "\r\n--cs--\r\n--b--\r\n"
}

func utf8First(s string) (rune, int) {
	for i, r := range s {
		return r, i
	}
	return 0, 0
}
