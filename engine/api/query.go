package api

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/internal/urltext"
)

// query is a request's query string as the service reads it: pairs split
// on '&' only (a ';' is data, as in $format=application/json;odata=…),
// '+' read as a space, the first of repeated names winning. It is what
// auth.ParseQuery reads, without its map and its copies: values are
// decoded only when asked for, and the pairs take one allocation. A SAS
// adds eight or so parameters to every request, and under wasm decoding
// them into url.Values was among the largest costs of a point read.
type query struct{ pairs []queryPair }

// queryPair is one name=value pair, the name decoded and the value as
// sent.
type queryPair struct{ name, raw string }

// parse splits raw, checking every escape so that a malformed one fails
// the request as url.QueryUnescape would, with its message.
func (q *query) parse(raw string) error {
	if raw == "" {
		return nil
	}
	q.pairs = make([]queryPair, 0, strings.Count(raw, "&")+1)
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		if err := checkEscapes(name); err != nil {
			return err
		}
		if err := checkEscapes(value); err != nil {
			return err
		}
		q.pairs = append(q.pairs, queryPair{name: unescape(name), raw: value})
	}
	return nil
}

// Get returns the decoded value of the first pair named name, or "".
func (q *query) Get(name string) string {
	for _, p := range q.pairs {
		if p.name == name {
			return unescape(p.raw)
		}
	}
	return ""
}

// checkEscapes reports a '%' not followed by two hex digits, as
// url.QueryUnescape's EscapeError words it.
func checkEscapes(s string) error {
	for i := strings.IndexByte(s, '%'); i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			bad := s[i:min(i+3, len(s))]
			return escapeError("invalid URL escape " + strconv.Quote(bad))
		}
		s = s[i+3:]
	}
	return nil
}

type escapeError string

func (e escapeError) Error() string { return string(e) }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unescape decodes a query component whose escapes checkEscapes passed;
// text without '%' or '+' is returned as it is, without a copy.
func unescape(s string) string {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s
	}
	v, err := urltext.QueryUnescape(s)
	if err != nil {
		return s // not reached: parse checked the escapes
	}
	return v
}
