package digest

import (
	"encoding/binary"
	"math/bits"
)

// md5K are the 64 constants of RFC 1321, floor(abs(sin(i+1)) * 2^32).
var md5K = [64]uint32{
	0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
	0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
	0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
	0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
	0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
	0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
	0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
	0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
}

// md5Block folds the 64-byte blocks of p into h.
func md5Block(h *[8]uint32, p []byte) {
	var m [16]uint32
	for ; len(p) >= blockSize; p = p[blockSize:] {
		for i := range m {
			m[i] = binary.LittleEndian.Uint32(p[4*i:])
		}
		a, b, c, d := h[0], h[1], h[2], h[3]
		// Each round's steps come four at a time, rotating their
		// variables, so that every rotation is by a constant.
		for i := 0; i < 16; i += 4 {
			a = b + bits.RotateLeft32((b&c|^b&d)+a+md5K[i]+m[i], 7)
			d = a + bits.RotateLeft32((a&b|^a&c)+d+md5K[i+1]+m[i+1], 12)
			c = d + bits.RotateLeft32((d&a|^d&b)+c+md5K[i+2]+m[i+2], 17)
			b = c + bits.RotateLeft32((c&d|^c&a)+b+md5K[i+3]+m[i+3], 22)
		}
		for i := 16; i < 32; i += 4 {
			a = b + bits.RotateLeft32((d&b|^d&c)+a+md5K[i]+m[(5*i+1)&15], 5)
			d = a + bits.RotateLeft32((c&a|^c&b)+d+md5K[i+1]+m[(5*i+6)&15], 9)
			c = d + bits.RotateLeft32((b&d|^b&a)+c+md5K[i+2]+m[(5*i+11)&15], 14)
			b = c + bits.RotateLeft32((a&c|^a&d)+b+md5K[i+3]+m[(5*i)&15], 20)
		}
		for i := 32; i < 48; i += 4 {
			a = b + bits.RotateLeft32((b^c^d)+a+md5K[i]+m[(3*i+5)&15], 4)
			d = a + bits.RotateLeft32((a^b^c)+d+md5K[i+1]+m[(3*i+8)&15], 11)
			c = d + bits.RotateLeft32((d^a^b)+c+md5K[i+2]+m[(3*i+11)&15], 16)
			b = c + bits.RotateLeft32((c^d^a)+b+md5K[i+3]+m[(3*i+14)&15], 23)
		}
		for i := 48; i < 64; i += 4 {
			a = b + bits.RotateLeft32((c^(b|^d))+a+md5K[i]+m[(7*i)&15], 6)
			d = a + bits.RotateLeft32((b^(a|^c))+d+md5K[i+1]+m[(7*i+7)&15], 10)
			c = d + bits.RotateLeft32((a^(d|^b))+c+md5K[i+2]+m[(7*i+14)&15], 15)
			b = c + bits.RotateLeft32((d^(c|^a))+b+md5K[i+3]+m[(7*i+21)&15], 21)
		}
		h[0] += a
		h[1] += b
		h[2] += c
		h[3] += d
	}
}
