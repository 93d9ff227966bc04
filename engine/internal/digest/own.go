//go:build js

package digest

import "hash"

// NewMD5 returns a hash.Hash computing MD5.
func NewMD5() hash.Hash { return newMD5() }

// MD5 returns the MD5 checksum of data.
func MD5(data []byte) [MD5Size]byte {
	d := newMD5()
	d.Write(data)
	var sum [MD5Size]byte
	d.Sum(sum[:0])
	return sum
}

// NewHMACSHA256 returns a hash.Hash computing HMAC-SHA256 under key.
func NewHMACSHA256(key []byte) hash.Hash { return newHMAC(key) }

// Equal compares two MACs for equality without leaking timing
// information, as hmac.Equal does.
func Equal(mac1, mac2 []byte) bool { return equal(mac1, mac2) }
