package api

import (
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// This file holds what the Table, Queue and Blob protocols share: how a
// request names its account, the headers every answer carries, and the
// guard that keeps a bug from taking down the host.

// Address splits r's target into the account it names and the rest of
// its path, after the account and without a leading slash or the query.
// An IP address, localhost or another single-label host names the
// account in the first path segment (the emulator's addressing); any
// other host in its first label (the service's). base is the URL the
// account's resources hang off, such as
// http://127.0.0.1:10002/devstoreaccount1. A target without an account
// fails with InvalidURI.
func Address(r *Request) (account, rest, base string, err error) {
	account, rest, pathStyle := split(r)
	if account == "" {
		return "", "", "", svcerr.New(svcerr.InvalidURI)
	}
	scheme := r.Scheme
	if scheme == "" {
		scheme = "http"
	}
	if pathStyle {
		base = scheme + "://" + r.Host + "/" + account
	} else {
		base = scheme + "://" + r.Host
	}
	return account, rest, base, nil
}

// Account returns the account r's target names, as Address reads it, or
// "" when it names none. It builds no URL, so a host choosing among its
// accounts' cores pays nothing for it.
func Account(r *Request) string {
	account, _, _ := split(r)
	return account
}

// split is Address's reading of r: the account, the rest of the path,
// and whether the account came from the path.
func split(r *Request) (account, rest string, pathStyle bool) {
	rawPath, _, _ := strings.Cut(r.Target, "?")
	rest = strings.TrimPrefix(rawPath, "/")
	if pathStyleHost(r.Host) {
		account, rest, _ = strings.Cut(rest, "/")
		return account, rest, true
	}
	account, _, _ = strings.Cut(r.Host, ".")
	return account, rest, false
}

// AuthRequest is what auth.Verifier reads of r, addressed to account of
// service and verified at now. The caller adds what its route names: the
// container, queue or blob.
func AuthRequest(r *Request, service auth.Service, account string, now time.Time) auth.Request {
	rawPath, rawQuery, _ := strings.Cut(r.Target, "?")
	return auth.Request{
		Service:  service,
		Method:   r.Method,
		RawPath:  rawPath,
		Query:    rawQuery,
		Header:   r.Header.Get,
		Headers:  r.Header.Each,
		Account:  account,
		Scheme:   r.Scheme,
		RemoteIP: r.RemoteIP,
		Now:      now,
	}
}

// SetCommonHeaders sets the headers every answer to req carries: the
// request id, the protocol version (req's, or defaultVersion when it
// names none), the date, and the client's request id echoed.
func SetCommonHeaders(h *Header, req *Request, id, defaultVersion, date string) {
	h.Set("x-ms-request-id", id)
	v := req.Header.Get("x-ms-version")
	if v == "" {
		v = defaultVersion
	}
	h.Set("x-ms-version", v)
	h.Set("Date", date)
	if cid := req.Header.Get("x-ms-client-request-id"); cid != "" {
		h.Set("x-ms-client-request-id", cid)
	}
}

// AddressQuery is Address with the request's query read as the service
// reads it (auth.ParseQuery): what the Queue and Blob routes start from.
func AddressQuery(r *Request) (account, rest, base string, query urltext.Values, err error) {
	_, rawQuery, _ := strings.Cut(r.Target, "?")
	if query, err = auth.ParseQuery(rawQuery); err != nil {
		return "", "", "", nil, svcerr.With(svcerr.InvalidQueryParameterValue, "The query string could not be parsed.")
	}
	account, rest, base, err = Address(r)
	return account, rest, base, query, err
}

// Guard runs serve and returns resp, or fail's answer to the error serve
// returns. A panic in serve becomes fail's answer to InternalError: a bug
// must cost one request, not the host, since the browser and the Worker
// lose all in-memory state when the runtime dies.
func Guard(resp *Response, serve func() error, fail func(error) *Response) (out *Response) {
	defer func() {
		if p := recover(); p != nil {
			out = fail(svcerr.New(svcerr.InternalError))
		}
	}()
	if err := serve(); err != nil {
		return fail(err)
	}
	return resp
}
