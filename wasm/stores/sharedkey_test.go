package stores

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/api/auth"
)

// http1123 is the form of a signed request's date.
const http1123 = "Mon, 02 Jan 2006 15:04:05 GMT"

// TestSharedKeyRefused checks that the browser's services, which take
// SAS only, answer a request signed with the account key in each
// service's own error format: 403 AuthenticationFailed, saying so.
func TestSharedKeyRefused(t *testing.T) {
	now := clock()
	s := New(Options{Now: now})
	for _, c := range []struct {
		host, path, code string
	}{
		{"127.0.0.1:10002", "/devstoreaccount1/Tables", `"code":"AuthenticationFailed"`},
		{queueHost, "/devstoreaccount1", "<Code>AuthenticationFailed</Code>"},
		{blobHost, "/devstoreaccount1", "<Code>AuthenticationFailed</Code>"},
	} {
		date := now().Format(http1123)
		authz := auth.SignSharedKeyLite(auth.DevAccountName, auth.DevAccount().Keys[0], date, c.path, "")
		out := s.Serve("a", "GET "+c.path+"?comp=list HTTP/1.1\r\nHost: "+c.host+"\r\nx-ms-version: 2021-12-02\r\nx-ms-date: "+date+
			"\r\nAuthorization: "+authz+"\r\nAccept: application/json;odata=nometadata\r\n\r\n")
		if !strings.HasPrefix(out, "HTTP/1.1 403 ") || !strings.Contains(out, c.code) || !strings.Contains(out, "shared access signatures (SAS) only") {
			t.Errorf("%s: a SharedKeyLite request answered %q", c.host, out)
		}
	}
	// The same requests with the page's SAS are served.
	want(t, send(t, s, "a", "GET", "Tables", "127.0.0.1:10002", nil), "200")
	want(t, send(t, s, "a", "GET", "?comp=list", queueHost, nil), "200")
	want(t, send(t, s, "a", "GET", "?comp=list", blobHost, nil), "200")
}
