// Package urltext reads and writes the parts of a request target the
// services look at: percent-encoded path segments and query strings, and
// hosts that are IP addresses. It answers as net/url and net/netip do
// (the tests hold it to them), and exists so that the browser build need
// link neither: net/url imports net/netip, whose package variables are
// made with the unique package, and that machinery alone weighs more
// than the browser's size budget has room for (docs/benchmarks.md).
package urltext

import (
	"slices"
	"strconv"
	"strings"
)

// An EscapeError is a '%' not followed by two hexadecimal digits; its
// text is what follows the '%', as far as three bytes, as url.EscapeError
// keeps it.
type EscapeError string

func (e EscapeError) Error() string { return "invalid URL escape " + strconv.Quote(string(e)) }

// PathUnescape decodes a path segment: each %XX becomes its byte, and a
// '+' stays a '+'.
func PathUnescape(s string) (string, error) { return unescape(s, false) }

// QueryUnescape decodes a query component: each %XX becomes its byte, and
// a '+' becomes a space.
func QueryUnescape(s string) (string, error) { return unescape(s, true) }

func unescape(s string, query bool) (string, error) {
	plain := true
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			if i+2 >= len(s) || unhex(s[i+1]) < 0 || unhex(s[i+2]) < 0 {
				return "", EscapeError(s[i:min(len(s), i+3)])
			}
			plain = false
			i += 2
		case '+':
			plain = plain && !query
		}
	}
	if plain {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteByte(byte(unhex(s[i+1])<<4 | unhex(s[i+2])))
			i += 2
		case c == '+' && query:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// unhex is the value of a hexadecimal digit, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}

// PathEscape encodes s for use as one path segment: every byte but
// letters, digits, "-._~" and "$&+:=@" as %XX.
func PathEscape(s string) string { return escape(s, false) }

// QueryEscape encodes s for use as a query component: a space as '+',
// and every other byte but letters, digits and "-._~" as %XX.
func QueryEscape(s string) string { return escape(s, true) }

func escape(s string, query bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !kept(s[i], query) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const digits = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case kept(c, query):
			b = append(b, c)
		case c == ' ' && query:
			b = append(b, '+')
		default:
			b = append(b, '%', digits[c>>4], digits[c&15])
		}
	}
	return string(b)
}

// kept reports whether c stands for itself in a path segment or a query
// component.
func kept(c byte, query bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	case c == '-' || c == '.' || c == '_' || c == '~':
		return true
	case c == '$' || c == '&' || c == '+' || c == ':' || c == '=' || c == '@':
		return !query
	}
	return false
}

// Values are a query string's parameters, each name with its values in
// the order given. It is url.Values, without its package.
type Values map[string][]string

// Get returns the first value of key, or "".
//
// Get is not inlined: a SAS check calls it dozens of times, and a copy
// at each call weighs more in the browser build than the call costs.
//
//go:noinline
func (v Values) Get(key string) string {
	if vs := v[key]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// Has reports whether key is present, empty or not.
func (v Values) Has(key string) bool {
	_, ok := v[key]
	return ok
}

// Set makes value the only value of key.
func (v Values) Set(key, value string) { v[key] = []string{value} }

// Add appends value to key's values.
func (v Values) Add(key, value string) { v[key] = append(v[key], value) }

// Encode writes the values as a query string, names in sorted order,
// each pair as QueryEscape(name)=QueryEscape(value), joined by '&'.
func (v Values) Encode() string {
	// Each name goes in at its place as it comes: a query has few names,
	// and the browser build then links no sort for strings.
	keys := make([]string, 0, len(v))
	for k := range v {
		i, _ := slices.BinarySearch(keys, k)
		keys = append(keys, "")
		copy(keys[i+1:], keys[i:])
		keys[i] = k
	}
	var b strings.Builder
	for _, k := range keys {
		name := QueryEscape(k)
		for _, val := range v[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(name)
			b.WriteByte('=')
			b.WriteString(QueryEscape(val))
		}
	}
	return b.String()
}
