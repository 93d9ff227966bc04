// Package apitest holds what the tests of the layers over an api.Service
// (scanguard, throttle, faults) send: requests as a client of the
// development account makes them, to a server that takes them unsigned.
package apitest

import (
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
)

// Anonymous returns a verifier of the development account that accepts
// requests without credentials too.
func Anonymous() *auth.Verifier {
	return &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, AllowAnonymous: true}
}

// Do sends s a request for target, a path under the development
// account's, with body and headers given as name, value pairs; it asks
// for JSON without metadata, as a Table client may.
func Do(s api.Service, method, target, body string, headers ...string) *api.Response {
	r := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10002", Scheme: "http", Body: []byte(body)}
	r.Header.Set("Accept", "application/json;odata=nometadata")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return s.Serve(r)
}
