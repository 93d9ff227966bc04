package auth

import (
	"encoding/base64"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/internal/digest"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Service is the storage service a request is addressed to. Each signs
// its requests and names its resources in its own way.
type Service uint8

// The storage services. The zero value is the Table service, so a
// Request written before Blob and Queue existed keeps its meaning.
const (
	Table Service = iota
	Blob
	Queue
)

// Request is what authentication reads of a request.
type Request struct {
	// Service is the service the request is addressed to.
	Service Service
	Method  string
	// RawPath is the path exactly as sent, percent-escapes intact; in the
	// emulator's path-style addressing it starts with /account.
	RawPath string
	// Query is the raw query string.
	Query string
	// Header looks a header up, ignoring case.
	Header func(name string) string
	// Headers calls fn for every header of the request. The Blob and
	// Queue services need it: their Shared Key signatures cover every
	// x-ms-* header, whatever its name. (api.Header's Each fits.)
	Headers func(fn func(name, value string))
	// Container and Blob name the resource a Blob request addresses,
	// decoded from its path (Blob is empty for a container, both for the
	// account); for a Queue request Container is the queue's name. A
	// service SAS signs the name of the resource it grants, which the
	// token itself does not carry, so the check needs them.
	Container, Blob string
	// Account is the account the request addresses.
	Account string
	// Scheme is "http" or "https".
	Scheme string
	// RemoteIP is the client's address.
	RemoteIP string
	// Now is the time the request is judged at (clock skew, SAS start and
	// expiry): the host's clock, read once for the request, so that one
	// clock serves the whole request. The zero time means time.Now.
	Now time.Time
}

// MaxClockSkew is how far a signed request's date may be from the
// server's clock, as the service allows.
const MaxClockSkew = 15 * time.Minute

// Verifier authenticates requests.
type Verifier struct {
	Accounts []Account
	// AllowAnonymous grants requests without credentials full access.
	AllowAnonymous bool
	// Bearer, when set, checks an OAuth bearer token (the Authorization
	// header's "Bearer <token>"), returning nil to grant the request
	// full access. Nil refuses the scheme. The check lives with the host
	// so that a build without OAuth (the browser's) does not carry it.
	Bearer func(token string, r Request) error
	// Policies, when set, finds the stored access policy id of a table of
	// account, for a table SAS naming it with si; nil knows none.
	Policies func(account, table, id string) (Policy, bool)
	// SharedKey, when set, checks a request signed with an account key
	// (the Authorization schemes SharedKey and SharedKeyLite), authz being
	// the header's value, returning nil to grant the request full access;
	// VerifySharedKey is the service's check. Nil refuses both schemes.
	// The check lives with the host so that a build whose clients sign
	// with SAS only (the browser's) carries none of the canonicalisation
	// it needs.
	SharedKey func(r Request, authz string, accounts []Account) error

	// sas remembers SAS tokens already verified, so that a token used for
	// many requests is read and pays for its HMAC once.
	sas sigCache
}

// now is the time r is judged at.
func (r *Request) now() time.Time {
	if r.Now.IsZero() {
		return time.Now()
	}
	return r.Now
}

func (v *Verifier) account(name string) *Account {
	for i := range v.Accounts {
		if v.Accounts[i].Name == name {
			return &v.Accounts[i]
		}
	}
	return nil
}

// failed is AuthenticationFailed with the service's message followed by
// detail, a sentence of its own.
func failed(detail string) error {
	if detail == "" {
		return svcerr.New(svcerr.AuthenticationFailed)
	}
	return svcerr.With(svcerr.AuthenticationFailed, svcerr.AuthenticationFailed.Message()+" "+detail)
}

// Primary returns the account a request's account name addresses and
// whether the name is that account's secondary location
// (devstoreaccount1-secondary), which the emulators and the SDKs'
// service statistics address with the same keys.
func Primary(name string) (account string, secondary bool) {
	account, secondary = strings.CutSuffix(name, "-secondary")
	if account == "" {
		return name, false
	}
	return account, secondary
}

// Verify authenticates r and returns what it may do. A request to an
// account's secondary location is signed as for the account itself.
func (v *Verifier) Verify(r Request) (Grant, error) {
	r.Account, _ = Primary(r.Account)
	header := r.Header
	if header == nil {
		header = func(string) string { return "" }
	}
	var scan sasScan
	if !scan.scan(r.Query) {
		return Grant{}, failed("The query string is malformed.")
	}
	if authz := header("Authorization"); authz != "" {
		scheme, token, _ := strings.Cut(strings.TrimSpace(authz), " ")
		switch {
		case scheme == "Bearer":
			return v.verifyBearer(r, strings.TrimSpace(token))
		case v.SharedKey != nil:
			r.Header = header
			if err := v.SharedKey(r, authz, v.Accounts); err != nil {
				return Grant{}, err
			}
			return Grant{full: true, service: r.Service}, nil
		case scheme == "SharedKey" || scheme == "SharedKeyLite":
			return Grant{}, failed("This host accepts shared access signatures (SAS) only, not requests signed with an account key (" + scheme + ").")
		}
		return Grant{}, failed("The authorization scheme " + scheme + " is not supported.")
	}
	if !scan.signed() {
		return v.anonymous(r)
	}
	// A token seen before is found by its fields as sent, with no copy:
	// the id is built in a buffer on the stack, and a map lookup by a
	// converted []byte does not allocate. A token giving a field twice is
	// refused, so it is never looked up.
	var buf [256]byte
	id := scan.id(buf[:0], &r)
	if acct := v.account(r.Account); acct != nil && scan.twice == "" {
		if t := v.sas.lookup(id, acct.Keys); t != nil {
			return t.judge(v, r)
		}
	}
	// What the cache keeps is read from a copy of the request's text, so
	// as not to keep all of it alive (a whole batch, in the browser), nor
	// see a host reuse it.
	r.Query, r.Container, r.Blob = strings.Clone(r.Query), strings.Clone(r.Container), strings.Clone(r.Blob)
	scan = sasScan{}
	scan.scan(r.Query)
	t, err := v.verifySAS(r, &scan)
	if err != nil {
		return Grant{}, err
	}
	v.sas.add(id, t)
	return t.judge(v, r)
}

// anonymous is the answer to a request without credentials.
func (v *Verifier) anonymous(r Request) (Grant, error) {
	if v.AllowAnonymous {
		return Grant{full: true, service: r.Service}, nil
	}
	return Grant{}, svcerr.New(svcerr.AuthorizationFailure)
}

// verifyBearer checks an OAuth bearer token, which the service accepts
// over HTTPS only.
func (v *Verifier) verifyBearer(r Request, token string) (Grant, error) {
	if token == "" {
		return Grant{}, svcerr.New(svcerr.InvalidAuthenticationInfo)
	}
	if v.Bearer == nil {
		return Grant{}, failed("Authentication scheme Bearer is not enabled on this server (tablelab -oauth basic).")
	}
	if r.Scheme != "https" {
		return Grant{}, failed("Authentication scheme Bearer is not allowed with HTTP.")
	}
	if v.account(r.Account) == nil {
		return Grant{}, failed("The account " + r.Account + " is unknown.")
	}
	if err := v.Bearer(token, r); err != nil {
		return Grant{}, err
	}
	return Grant{full: true, bearer: true, service: r.Service}, nil
}

// BearerFailed is the error a bearer check returns for a token it
// refuses: AuthenticationFailed with detail saying why.
func BearerFailed(detail string) error { return failed(detail) }

// Sign returns the base64 HMAC-SHA256 of s under key.
func Sign(key []byte, s string) string {
	m := digest.NewHMACSHA256(key)
	m.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// signingKey returns the key of a that signed s with sig, or nil if none did.
func signingKey(a *Account, s, sig string) []byte {
	got, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return nil
	}
	for _, k := range a.Keys {
		m := digest.NewHMACSHA256(k)
		m.Write([]byte(s))
		if digest.Equal(m.Sum(nil), got) {
			return k
		}
	}
	return nil
}

// ParseQuery reads a raw query string as the service does: pairs split on
// '&' only (a ';' is data, as in $format=application/json;odata=…), '+'
// read as a space. Unlike url.ParseQuery it keeps going past nothing.
func ParseQuery(raw string) (urltext.Values, error) {
	q := urltext.Values{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := urltext.QueryUnescape(k)
		if err != nil {
			return nil, err
		}
		val, err := urltext.QueryUnescape(v)
		if err != nil {
			return nil, err
		}
		q.Add(key, val)
	}
	return q, nil
}
