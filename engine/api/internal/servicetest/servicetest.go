// Package servicetest holds checks that each of the three protocol cores
// (Table, Queue and Blob) must pass, run against its api.Service.
package servicetest

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/api"
)

// Account is the account the checks address.
const Account = "/devstoreaccount1"

// Code is the error code of r: its x-ms-error-code header (Blob, Queue),
// or the code in its body (Table, whose errors carry no such header).
func Code(r *api.Response) string {
	if c := r.Header.Get("x-ms-error-code"); c != "" {
		return c
	}
	body := string(r.Body)
	for _, open := range []string{`"code":"`, "<Code>"} {
		if _, rest, ok := strings.Cut(body, open); ok {
			end := strings.IndexAny(rest, `"<`)
			if end >= 0 {
				return rest[:end]
			}
		}
	}
	return ""
}

// Preflights checks the CORS preflights s answers at target, a path
// under Account, when no CORS rule allows the origin: one missing
// Origin or Access-Control-Request-Method is 400 InvalidHeaderValue,
// "A required CORS header is not present.", as Azure and Azurite answer
// it; a whole one is 403 CorsPreflightFailure. host is the service's
// address, which names it.
func Preflights(t *testing.T, s api.Service, host, target string) {
	t.Helper()
	for _, c := range []struct {
		headers []string
		status  int
		code    string
	}{
		{[]string{"Access-Control-Request-Method", "PUT"}, 400, "InvalidHeaderValue"},
		{[]string{"Origin", "http://app.test"}, 400, "InvalidHeaderValue"},
		{[]string{"Origin", "http://app.test", "Access-Control-Request-Method", "PUT"}, 403, "CorsPreflightFailure"},
	} {
		req := &api.Request{Method: "OPTIONS", Target: Account + target, Host: host, Scheme: "http"}
		for i := 0; i+1 < len(c.headers); i += 2 {
			req.Header.Set(c.headers[i], c.headers[i+1])
		}
		r := s.Serve(req)
		if r.Status != c.status || Code(r) != c.code {
			t.Errorf("preflight with %q: %d %s, want %d %s", c.headers, r.Status, r.Body, c.status, c.code)
		}
		if c.status == 400 && !strings.Contains(string(r.Body), "A required CORS header is not present.") {
			t.Errorf("preflight with %q: %s", c.headers, r.Body)
		}
	}
}

// AsToken is a request to s with an OAuth bearer token, over HTTPS (s's
// verifier decides whether it holds).
func AsToken(s api.Service, host, method, target, body string) *api.Response {
	req := &api.Request{Method: method, Target: Account + target, Host: host, Scheme: "https", Body: []byte(body)}
	req.Header.Set("Authorization", "Bearer token")
	return s.Serve(req)
}

// TokensRefusedPolicies checks that a bearer token, which s accepts, may
// neither read nor set the stored access policies at target (a
// ?comp=acl path under Account): 404 ResourceNotFound, as Azure answers
// it, since its data roles grant no action on policies, which mint SAS
// tokens.
func TokensRefusedPolicies(t *testing.T, s api.Service, host, target string) {
	t.Helper()
	for _, method := range []string{"GET", "PUT"} {
		if r := AsToken(s, host, method, target, "<SignedIdentifiers />"); r.Status != 404 || Code(r) != "ResourceNotFound" {
			t.Errorf("a token, %s %s: %d %s, want 404 ResourceNotFound", method, target, r.Status, r.Body)
		}
	}
}
