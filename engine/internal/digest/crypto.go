//go:build !js

package digest

import (
	"crypto/md5"
	"crypto/sha256"
	"hash"
)

// NewMD5 returns a hash.Hash computing MD5.
func NewMD5() hash.Hash { return md5.New() }

// MD5 returns the MD5 checksum of data.
func MD5(data []byte) [MD5Size]byte { return md5.Sum(data) }

func sum256(p []byte) [SHA256Size]byte { return sha256.Sum256(p) }
