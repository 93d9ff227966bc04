package auth

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"

	"github.com/tablelab/tablelab/engine/internal/urltext"
)

// sigCacheSize bounds how many verified tokens a Verifier remembers. A
// page or an SDK client uses a handful of tokens at a time; the bound
// only has to keep a stream of distinct tokens from growing memory.
const sigCacheSize = 256

// sigCache remembers SAS tokens already verified, by the id sasScan
// gives them: every field of the token exactly as the query spelled it,
// with whatever of the request the signature covers (the service, the
// account, a container's or blob's name). A signature covers nothing
// else, so a request whose id matches presents a token already found
// good, and is judged from what was read of it then (verifiedSAS.judge):
// no parsing, no string to sign, no HMAC. The order of the parameters
// does not change the id, their spelling does: a token with an escape
// spelled otherwise is a miss, verified in full, and a field changed in
// any way is another id, never a hit.
//
// The zero value is empty and ready; it is safe for concurrent use.
type sigCache struct {
	mu       sync.Mutex
	verified map[string]*verifiedSAS
}

// lookup returns the token id names, if it was verified under one of
// keys: a key since removed from the account no longer counts.
func (c *sigCache) lookup(id []byte, keys [][]byte) *verifiedSAS {
	c.mu.Lock()
	t := c.verified[string(id)]
	c.mu.Unlock()
	if t == nil {
		return nil
	}
	for _, have := range keys {
		if bytes.Equal(have, t.key) {
			return t
		}
	}
	return nil
}

// add remembers the token id names. When the cache is full it forgets an
// arbitrary entry first, so it never holds more than sigCacheSize.
func (c *sigCache) add(id []byte, t *verifiedSAS) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verified == nil {
		c.verified = make(map[string]*verifiedSAS)
	}
	if _, ok := c.verified[string(id)]; !ok && len(c.verified) >= sigCacheSize {
		for old := range c.verified {
			delete(c.verified, old)
			break
		}
	}
	c.verified[string(id)] = t
}

// len is how many tokens c remembers.
func (c *sigCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.verified)
}

// sasScan is what one pass over a raw query string finds of a SAS,
// without copying anything: its values are parts of the query, decoded
// only when read (get).
type sasScan struct {
	// raw holds, by field number (sasField), the value of each field the
	// query gives, as sent, then the parts of the request a cache id
	// holds; given has bit i set when raw[i] is there, even empty.
	raw   [numParts]string
	given uint64
	// twice names the first field of a SAS, in the order of their
	// numbers, that the query gives more than once; "" when none is.
	twice string
}

// scan reads query, reporting false when an escape in it is malformed,
// as ParseQuery would. A parameter's name is read as it decodes; only the
// first value of a field given more than once is kept.
func (s *sasScan) scan(query string) bool {
	// An escape cut short by '=' or '&' is malformed on either side of
	// it too, so one look at the whole query checks every name and value.
	if !validEscapes(query) {
		return false
	}
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		if pair == "" {
			continue
		}
		name, value, _ := strings.Cut(pair, "=")
		if strings.ContainsAny(name, "%+") {
			name, _ = urltext.QueryUnescape(name)
		}
		i := sasField(name)
		if i < 0 {
			continue
		}
		if s.given&(1<<i) != 0 {
			if i < fieldSnapshot && (s.twice == "" || i < sasField(s.twice)) {
				s.twice = name
			}
			continue
		}
		s.given |= 1 << i
		s.raw[i] = value
	}
	return true
}

// has reports whether the query gives field i, if only empty.
func (s *sasScan) has(i int) bool { return s.given&(1<<i) != 0 }

// get returns the value of field i, decoded.
func (s *sasScan) get(i int) string {
	v := s.raw[i]
	if strings.IndexByte(v, '%') < 0 && strings.IndexByte(v, '+') < 0 {
		return v
	}
	v, _ = urltext.QueryUnescape(v) // scan checked the escapes
	return v
}

// signed reports whether the query carries a signature, which makes it a
// SAS.
func (s *sasScan) signed() bool { return s.raw[fieldSig] != "" }

// id appends to buf the cache id of the token for r: the service, then
// each part given, tagged with its number and prefixed with its length,
// so that no two tokens or requests share an id. The parts are the
// fields of the token and what of r it signs: the account, and for a
// service SAS of the Blob or Queue service the names of the container
// (or queue) and of the blob. A container SAS (sr=c) does not sign the
// blob's name, so its id leaves it out and the token is verified once
// for the whole container.
func (s *sasScan) id(buf []byte, r *Request) []byte {
	s.raw[partAccount] = r.Account
	s.given |= 1 << partAccount
	if r.Service != Table && s.given&(1<<fieldSS|1<<fieldSRT) == 0 {
		s.raw[partContainer] = r.Container
		s.given |= 1 << partContainer
		if r.Service == Blob && s.raw[fieldSR] != "c" {
			s.raw[partBlob] = r.Blob
			s.given |= 1 << partBlob
		}
	}
	buf = append(buf, byte(r.Service))
	for i := range numParts {
		if s.given&(1<<i) != 0 {
			buf = append(buf, byte(i))
			buf = appendPart(buf, s.raw[i])
		}
	}
	return buf
}

// appendPart appends s to buf after its length.
func appendPart(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}

// validEscapes reports whether every '%' in s is followed by two
// hexadecimal digits, as ParseQuery requires.
func validEscapes(s string) bool {
	for i := strings.IndexByte(s, '%'); i >= 0; i = strings.IndexByte(s, '%') {
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return false
		}
		s = s[i+3:]
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
