package jsontext

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The lexer replaces encoding/json in the builds that cannot afford it,
// so encoding/json is its oracle: what one accepts the other accepts, and
// a string decodes to the same text.

var seeds = []string{
	`""`, `"abc"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u20AC"`, `"\ud83d\ude80"`, `"\ud83d"`, `"\ude80x"`,
	`"\ud83d\u0041"`, `"\ud83dx"`, `"\ud83d\u12"`, "\"caf\xc3\xa9\"", "\"bad\xff\xfebytes\"", "\"\x01\"", `"\x"`,
	`"\u12"`, `"\u12G4"`, `"abc`, `"`, `"\`, `"\"`, `"\%"`,
	`0`, `-0`, `12`, `-12.5`, `1e10`, `1E+3`, `2.5e-3`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `- 1`,
	`true`, `false`, `null`, `tru`, `nul`, `True`,
	`{}`, `[]`, ` { "a" : [ 1 , "x" , { } , [ ] , null ] } `, `{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{1:2}`,
	`[1 2]`, `{"a":1]`, `[1}`, `[[[[[]]]]]`, `[[[[`, `{"a":{"b":{"c":"\u0000"}}}`, `[`, `]`, `,`, ``,
}

// FuzzSkipValue also runs its seeds, and the corpus in testdata, in every
// go test.
func FuzzSkipValue(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkAgainstEncodingJSON(t, text)
	})
}

func checkAgainstEncodingJSON(t *testing.T, text string) {
	t.Helper()
	src := []byte(text)
	end, err := SkipValue(src, 0)
	valid := err == nil && SkipSpace(src, end) == len(src)
	if valid != json.Valid(src) {
		t.Fatalf("SkipValue(%q): end %d, err %v; encoding/json valid %v", text, end, err, json.Valid(src))
	}
	if err != nil {
		var se *SyntaxError
		if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(src) {
			t.Fatalf("SkipValue(%q): error %v is not a SyntaxError within the text", text, err)
		}
	}
	start := SkipSpace(src, 0)
	if start == len(src) {
		return
	}
	switch c := src[start]; {
	case c == '"':
		got, end, err := AppendString([]byte("kept"), src, start)
		if err != nil {
			// No string at all may start here.
			for k := start + 2; k <= len(src); k++ {
				if src[k-1] == '"' && json.Valid(src[start:k]) {
					t.Fatalf("AppendString(%q): %v, but encoding/json reads %q", text, err, src[start:k])
				}
			}
			return
		}
		var want string
		if err := json.Unmarshal(src[start:end], &want); err != nil {
			t.Fatalf("AppendString(%q) read %q, which encoding/json rejects: %v", text, src[start:end], err)
		}
		if string(got) != "kept"+want {
			t.Fatalf("AppendString(%q) = %q, encoding/json %q", text, got, want)
		}
	case c == '-' || c >= '0' && c <= '9':
		end, err := Number(src, start)
		var n json.Number
		wantErr := json.Unmarshal(src[start:end], &n)
		if err == nil != (wantErr == nil) {
			t.Fatalf("Number(%q) = %d, %v; encoding/json %v", text, end, err, wantErr)
		}
		if err == nil && end < len(src) && strings.IndexByte("0123456789.eE+-", src[end]) >= 0 && json.Valid(src[start:end+1]) {
			t.Fatalf("Number(%q) stopped at %d inside the number", text, end)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		text string
		msg  string
		at   int
	}{
		{`"abc`, "unterminated string", 4},
		{"\"a\x01\"", "control character in a string", 2},
		{`"ab\`, "unterminated escape", 3},
		{`"\q"`, `invalid escape \q`, 3},
		{`"\u12G4"`, `malformed \u escape`, 3},
		{`"\ud83d\u12"`, `malformed \u escape`, 9},
		{`-x`, "malformed number", 1},
		{`1.e5`, "malformed number", 2},
		{`1e+`, "malformed number", 3},
		{`nul`, "unexpected literal", 0},
		{`[1 2]`, "expected ',' or ']'", 3},
		{`{"a" 1}`, "expected ':'", 5},
		{`{1:2}`, "expected a member name", 1},
		{`[1,`, "unexpected end", 3},
		{`]`, "expected a value", 0},
	} {
		_, err := SkipValue([]byte(c.text), 0)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Msg != c.msg || se.Offset != c.at {
			t.Errorf("SkipValue(%q) = %v, want %q at offset %d", c.text, err, c.msg, c.at)
		}
	}
}

func TestSkipValueStopsAfterTheValue(t *testing.T) {
	src := []byte(`  {"a":[1,"]}"]} , next`)
	end, err := SkipValue(src, 0)
	if err != nil || string(src[end:]) != " , next" {
		t.Fatalf("SkipValue = %d, %v; rest %q", end, err, src[end:])
	}
}

func TestSkipValueDeepNesting(t *testing.T) {
	const depth = 1 << 20
	src := append(bytes.Repeat([]byte{'['}, depth), bytes.Repeat([]byte{']'}, depth)...)
	if end, err := SkipValue(src, 0); err != nil || end != len(src) {
		t.Fatalf("SkipValue of %d nested arrays = %d, %v", depth, end, err)
	}
}

// plainEndByByte is PlainEnd as a byte at a time reads it.
func plainEndByByte(src []byte, i int) int {
	for ; i < len(src); i++ {
		if c := src[i]; c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return i
		}
	}
	return i
}

// PlainEnd reads eight bytes at a time, where a byte that stops it may
// make the test mark bytes above it too: every byte value at every place
// in and around an eight-byte word, then every pair of the bytes at the
// edges of the test's ranges, read from every offset.
func TestPlainEndEveryByteEverywhere(t *testing.T) {
	check := func(b []byte) {
		t.Helper()
		for i := 0; i <= len(b); i++ {
			if got, want := PlainEnd(b, i), plainEndByByte(b, i); got != want {
				t.Fatalf("PlainEnd(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
	fill := func() []byte { return []byte(strings.Repeat("abcdefgh", 3)[:19]) }
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 19; pos++ {
			b := fill()
			b[pos] = byte(c)
			check(b)
		}
	}
	edges := []byte{0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7f, 0x80, 0xff}
	for _, c1 := range edges {
		for _, c2 := range edges {
			for p1 := 0; p1 < 19; p1++ {
				for p2 := p1 + 1; p2 < 19; p2++ {
					b := fill()
					b[p1], b[p2] = c1, c2
					check(b)
				}
			}
		}
	}
}
