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

// Parse reads a $batch body sent with the given Content-Type. The
// operations' methods, URLs and headers are slices of one copy of the
// body, made once, and their bodies alias body: a batch of a hundred
// inserts is read with a handful of allocations, not two for every
// header line (allocation is what WebAssembly pays most for).
func Parse(contentType string, body []byte) (*Batch, error) {
	boundary, ok := Boundary(contentType)
	if !ok {
		return nil, invalid("the Content-Type " + strconv.Quote(contentType) + " is not multipart/mixed with a boundary")
	}
	text := string(body)
	parts, err := split(text, span{0, len(text)}, boundary)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, invalid("no parts")
	}
	if len(parts) > 1 {
		return nil, invalid("more than one change set or request in the batch")
	}
	var buf [8]Field
	hdr, content := headers(buf[:0], text, parts[0])
	ct := get(hdr, "Content-Type")
	if inner, ok := Boundary(ct); ok {
		subs, err := split(text, content, inner)
		if err != nil {
			return nil, err
		}
		b := &Batch{Requests: make([]Request, 0, len(subs))}
		// The operations' header lists share one array.
		fields := make([]Field, 0, 6*len(subs))
		for i, sub := range subs {
			r, err := parseOperation(text, body, sub, fields[len(fields):])
			if err != nil {
				return nil, svcerr.With(svcerr.InvalidInput, svcerr.Clause(svcerr.From(err).Message)+" (operation "+strconv.Itoa(i)+").")
			}
			if n := len(r.Header); n <= cap(fields)-len(fields) {
				fields = fields[:len(fields)+n]
			}
			r.Header = r.Header[:len(r.Header):len(r.Header)]
			b.Requests = append(b.Requests, r)
		}
		if len(b.Requests) == 0 {
			return nil, invalid("the change set is empty")
		}
		return b, nil
	}
	r, err := parseOperation(text, body, parts[0], nil)
	if err != nil {
		return nil, err
	}
	if r.Method != "GET" {
		return nil, invalid("a request outside a change set must be a GET")
	}
	return &Batch{Requests: []Request{r}, Query: true}, nil
}

// span is a stretch of the body's text: text[start:end].
type span struct{ start, end int }

// split returns the parts of a multipart body, in the stretch in of
// text, between its delimiters.
func split(text string, in span, boundary string) ([]span, error) {
	body := text[:in.end]
	delim := "--" + boundary
	var parts []span
	i := in.start
	start := -1
	for {
		j := strings.Index(body[i:], delim)
		if j < 0 {
			return nil, invalid("the closing delimiter --" + boundary + "-- is missing")
		}
		at := i + j
		if at > in.start && body[at-1] != '\n' {
			i = at + len(delim) // not at the start of a line
			continue
		}
		if start >= 0 {
			parts = append(parts, trimLineEnd(text, span{start, at}))
			if len(parts) > MaxParts {
				return nil, invalid("more than " + strconv.Itoa(MaxParts) + " parts")
			}
		}
		after := at + len(delim)
		if strings.HasPrefix(body[after:], "--") {
			return parts, nil
		}
		// The rest of the delimiter line must be blank.
		nl := strings.IndexByte(body[after:], '\n')
		if nl < 0 {
			return nil, invalid("the closing delimiter --" + boundary + "-- is missing")
		}
		if len(strings.TrimSpace(body[after:after+nl])) != 0 {
			i = after
			continue
		}
		start = after + nl + 1
		i = start
	}
}

// trimLineEnd drops the line end that belongs to the next delimiter.
func trimLineEnd(text string, s span) span {
	if s.end > s.start && text[s.end-1] == '\n' {
		s.end--
	}
	if s.end > s.start && text[s.end-1] == '\r' {
		s.end--
	}
	return s
}

// headers appends to out the header lines of the stretch in of text, up
// to a blank line, skipping blank lines before the first header, and
// returns them with the stretch after them.
func headers(out []Field, text string, in span) ([]Field, span) {
	first := len(out)
	b := in
	for b.start < b.end {
		line := text[b.start:b.end]
		rest := span{b.end, b.end}
		if nl := strings.IndexByte(line, '\n'); nl >= 0 {
			line, rest = line[:nl], span{b.start + nl + 1, b.end}
		}
		line = strings.TrimSuffix(line, "\r")
		if len(strings.TrimSpace(line)) == 0 {
			if len(out) == first {
				b = rest
				continue
			}
			return out, rest
		}
		name, value, ok := strings.Cut(line, ":")
		if ok {
			out = append(out, Field{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)})
		}
		b = rest
	}
	return out, span{in.end, in.end}
}

func get(h []Field, name string) string {
	for _, f := range h {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// parseOperation reads one application/http part, the stretch part of
// text (body's copy), appending its header fields to fields.
func parseOperation(text string, body []byte, part span, fields []Field) (Request, error) {
	var buf [4]Field
	mime, content := headers(buf[:0], text, part)
	if ct := get(mime, "Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/http") {
		return Request{}, invalid("a part has Content-Type " + strconv.Quote(ct) + ", not application/http")
	}
	// Skip blank lines before the request line.
	for content.start < content.end && strings.IndexByte("\r\n\t ", text[content.start]) >= 0 {
		content.start++
	}
	nl := strings.IndexByte(text[content.start:content.end], '\n')
	if nl < 0 {
		return Request{}, invalid("an operation has no request line")
	}
	line := strings.TrimSpace(text[content.start : content.start+nl])
	f := strings.Fields(line)
	if len(f) != 3 || !strings.HasPrefix(f[2], "HTTP/") {
		return Request{}, invalid("the request line " + strconv.Quote(truncate(line)) + " is not METHOD URL HTTP/1.1")
	}
	r := Request{Method: strings.ToUpper(f[0]), URL: f[1]}
	var rest span
	r.Header, rest = headers(fields, text, span{content.start + nl + 1, content.end})
	r.Body = bytes.TrimSpace(body[rest.start:rest.end])
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
	if dst == nil {
		// One allocation near the body's size, rather than a dozen
		// doublings for a hundred operations.
		n := 2*len(batchBoundary) + (len(responses)+2)*(len(changesetBoundary)+8) + 64
		for _, r := range responses {
			n += partSize(r)
		}
		dst = make([]byte, 0, n)
	}
	dst = appendLine(dst, "--", batchBoundary, "")
	dst = appendLine(dst, "Content-Type: multipart/mixed; boundary=", changesetBoundary, "\r\n")
	for _, r := range responses {
		dst = appendLine(dst, "--", changesetBoundary, "")
		dst = appendPart(dst, r)
	}
	dst = appendLine(dst, "--", changesetBoundary, "--")
	return appendLine(dst, "--", batchBoundary, "--")
}

// WriteQueryResponse appends the body answering a batch that held one
// query: a single application/http part, no change set.
func WriteQueryResponse(dst []byte, batchBoundary string, r Response) []byte {
	dst = appendLine(dst, "--", batchBoundary, "")
	dst = appendPart(dst, r)
	return appendLine(dst, "--", batchBoundary, "--")
}

// appendLine appends a, b and c and a line end, without the string that
// a+b+c would allocate. Not inlined: its dozen calls would each grow the
// browser build by the four appends.
//
//go:noinline
func appendLine(dst []byte, a, b, c string) []byte {
	for _, s := range [...]string{a, b, c, "\r\n"} {
		dst = append(dst, s...)
	}
	return dst
}

const partHead = "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 "

// partSize is about the length appendPart writes for r.
func partSize(r Response) int {
	n := len(partHead) + 32 + len(r.ContentID) + 16 + len(r.Body) + 2
	for _, f := range r.Header {
		n += len(f.Name) + len(f.Value) + 4
	}
	return n
}

func appendPart(dst []byte, r Response) []byte {
	dst = append(dst, partHead...)
	dst = strconv.AppendInt(dst, int64(r.Status), 10)
	dst = appendLine(dst, " ", Reason(r.Status), "")
	if r.ContentID != "" {
		dst = appendLine(dst, "Content-ID: ", r.ContentID, "")
	}
	for _, f := range r.Header {
		dst = append(dst, f.Name...)
		dst = appendLine(dst, ": ", f.Value, "")
	}
	dst = append(dst, "\r\n"...)
	dst = append(dst, r.Body...)
	return append(dst, "\r\n"...)
}
