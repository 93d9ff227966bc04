// Package batchwire reads the multipart/mixed bodies of the Table
// service's $batch requests and writes its responses.
//
// Reading is lenient, because the SDKs differ: header names in any case,
// empty header values (Go), extra blank lines before parts and before
// bodies (JS), LF or CRLF line ends, quoted boundary parameters, no
// Content-Length and no Content-ID. Writing is exact, because the SDKs'
// readers are not lenient at all:
//
//   - the Go SDK takes the boundary from the body's first line, so the
//     body must begin with --batchresponse_…; the change set part's
//     content must begin at once with --changesetresponse_…; each
//     operation's response is read with http.ReadResponse;
//   - the JS SDK splits the text on the literal "--changesetresponse_",
//     so the closing delimiter is required, reads the status with a
//     regular expression, and throws on any JSON body in a part, so
//     successful inserts that asked for no content must have none.
//
// It imports nothing of net/http or mime/multipart: it goes into the
// browser build.
package batchwire

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Field is one header field.
type Field struct {
	Name, Value string
}

// Request is one operation of a batch: an HTTP request inside the body.
type Request struct {
	Method string
	// URL is the request target as written: usually an absolute URL.
	URL       string
	Header    []Field
	Body      []byte
	ContentID string
}

// Get returns the value of the named header, ignoring case.
func (r *Request) Get(name string) string {
	for _, f := range r.Header {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// Batch is a parsed $batch body: the operations of its change set, or a
// single query.
type Batch struct {
	Requests []Request
	// Query is set when the batch holds one GET instead of a change set.
	Query bool
}

// Limits that bound the work of reading a body.
const (
	MaxParts = 1000
)

func invalid(what string) error {
	return svcerr.With(svcerr.InvalidInput, "The batch request body is malformed: "+what+".")
}

// Boundary returns the boundary parameter of a multipart Content-Type.
func Boundary(contentType string) (string, bool) {
	mt, params, _ := strings.Cut(contentType, ";")
	if !strings.EqualFold(strings.TrimSpace(mt), "multipart/mixed") {
		return "", false
	}
	for _, p := range strings.Split(params, ";") {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "boundary") {
			v = strings.Trim(strings.TrimSpace(v), `"`)
			return v, v != ""
		}
	}
	return "", false
}

// Parse reads a $batch body sent with the given Content-Type.
func Parse(contentType string, body []byte) (*Batch, error) {
	boundary, ok := Boundary(contentType)
	if !ok {
		return nil, invalid("the Content-Type " + strconv.Quote(contentType) + " is not multipart/mixed with a boundary")
	}
	parts, err := split(body, boundary)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, invalid("no parts")
	}
	if len(parts) > 1 {
		return nil, invalid("more than one change set or request in the batch")
	}
	hdr, content := headers(parts[0])
	ct := get(hdr, "Content-Type")
	if inner, ok := Boundary(ct); ok {
		subs, err := split(content, inner)
		if err != nil {
			return nil, err
		}
		b := &Batch{}
		for i, sub := range subs {
			r, err := parseOperation(sub)
			if err != nil {
				return nil, svcerr.With(svcerr.InvalidInput, svcerr.Clause(svcerr.From(err).Message)+" (operation "+strconv.Itoa(i)+").")
			}
			b.Requests = append(b.Requests, r)
		}
		if len(b.Requests) == 0 {
			return nil, invalid("the change set is empty")
		}
		return b, nil
	}
	r, err := parseOperation(parts[0])
	if err != nil {
		return nil, err
	}
	if r.Method != "GET" {
		return nil, invalid("a request outside a change set must be a GET")
	}
	return &Batch{Requests: []Request{r}, Query: true}, nil
}

// split returns the parts of a multipart body between its delimiters.
func split(body []byte, boundary string) ([][]byte, error) {
	delim := []byte("--" + boundary)
	var parts [][]byte
	i := 0
	start := -1
	for {
		j := bytes.Index(body[i:], delim)
		if j < 0 {
			return nil, invalid("the closing delimiter --" + boundary + "-- is missing")
		}
		at := i + j
		if at > 0 && body[at-1] != '\n' {
			i = at + len(delim) // not at the start of a line
			continue
		}
		if start >= 0 {
			parts = append(parts, trimLineEnd(body[start:at]))
			if len(parts) > MaxParts {
				return nil, invalid("more than " + strconv.Itoa(MaxParts) + " parts")
			}
		}
		after := at + len(delim)
		if bytes.HasPrefix(body[after:], []byte("--")) {
			return parts, nil
		}
		// The rest of the delimiter line must be blank.
		nl := bytes.IndexByte(body[after:], '\n')
		if nl < 0 {
			return nil, invalid("the closing delimiter --" + boundary + "-- is missing")
		}
		if len(bytes.TrimSpace(body[after:after+nl])) != 0 {
			i = after
			continue
		}
		start = after + nl + 1
		i = start
	}
}

// trimLineEnd drops the line end that belongs to the next delimiter.
func trimLineEnd(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// headers reads header lines up to a blank line, skipping blank lines
// before the first header, and returns them with the rest.
func headers(b []byte) ([]Field, []byte) {
	var out []Field
	for len(b) > 0 {
		line := b
		rest := []byte(nil)
		if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
			line, rest = b[:nl], b[nl+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.TrimSpace(line)) == 0 {
			if len(out) == 0 {
				b = rest
				continue
			}
			return out, rest
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if ok {
			out = append(out, Field{Name: strings.TrimSpace(string(name)), Value: strings.TrimSpace(string(value))})
		}
		b = rest
	}
	return out, nil
}

func get(h []Field, name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// parseOperation reads one application/http part.
func parseOperation(part []byte) (Request, error) {
	mime, content := headers(part)
	if ct := get(mime, "Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/http") {
		return Request{}, invalid("a part has Content-Type " + strconv.Quote(ct) + ", not application/http")
	}
	// Skip blank lines before the request line.
	content = bytes.TrimLeft(content, "\r\n\t ")
	nl := bytes.IndexByte(content, '\n')
	if nl < 0 {
		return Request{}, invalid("an operation has no request line")
	}
	line := strings.TrimSpace(string(content[:nl]))
	fields := strings.Fields(line)
	if len(fields) != 3 || !strings.HasPrefix(fields[2], "HTTP/") {
		return Request{}, invalid("the request line " + strconv.Quote(truncate(line)) + " is not METHOD URL HTTP/1.1")
	}
	r := Request{Method: strings.ToUpper(fields[0]), URL: fields[1]}
	var rest []byte
	r.Header, rest = headers(content[nl+1:])
	r.Body = bytes.TrimSpace(rest)
	if n := get(r.Header, "Content-Length"); n != "" {
		if l, err := strconv.Atoi(n); err == nil && l >= 0 && l < len(r.Body) {
			r.Body = r.Body[:l]
		}
	}
	if x := get(r.Header, "X-HTTP-Method"); x != "" && r.Method == "POST" {
		r.Method = strings.ToUpper(x)
	}
	r.ContentID = get(mime, "Content-ID")
	if r.ContentID == "" {
		r.ContentID = get(r.Header, "Content-ID")
	}
	return r, nil
}

func truncate(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Response is the answer to one operation.
type Response struct {
	Status    int
	Header    []Field
	Body      []byte
	ContentID string
}

var reasons = map[int]string{
	200: "OK", 201: "Created", 202: "Accepted", 204: "No Content",
	400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
	409: "Conflict", 412: "Precondition Failed", 413: "Request Entity Too Large",
	415: "Unsupported Media Type", 500: "Internal Server Error", 501: "Not Implemented",
	503: "Service Unavailable",
}

// Reason returns the reason phrase of a status code.
func Reason(status int) string {
	if r, ok := reasons[status]; ok {
		return r
	}
	return "Status " + strconv.Itoa(status)
}

// WriteResponse appends the multipart body answering a change set: one
// part per response, inside the change set inside the batch.
func WriteResponse(dst []byte, batchBoundary, changesetBoundary string, responses []Response) []byte {
	dst = append(dst, "--"+batchBoundary+"\r\n"...)
	dst = append(dst, "Content-Type: multipart/mixed; boundary="+changesetBoundary+"\r\n\r\n"...)
	for _, r := range responses {
		dst = append(dst, "--"+changesetBoundary+"\r\n"...)
		dst = appendPart(dst, r)
	}
	dst = append(dst, "--"+changesetBoundary+"--\r\n"...)
	return append(dst, "--"+batchBoundary+"--\r\n"...)
}

// WriteQueryResponse appends the body answering a batch that held one
// query: a single application/http part, no change set.
func WriteQueryResponse(dst []byte, batchBoundary string, r Response) []byte {
	dst = append(dst, "--"+batchBoundary+"\r\n"...)
	dst = appendPart(dst, r)
	return append(dst, "--"+batchBoundary+"--\r\n"...)
}

func appendPart(dst []byte, r Response) []byte {
	dst = append(dst, "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"...)
	dst = append(dst, "HTTP/1.1 "+strconv.Itoa(r.Status)+" "+Reason(r.Status)+"\r\n"...)
	if r.ContentID != "" {
		dst = append(dst, "Content-ID: "+r.ContentID+"\r\n"...)
	}
	for _, f := range r.Header {
		dst = append(dst, f.Name+": "+f.Value+"\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	dst = append(dst, r.Body...)
	return append(dst, "\r\n"...)
}
