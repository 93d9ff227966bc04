// Package httptext reads a request and writes a response as the raw text
// of HTTP/1.1, for hosts that receive a whole request at once, as the
// browser's Web Worker does. It needs no net/http, which would more than
// double the size of the browser build, and reads only what the storage
// protocols send: a request line, header fields, and a body whose length is
// the rest of the message. The body may be any bytes (a blob's); only the
// head is text.
package httptext

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
)

// ErrMalformed is returned for text that is not an HTTP/1.1 request.
var ErrMalformed = errors.New("httptext: malformed request")

// ParseRequest reads text of the form
//
//	METHOD SP target SP HTTP/1.1 CRLF (name: value CRLF)* CRLF body
//
// The body is everything after the blank line, so no Content-Length is
// needed; a bare LF is accepted as a line end too, since a page that
// builds the text by hand may use one.
func ParseRequest(text string) (*api.Request, error) {
	head, body, ok := strings.Cut(text, "\r\n\r\n")
	if !ok {
		if head, body, ok = strings.Cut(text, "\n\n"); !ok {
			// A request without a body may also lack the blank line.
			head, body = strings.TrimRight(text, "\r\n"), ""
		}
	}
	req, err := parseHead(head)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Body = []byte(body)
	}
	return req, nil
}

// ParseRequestBytes is ParseRequest for a message held as bytes, as a page
// sends one whose body is binary. The request's Body aliases msg.
func ParseRequestBytes(msg []byte) (*api.Request, error) {
	var head, body []byte
	if i := bytes.Index(msg, []byte("\r\n\r\n")); i >= 0 {
		head, body = msg[:i], msg[i+4:]
	} else if i := bytes.Index(msg, []byte("\n\n")); i >= 0 {
		head, body = msg[:i], msg[i+2:]
	} else {
		head = bytes.TrimRight(msg, "\r\n")
	}
	req, err := parseHead(string(head))
	if err != nil {
		return nil, err
	}
	if len(body) > 0 {
		req.Body = body
	}
	return req, nil
}

// parseHead reads the request line and the header fields.
func parseHead(head string) (*api.Request, error) {
	line, fields, _ := strings.Cut(head, "\n")
	method, rest, ok1 := strings.Cut(strings.TrimSuffix(line, "\r"), " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || method == "" || target == "" || !strings.HasPrefix(proto, "HTTP/1.") {
		return nil, ErrMalformed
	}
	req := &api.Request{Method: method, Target: target, Scheme: "http", RemoteIP: "127.0.0.1"}
	for fields != "" {
		var f string
		f, fields, _ = strings.Cut(fields, "\n")
		f = strings.TrimSuffix(f, "\r")
		if f == "" {
			continue
		}
		name, value, ok := strings.Cut(f, ":")
		if !ok || name == "" || hasSpace(name) {
			return nil, ErrMalformed
		}
		value = trimSpace(value)
		if len(name) == len("Host") && strings.EqualFold(name, "Host") {
			req.Host = value
		}
		req.Header.Set(name, value)
	}
	return req, nil
}

// hasSpace reports whether s holds a space or a tab. It and trimSpace
// are loops in line rather than strings.ContainsAny and strings.Trim,
// which call a function per byte or per cut set: every header field of
// every request passes through both, and under WebAssembly a call costs
// more than the comparisons.
func hasSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' || s[i] == '\t' {
			return true
		}
	}
	return false
}

// trimSpace returns s without the spaces and tabs around it.
func trimSpace(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// AppendResponse appends resp as HTTP/1.1 text: the status line, the
// header fields in the order they were set, a Content-Length, a blank line
// and the body. It writes resp.Body; a host drains a BodyStream into it
// first. A response without a body that states its own Content-Length (a
// blob's HEAD, which describes the body a GET would send) keeps it.
func AppendResponse(dst []byte, resp *api.Response) []byte {
	dst = append(dst, "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(resp.Status), 10)
	dst = append(dst, ' ')
	dst = append(dst, reason(resp.Status)...)
	dst = append(dst, "\r\n"...)
	own := len(resp.Body) == 0 && resp.Header.Get("Content-Length") != ""
	for i := range resp.Header.Len() {
		name, value := resp.Header.Field(i)
		if !own && len(name) == len("Content-Length") && strings.EqualFold(name, "Content-Length") {
			continue
		}
		dst = append(dst, name...)
		dst = append(dst, ": "...)
		dst = append(dst, value...)
		dst = append(dst, "\r\n"...)
	}
	if !own {
		dst = append(dst, "Content-Length: "...)
		dst = strconv.AppendInt(dst, int64(len(resp.Body)), 10)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "\r\n"...)
	return append(dst, resp.Body...)
}

// reason returns the reason phrase of the statuses the storage services
// answer with.
func reason(status int) string {
	switch status {
	case 200:
		return "OK"
	case 201:
		return "Created"
	case 202:
		return "Accepted"
	case 206:
		return "Partial Content"
	case 204:
		return "No Content"
	case 304:
		return "Not Modified"
	case 307:
		return "Temporary Redirect"
	case 400:
		return "Bad Request"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 409:
		return "Conflict"
	case 411:
		return "Length Required"
	case 412:
		return "Precondition Failed"
	case 413:
		return "Request Entity Too Large"
	case 415:
		return "Unsupported Media Type"
	case 416:
		return "Requested Range Not Satisfiable"
	case 500:
		return "Internal Server Error"
	case 501:
		return "Not Implemented"
	case 503:
		return "Service Unavailable"
	}
	return "Status"
}
