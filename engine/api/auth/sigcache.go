package auth

import (
	"bytes"
	"sync"
)

// sigCacheSize bounds how many verified signatures a Verifier remembers.
// A page or an SDK client uses a handful of tokens at a time; the bound
// only has to keep a stream of distinct tokens from growing memory.
const sigCacheSize = 256

// sigCache remembers SAS signatures already found valid. A SAS signature
// covers only the token's own fields, never the request, so once a string
// to sign and its signature have matched under a key, they match again on
// every request that presents them: only the HMAC is skipped, and the
// checks that depend on the request or the clock (start, expiry, IP,
// protocol, permissions, key ranges) still run each time.
//
// The zero value is empty and ready; it is safe for concurrent use.
type sigCache struct {
	mu sync.Mutex
	// verified maps a string to sign and its signature, joined by a byte
	// no signed field or base64 signature holds, to the key that signed
	// them.
	verified map[string][]byte
}

func sigCacheKey(toSign, sig string) string {
	return toSign + "\x00" + sig
}

// lookup reports whether sig over toSign was verified under one of keys.
// A key since removed from the account no longer counts.
func (c *sigCache) lookup(keys [][]byte, toSign, sig string) bool {
	c.mu.Lock()
	k, ok := c.verified[sigCacheKey(toSign, sig)]
	c.mu.Unlock()
	if !ok {
		return false
	}
	for _, have := range keys {
		if bytes.Equal(have, k) {
			return true
		}
	}
	return false
}

// add remembers that key signed toSign with sig. When the cache is full
// it forgets an arbitrary entry first, so it never holds more than
// sigCacheSize.
func (c *sigCache) add(key []byte, toSign, sig string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.verified == nil {
		c.verified = make(map[string][]byte)
	}
	id := sigCacheKey(toSign, sig)
	if _, ok := c.verified[id]; !ok && len(c.verified) >= sigCacheSize {
		for old := range c.verified {
			delete(c.verified, old)
			break
		}
	}
	c.verified[id] = key
}

// len is how many signatures c remembers.
func (c *sigCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.verified)
}
