//go:build !js

package digest

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"hash"
)

// NewMD5 returns a hash.Hash computing MD5.
func NewMD5() hash.Hash { return md5.New() }

// MD5 returns the MD5 checksum of data.
func MD5(data []byte) [MD5Size]byte { return md5.Sum(data) }

// NewHMACSHA256 returns a hash.Hash computing HMAC-SHA256 under key.
func NewHMACSHA256(key []byte) hash.Hash { return hmac.New(sha256.New, key) }

// Equal compares two MACs for equality without leaking timing
// information, as hmac.Equal does.
func Equal(mac1, mac2 []byte) bool { return hmac.Equal(mac1, mac2) }
