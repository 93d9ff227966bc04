package digest

import (
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"math/rand/v2"
	"testing"
)

// input returns n bytes that differ from one length to the next.
func input(n int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// lengths cover every padding case (lengths around 55, 56 and 64 within
// a block) and several blocks.
func lengths() []int {
	var ls []int
	for n := range 200 {
		ls = append(ls, n)
	}
	return append(ls, 1000, 4095, 4096, 4097, 65536+13)
}

// check writes data to got in uneven pieces, after a Reset, and compares
// its Sum with want's, fed the same; for short data also each Sum along
// the way, which must leave the state as it was.
func check(t *testing.T, name string, got, want hash.Hash, data []byte) {
	t.Helper()
	for _, piece := range []int{1, 3, 63, 64, 65, len(data) + 1} {
		got.Reset()
		want.Reset()
		for rest := data; len(rest) > 0; {
			n := min(piece, len(rest))
			got.Write(rest[:n])
			want.Write(rest[:n])
			rest = rest[n:]
			if len(data) > 256 {
				continue
			}
			if g, w := got.Sum([]byte("prefix")), want.Sum([]byte("prefix")); !bytes.Equal(g, w) {
				t.Fatalf("%s of %d bytes in pieces of %d: %x, want %x", name, len(data), piece, g, w)
			}
		}
		if g, w := got.Sum(nil), want.Sum(nil); !bytes.Equal(g, w) {
			t.Fatalf("%s of %d bytes in pieces of %d: %x, want %x", name, len(data), piece, g, w)
		}
	}
	if got.Size() != want.Size() || got.BlockSize() != want.BlockSize() {
		t.Errorf("%s: Size %d BlockSize %d, want %d and %d", name, got.Size(), got.BlockSize(), want.Size(), want.BlockSize())
	}
}

func TestOwnMD5(t *testing.T) {
	for _, n := range lengths() {
		check(t, "MD5", newMD5(), md5.New(), input(n))
	}
}

func TestOwnSHA256(t *testing.T) {
	for _, n := range lengths() {
		check(t, "SHA-256", newSHA256(), sha256.New(), input(n))
		if got, want := ownSum256(input(n)), sha256.Sum256(input(n)); got != want {
			t.Fatalf("ownSum256 of %d bytes: %x, want %x", n, got, want)
		}
	}
}

// TestKnownAnswers holds the exported functions, whichever implementation
// the build has, to the RFCs' published values.
func TestKnownAnswers(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "d41d8cd98f00b204e9800998ecf8427e"},
		{"abc", "900150983cd24fb0d6963f7d28e17f72"},
		{"12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"},
	} {
		sum := MD5([]byte(c.in))
		h := NewMD5()
		h.Write([]byte(c.in))
		if got := hex.EncodeToString(sum[:]); got != c.want || !bytes.Equal(h.Sum(nil), sum[:]) {
			t.Errorf("MD5(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	// RFC 4231, test cases 2 and 6.
	for _, c := range []struct{ key, in, want string }{
		{"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
		{string(bytes.Repeat([]byte{0xaa}, 131)), "Test Using Larger Than Block-Size Key - Hash Key First", "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
	} {
		if mac := HMACSHA256([]byte(c.key), c.in); hex.EncodeToString(mac[:]) != c.want {
			t.Errorf("HMAC-SHA256(%q) = %x, want %s", c.in, mac, c.want)
		}
	}
}

func TestEqual(t *testing.T) {
	a := []byte("0123456789abcdef")
	for _, c := range []struct {
		b    []byte
		want bool
	}{
		{[]byte("0123456789abcdef"), true},
		{[]byte("0123456789abcdeF"), false},
		{[]byte("1123456789abcdef"), false},
		{[]byte("0123456789abcde"), false},
		{nil, false},
	} {
		if got := Equal(a, c.b); got != c.want {
			t.Errorf("Equal(%q, %q) = %t", a, c.b, got)
		}
		if got := Equal(a, string(c.b)); got != c.want {
			t.Errorf("Equal(%q, %q as a string) = %t", a, c.b, got)
		}
	}
	if !Equal(nil, []byte{}) || !Equal(nil, "") {
		t.Error("nil and empty differ")
	}
}

// HMACSHA256 agrees with crypto/hmac for keys and messages of every
// length around the block size and the stack buffer, as strings and as
// bytes.
func TestHMACSHA256(t *testing.T) {
	for _, keyLen := range []int{0, 1, 32, 63, 64, 65, 200} {
		key := input(1000 + keyLen)[:keyLen]
		for _, n := range append(lengths(), shortMessage-1, shortMessage, shortMessage+1) {
			msg := input(n)
			m := hmac.New(sha256.New, key)
			m.Write(msg)
			want := m.Sum(nil)
			for name, got := range map[string][SHA256Size]byte{
				"HMACSHA256([]byte)": HMACSHA256(key, msg),
				"HMACSHA256(string)": HMACSHA256(key, string(msg)),
			} {
				if !bytes.Equal(got[:], want) {
					t.Fatalf("%s, key of %d bytes, message of %d: %x, want %x", name, keyLen, n, got, want)
				}
			}
		}
	}
}

// A Shared Key string to sign, a few hundred bytes, is signed without an
// allocation.
func TestHMACSHA256DoesNotAllocate(t *testing.T) {
	key, msg := input(64), string(input(300))
	buf := []byte(msg)
	for name, f := range map[string]func(){
		"HMACSHA256(string)": func() { HMACSHA256(key, msg) },
		"HMACSHA256([]byte)": func() { HMACSHA256(key, buf) },
		"own SHA-256":        func() { ownSum256(buf) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s: %.0f allocations, want none", name, n)
		}
	}
}
