package api

import (
	"io"
	"slices"
	"strings"
)

// Header is a set of HTTP header fields. Names are matched without regard
// to case, as HTTP requires and as the SDKs need (Go sends "X-Ms-Date",
// JS "x-ms-date"); each name holds one value, which is all the protocol
// uses.
type Header struct {
	fields []field // in the order first set
}

type field struct{ name, value string }

// index finds a field by a linear search: a request or response holds a
// dozen fields, fewer than a map would pay for.
func (h *Header) index(name string) int {
	for i := range h.fields {
		if k := h.fields[i].name; len(k) == len(name) && strings.EqualFold(k, name) {
			return i
		}
	}
	return -1
}

// Get returns the value of the named field, or "".
func (h *Header) Get(name string) string {
	if i := h.index(name); i >= 0 {
		return h.fields[i].value
	}
	return ""
}

// Has reports whether the named field is present, even if empty.
func (h *Header) Has(name string) bool { return h.index(name) >= 0 }

// Set sets the named field, replacing any value it had.
func (h *Header) Set(name, value string) {
	if i := h.index(name); i >= 0 {
		h.fields[i].value = value
		return
	}
	if h.fields == nil {
		// One allocation for the dozen fields of a typical message:
		// under wasm each allocation costs about three times what it
		// does natively.
		h.fields = make([]field, 0, 16)
	}
	h.fields = append(h.fields, field{name, value})
}

// Grow makes room for n more fields, for a host that knows how many it
// will set: one allocation of the right size.
func (h *Header) Grow(n int) {
	h.fields = slices.Grow(h.fields, n)
}

// Each calls fn for every field in the order they were set.
func (h *Header) Each(fn func(name, value string)) {
	for _, f := range h.fields {
		fn(f.name, f.value)
	}
}

// Len returns the number of fields.
func (h *Header) Len() int { return len(h.fields) }

// Field returns the i-th field in the order they were set, i from 0 to
// Len()-1: a writer of every field calls nothing per field, where Each
// calls fn.
func (h *Header) Field(i int) (name, value string) {
	f := &h.fields[i]
	return f.name, f.value
}

// Request is one HTTP request to the Table service, as a value: hosts
// build it from whatever they receive (net/http, a Worker's fetch event, a
// browser's postMessage) and the protocol needs nothing else.
type Request struct {
	Method string
	// Target is the request target exactly as received: the escaped path
	// and the raw query, e.g. "/devstoreaccount1/t(PartitionKey='a',RowKey='b')?$select=X".
	// The escaping matters: SharedKey signatures cover the path as sent.
	Target string
	// Host is the Host header, which selects the account in host-style
	// addressing (account.table.example.com).
	Host string
	// Scheme is "http" or "https"; SAS tokens may demand https.
	Scheme string
	// RemoteIP is the client's address, checked against SAS IP ranges.
	RemoteIP string
	Header   Header
	// Body is valid until the response is written: a host may hand over
	// its own buffer, which it reuses for the next request, so a service
	// copies what it keeps of it (its decoders do).
	Body []byte
	// BodyStream, when not nil, is the body instead of Body: a host that
	// can stream gives a large blob upload this way, so that hundreds of
	// MiB never sit in memory at once. It holds the number of bytes the
	// Content-Length header says. Only the Blob service reads it; a host
	// gives the other services Body.
	BodyStream io.Reader
	// Scratch, when not nil, is a buffer the server may build a large
	// response body in (a page of entities), appending from its length
	// zero. The host owns it again once it has written the response: a
	// server under a steady query load then makes no megabyte of garbage
	// per page.
	Scratch []byte
}

// Response is the protocol's answer to a Request.
type Response struct {
	Status int
	// Reason, when not empty, is the status line's reason phrase in place
	// of the standard one for Status: the service words some statuses its
	// own way ("Server Busy").
	Reason string
	Header Header
	// Body is memory of this response's own (built for it, or the
	// request's Scratch): a host may reuse it once the response is
	// written.
	Body []byte
	// BodyStream, when not nil, is the body instead of Body, BodyLength
	// bytes long: a blob download the host copies out as it reads. The
	// host closes it once written, or when the client has gone.
	BodyStream io.ReadCloser
	BodyLength int64
	// Drop asks the host to close the connection without answering, as a
	// network fault would (package faults injects it); the rest of the
	// response is what a log may say of it. A host that cannot drop a
	// connection answers it as it is.
	Drop bool
}

// Service is the protocol core of one storage service (Table, Queue or
// Blob): what a host hands each request it receives.
type Service interface {
	// Serve answers one request. It never panics on any input; every
	// failure becomes an error response in the service's format.
	Serve(*Request) *Response
	// Error answers req with err in the service's format, for failures a
	// host finds before it has a whole Request, such as an oversized body.
	Error(*Request, error) *Response
}

var _ Service = (*Server)(nil)
