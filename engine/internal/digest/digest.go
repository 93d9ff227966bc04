// Package digest computes the two digests the storage protocols need: MD5,
// for Content-MD5, and HMAC-SHA256, for Shared Key and SAS signatures.
//
// Native builds use crypto/md5 and crypto/sha256, with their assembly.
// Under GOOS=js the package computes them itself: importing either of
// those packages links the FIPS 140 module's self-tests, and with them
// AES, SHA-3, SHA-512 and a DRBG, none of which the browser or the Worker
// uses, at a size the browser build's budget cannot carry. Both builds
// make HMAC-SHA256 here, over their SHA-256, and both are tested against
// the standard library's.
package digest

// MD5Size is the size of an MD5 checksum in bytes.
const MD5Size = 16

// SHA256Size is the size of an HMAC-SHA256 in bytes.
const SHA256Size = 32
