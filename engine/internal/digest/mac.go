package digest

// mac is HMAC (RFC 2104) over SHA-256.
type mac struct {
	inner, outer *blocks
	ipad, opad   [blockSize]byte
}

func newHMAC(key []byte) *mac {
	m := &mac{inner: newSHA256(), outer: newSHA256()}
	if len(key) > blockSize {
		// A key longer than a block is replaced by its digest.
		m.outer.Write(key)
		key = m.outer.Sum(nil)
		m.outer.Reset()
	}
	copy(m.ipad[:], key)
	copy(m.opad[:], key)
	for i := range m.ipad {
		m.ipad[i] ^= 0x36
		m.opad[i] ^= 0x5c
	}
	m.inner.Write(m.ipad[:])
	return m
}

func (m *mac) Write(p []byte) (int, error) { return m.inner.Write(p) }
func (m *mac) Size() int                   { return SHA256Size }
func (m *mac) BlockSize() int              { return blockSize }

func (m *mac) Reset() {
	m.inner.Reset()
	m.inner.Write(m.ipad[:])
}

// Sum appends the MAC of what was written to b, leaving the state as it
// was.
func (m *mac) Sum(b []byte) []byte {
	var in [SHA256Size]byte
	m.outer.Reset()
	m.outer.Write(m.opad[:])
	m.outer.Write(m.inner.Sum(in[:0]))
	return m.outer.Sum(b)
}

// equal reports whether a and b hold the same bytes, in a time that
// depends on their lengths only.
func equal(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	var v byte
	for i := range a {
		v |= a[i] ^ b[i]
	}
	return v == 0
}
