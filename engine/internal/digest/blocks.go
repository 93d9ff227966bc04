package digest

import "encoding/binary"

// blockSize is the block size of both MD5 and SHA-256.
const blockSize = 64

// blocks is the Merkle–Damgård frame MD5 and SHA-256 share: input
// gathered into 64-byte blocks, each folded into the state h, and a
// padding of 0x80, zeros and the message's length in bits. MD5 writes its
// words and length little-endian, SHA-256 big-endian.
type blocks struct {
	h     [8]uint32
	buf   [blockSize]byte
	nbuf  int
	n     uint64 // bytes written
	sha   bool   // SHA-256, not MD5
	words int    // words of h in the sum
}

var (
	md5Init    = [8]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
	sha256Init = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
)

func newMD5() *blocks    { return &blocks{h: md5Init, words: 4} }
func newSHA256() *blocks { return &blocks{h: sha256Init, sha: true, words: 8} }

func (d *blocks) Size() int      { return 4 * d.words }
func (d *blocks) BlockSize() int { return blockSize }

func (d *blocks) Reset() {
	d.h, d.nbuf, d.n = md5Init, 0, 0
	if d.sha {
		d.h = sha256Init
	}
}

func (d *blocks) block(p []byte) {
	if d.sha {
		sha256Block(&d.h, p)
	} else {
		md5Block(&d.h, p)
	}
}

func (d *blocks) Write(p []byte) (int, error) {
	n := len(p)
	d.n += uint64(n)
	if d.nbuf > 0 {
		c := copy(d.buf[d.nbuf:], p)
		d.nbuf += c
		p = p[c:]
		if d.nbuf < blockSize {
			return n, nil
		}
		d.block(d.buf[:])
		d.nbuf = 0
	}
	if full := len(p) &^ (blockSize - 1); full > 0 {
		d.block(p[:full])
		p = p[full:]
	}
	d.nbuf = copy(d.buf[:], p)
	return n, nil
}

// Sum appends the digest of what was written to b, leaving the state as
// it was.
func (d *blocks) Sum(b []byte) []byte {
	f := *d
	var pad [blockSize + 8]byte
	pad[0] = 0x80
	k := (blockSize + 56 - int(f.n%blockSize)) % blockSize
	if k == 0 {
		k = blockSize
	}
	bits := f.n << 3
	if f.sha {
		binary.BigEndian.PutUint64(pad[k:], bits)
	} else {
		binary.LittleEndian.PutUint64(pad[k:], bits)
	}
	f.Write(pad[:k+8])
	for _, w := range f.h[:f.words] {
		if f.sha {
			b = binary.BigEndian.AppendUint32(b, w)
		} else {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
	}
	return b
}
