package edm

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// quotedByRule is AppendQuoted one byte at a time, with no fast path: the
// reference the eight-byte skip must agree with.
func quotedByRule(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\ufffd`)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[r>>4])
			b.WriteByte(hexDigits[r&0xF])
		case r == '\u2028' || r == '\u2029':
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xF])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Every byte value, at every place in and around an eight-byte word.
func TestAppendQuotedEveryByteEverywhere(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := []byte(strings.Repeat("abcdefgh", 3)[:19])
			b[pos] = byte(c)
			s := string(b)
			got := string(AppendQuoted(nil, s))
			if want := quotedByRule(s); got != want {
				t.Fatalf("byte %#x at %d: got %s, want %s", c, pos, got, want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("byte %#x at %d: %s is not JSON: %v", c, pos, got, err)
			}
			if utf8.ValidString(s) && back != s {
				t.Fatalf("byte %#x at %d: round trip %q != %q", c, pos, back, s)
			}
		}
	}
	for _, s := range []string{"", "é", "line\u2028sep", strings.Repeat("x", 64) + "\xff", "\"\\\"\\\"\\\"\\\""} {
		if got, want := string(AppendQuoted(nil, s)), quotedByRule(s); got != want {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	}
}

func BenchmarkAppendQuoted(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20)
	buf := make([]byte, 0, 2048)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendQuoted(buf[:0], s)
	}
}

// A string IsPlain calls plain must quote as itself, so writing it without
// the escaping pass changes nothing; every byte that needs more than
// quotes must make a string not plain.
func TestIsPlainEveryByteEverywhere(t *testing.T) {
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := []byte(strings.Repeat("abcdefgh", 3)[:19])
			b[pos] = byte(c)
			s := string(b)
			asIs := quotedByRule(s) == `"`+s+`"` && utf8.ValidString(s)
			wantPlain := asIs && c < utf8.RuneSelf
			if got := IsPlain(s); got != wantPlain {
				t.Fatalf("byte %#x at %d: IsPlain %v, want %v", c, pos, got, wantPlain)
			}
			if IsPlain(s) {
				if got, want := string(AppendJSON(nil, PlainStringValue(s))), quotedByRule(s); got != want {
					t.Fatalf("byte %#x at %d: plain value writes %s, want %s", c, pos, got, want)
				}
			}
		}
	}
	if !IsPlain("") || IsPlain("é") {
		t.Fatal(`"" must be plain and "é" not`)
	}
	if !Equal(PlainStringValue("a"), StringValue("a")) || Equal(PlainStringValue("a"), StringValue("b")) {
		t.Fatal("a plain string must equal the same text, known plain or not")
	}
}
