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

func sum256(p []byte) [SHA256Size]byte { return ownSum256(p) }
