package digest

// Equal reports whether a and b hold the same bytes, in a time that
// depends on their lengths only, as hmac.Equal does; b may be a string (a
// signature as sent, compared without a copy).
func Equal[B string | []byte](a []byte, b B) bool { return equal(a, b) }

func equal[B string | []byte](a []byte, b B) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := range a {
		v |= a[i] ^ b[i]
	}
	return v == 0
}

// shortMessage is the longest message HMACSHA256 hashes from a buffer on
// the stack: a Shared Key string to sign is a few hundred bytes.
const shortMessage = 512

// HMACSHA256 returns the HMAC-SHA256 of msg under key. A message of up
// to shortMessage bytes (a Shared Key string to sign) is hashed from a
// buffer on the stack, so that checking a signature allocates nothing.
func HMACSHA256[M string | []byte](key []byte, msg M) [SHA256Size]byte {
	var k [blockSize]byte
	if len(key) > blockSize {
		// A key longer than a block is replaced by its digest.
		d := sum256(key)
		copy(k[:], d[:])
	} else {
		copy(k[:], key)
	}
	var buf [blockSize + shortMessage]byte
	in := buf[:]
	if len(msg) > shortMessage {
		in = make([]byte, blockSize+len(msg))
	}
	for i := range k {
		in[i] = k[i] ^ 0x36
	}
	n := copy(in[blockSize:], msg)
	inner := sum256(in[:blockSize+n])
	var out [blockSize + SHA256Size]byte
	for i := range k {
		out[i] = k[i] ^ 0x5c
	}
	copy(out[blockSize:], inner[:])
	return sum256(out[:])
}
