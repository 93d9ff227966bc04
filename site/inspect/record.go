package inspect

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Sources of a request: the application's SDKs, or the explorer page.
const (
	SourceApp      = "app"
	SourceExplorer = "explorer"
)

// A Record is one request a service answered, as the inspector shows it.
// The summary fields go to every watcher as the request happens; the
// headers and bodies (Exchange) only to one who asks for them.
type Record struct {
	ID     uint64    `json:"id"`
	Time   time.Time `json:"time"`
	Source string    `json:"source"`
	// Service is "Blob", "Queue" or "Table".
	Service string `json:"service"`
	Method  string `json:"method"`
	// Path is the request's target, a SAS signature in it redacted.
	Path string `json:"path"`
	// Resource is the table, queue or container the request names; empty
	// for a request on the account (a list of tables, say).
	Resource string `json:"resource,omitempty"`
	Status   int    `json:"status"`
	// Code is the service's error code: x-ms-error-code, or the code in
	// an error body (the Table service sends no header).
	Code string `json:"code,omitempty"`
	// Plan, Examined and Returned are the engine's X-Tablelab-Plan,
	// -Examined and -Returned; Plan is empty on a request that read no
	// entities.
	Plan            string  `json:"plan,omitempty"`
	Examined        int     `json:"examined"`
	Returned        int     `json:"returned"`
	Micros          int64   `json:"micros"`
	ClientRequestID string  `json:"clientRequestId,omitempty"`
	RequestID       string  `json:"requestId,omitempty"`
	Advice          *Advice `json:"advice,omitempty"`

	Exchange Exchange `json:"-"`
}

// Exchange is what a request and its answer carried: headers in the order
// they came, and bodies up to the hub's limit.
type Exchange struct {
	RequestHeader  []Field `json:"requestHeader"`
	ResponseHeader []Field `json:"responseHeader"`
	RequestBody    Body    `json:"requestBody"`
	ResponseBody   Body    `json:"responseBody"`
}

// A Field is one header.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// A Body is what was kept of a request's or a response's body.
type Body struct {
	// Size is the body's whole length, -1 when it is not known.
	Size int64 `json:"size"`
	// Kept is its first bytes, at most the hub's body limit.
	Kept []byte `json:"-"`
	// Note says why nothing was kept of a body that has a length (a
	// blob's content streams past the front end).
	Note string `json:"note,omitempty"`
}

// MarshalJSON writes the kept bytes as text when they are UTF-8, and in
// base64 otherwise, saying which and whether they are the whole body.
func (b Body) MarshalJSON() ([]byte, error) {
	type out struct {
		Size      int64  `json:"size"`
		Text      string `json:"text,omitempty"`
		Base64    string `json:"base64,omitempty"`
		Truncated bool   `json:"truncated,omitempty"`
		Note      string `json:"note,omitempty"`
	}
	o := out{Size: b.Size, Note: b.Note, Truncated: b.Size > int64(len(b.Kept))}
	switch {
	case utf8.Valid(b.Kept):
		o.Text = string(b.Kept)
	default:
		// A cut may have split a character: text up to the cut is still
		// text.
		if cut := validPrefix(b.Kept); o.Truncated && cut > 0 && len(b.Kept)-cut < utf8.UTFMax {
			o.Text = string(b.Kept[:cut])
		} else {
			o.Base64 = base64.StdEncoding.EncodeToString(b.Kept)
		}
	}
	return json.Marshal(o)
}

func validPrefix(b []byte) int {
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		n += size
	}
	return n
}

// header returns the value of the first field named name, ignoring case.
func header(fields []Field, name string) string {
	for _, f := range fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// derive fills the summary fields read from the exchange: the resource,
// error code, plan, request ids and advice. It redacts the secrets the
// exchange carries (a SAS signature, a Shared Key signature, a bearer
// token) first, since watchers see all of it.
func (r *Record) derive() {
	r.Path = redactSAS(r.Path)
	for i := range r.Exchange.RequestHeader {
		f := &r.Exchange.RequestHeader[i]
		if strings.EqualFold(f.Name, "Authorization") {
			f.Value = redactAuthorization(f.Value)
		}
	}
	rh := r.Exchange.ResponseHeader
	r.Resource = resourceOf(r.Service, r.Path)
	r.RequestID = header(rh, "x-ms-request-id")
	r.ClientRequestID = header(r.Exchange.RequestHeader, "x-ms-client-request-id")
	r.Code = header(rh, "x-ms-error-code")
	if r.Code == "" && r.Status >= 400 {
		r.Code = errorCode(r.Exchange.ResponseBody.Kept)
	}
	if r.Plan = header(rh, "X-Tablelab-Plan"); r.Plan != "" {
		r.Examined, _ = strconv.Atoi(header(rh, "X-Tablelab-Examined"))
		r.Returned, _ = strconv.Atoi(header(rh, "X-Tablelab-Returned"))
		r.Advice = Advise(r.Plan, r.Examined, r.Returned, filterOf(r.Path))
	}
}

var sigParam = regexp.MustCompile(`([?&]sig=)[^&]*`)

// redactSAS hides the signature of a SAS in a target: the rest of the
// token (its permissions, expiry) says what a reader needs.
func redactSAS(target string) string {
	if !strings.Contains(target, "sig=") {
		return target
	}
	return sigParam.ReplaceAllString(target, "${1}REDACTED")
}

// redactAuthorization keeps an Authorization header's scheme and account,
// not its signature or token.
func redactAuthorization(v string) string {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return "REDACTED"
	}
	if account, _, ok := strings.Cut(cred, ":"); ok && !strings.EqualFold(scheme, "Bearer") {
		return scheme + " " + account + ":REDACTED"
	}
	return scheme + " REDACTED"
}

// resourceOf is the table, queue or container a path-style target names
// (/account/name…).
func resourceOf(service, target string) string {
	path, _, _ := strings.Cut(target, "?")
	path = strings.TrimPrefix(path, "/")
	_, rest, ok := strings.Cut(path, "/") // past the account
	if !ok {
		return ""
	}
	seg, _, _ := strings.Cut(rest, "/")
	if service == "Table" {
		if name, ok := strings.CutPrefix(seg, "Tables("); ok {
			seg = strings.TrimSuffix(strings.TrimSuffix(name, ")"), "'")
			seg = strings.TrimPrefix(seg, "'")
		} else if seg == "Tables" || seg == "$batch" {
			return ""
		}
		seg, _, _ = strings.Cut(seg, "(")
	}
	if name, err := url.PathUnescape(seg); err == nil {
		return name
	}
	return seg
}

// filterOf is the $filter of a target, decoded; empty when it has none.
func filterOf(target string) string {
	_, query, ok := strings.Cut(target, "?")
	if !ok {
		return ""
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return ""
	}
	return q.Get("$filter")
}

// errorCode reads the code of an error body, which may be cut short: the
// Table service's JSON ({"odata.error":{"code":…}}) or the Queue and Blob
// services' XML (<Error><Code>…</Code>). Both put the code first.
func errorCode(body []byte) string {
	for _, marks := range [][2]string{{`"code":"`, `"`}, {"<Code>", "</Code>"}} {
		if _, after, ok := bytes.Cut(body, []byte(marks[0])); ok {
			if code, _, ok := bytes.Cut(after, []byte(marks[1])); ok {
				return string(code)
			}
		}
	}
	return ""
}
