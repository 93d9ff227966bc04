// Package jsontext reads the tokens of JSON text (RFC 8259): white space,
// strings, numbers, literals, and whole values to step over. Each reader
// takes the text and an offset and returns the offset after what it
// read, or, with an error, the offset at which the error was found. The
// packages that read JSON keep their own structure and their own error
// messages while sharing one reading of the syntax.
//
// It imports nothing of encoding/json: the browser build links it, and
// encoding/json with the reflection it needs would be a fifth of that
// binary.
package jsontext

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// A SyntaxError says what is wrong with the text and where. Every error
// this package returns is a *SyntaxError, so that callers can word it in
// their own format.
type SyntaxError struct {
	Msg    string // what was wrong, e.g. "unterminated string"
	Offset int    // the byte offset at which it was found
}

func (e *SyntaxError) Error() string {
	return e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

func fail(msg string, offset int) error {
	return &SyntaxError{Msg: msg, Offset: offset}
}

// SkipSpace returns the offset of the first byte at or after i that is
// not JSON white space.
func SkipSpace(src []byte, i int) int {
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// PlainEnd returns the offset of the first byte at or after i that a
// string's text cannot hold as it stands: a quote, a backslash, a control
// character or the first byte of a multi-byte UTF-8 sequence. Text up to
// there decodes to itself. It reads eight bytes at a time: entity bodies
// are mostly strings of plain text.
func PlainEnd(src []byte, i int) int {
	for ; i+8 <= len(src); i += 8 {
		if m := NotPlain8(binary.LittleEndian.Uint64(src[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(src) {
		if c := src[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return i
		}
		i++
	}
	return i
}

// NotPlain8 marks the bytes of w, eight bytes read little-endian, that
// PlainEnd stops at, by setting the high bit of each. The lowest byte it
// marks is the first such byte; a byte above it may be marked that is
// not one (a borrow carries into it), so only the lowest mark, or none,
// may be relied on.
func NotPlain8(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zeroIn := func(v uint64) uint64 { return (v - ones) & ^v & highs }
	control := (w - 0x20*ones) & ^w & highs // a byte below 0x20
	return control | w&highs | zeroIn(w^'"'*ones) | zeroIn(w^'\\'*ones)
}

// AppendString decodes the string whose opening quote is at src[i],
// appends its text to dst, and returns dst and the offset after the
// closing quote. It reads as encoding/json does: invalid UTF-8 and
// unpaired surrogates become U+FFFD; control characters, unknown escapes
// and malformed \u escapes are errors.
func AppendString(dst, src []byte, i int) ([]byte, int, error) {
	i++ // the opening quote
	for {
		start := i
		i = PlainEnd(src, i)
		dst = append(dst, src[start:i]...)
		if i >= len(src) {
			return dst, i, fail("unterminated string", i)
		}
		switch c := src[i]; {
		case c == '"':
			return dst, i + 1, nil
		case c < 0x20:
			return dst, i, fail("control character in a string", i)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(src[i:])
			dst = utf8.AppendRune(dst, r) // U+FFFD for an invalid byte
			i += size
		case i+1 >= len(src): // a backslash, last
			return dst, i, fail("unterminated escape", i)
		default:
			e := src[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				dst = append(dst, e)
			case 'b':
				dst = append(dst, '\b')
			case 'f':
				dst = append(dst, '\f')
			case 'n':
				dst = append(dst, '\n')
			case 'r':
				dst = append(dst, '\r')
			case 't':
				dst = append(dst, '\t')
			case 'u':
				var err error
				if dst, i, err = appendUnicode(dst, src, i); err != nil {
					return dst, i, err
				}
			default:
				return dst, i, fail(`invalid escape \`+string(rune(e)), i)
			}
		}
	}
}

// appendUnicode decodes the \u escape whose hex digits start at src[i].
func appendUnicode(dst, src []byte, i int) ([]byte, int, error) {
	r, ok := hex4(src, i)
	if !ok {
		return dst, i, fail(`malformed \u escape`, i)
	}
	i += 4
	if utf16.IsSurrogate(r) {
		// A high surrogate pairs with an escaped low one that follows;
		// any other half stands alone and is U+FFFD.
		pair := utf8.RuneError
		if i+1 < len(src) && src[i] == '\\' && src[i+1] == 'u' {
			low, ok := hex4(src, i+2)
			if !ok {
				return dst, i + 2, fail(`malformed \u escape`, i+2)
			}
			if dec := utf16.DecodeRune(r, low); dec != utf8.RuneError {
				pair = dec
				i += 6
			}
		}
		r = pair
	}
	return utf8.AppendRune(dst, r), i, nil
}

// hex4 reads the four hex digits of a \u escape at src[i].
func hex4(src []byte, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var r rune
	for _, c := range src[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Number returns the offset after the number at src[i], which has the
// form -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. What follows the
// number is the caller's to check.
func Number(src []byte, i int) (int, error) {
	if i < len(src) && src[i] == '-' {
		i++
	}
	if i < len(src) && src[i] == '0' {
		i++
	} else if j := digits(src, i); j == i {
		return i, fail("malformed number", i)
	} else {
		i = j
	}
	if i < len(src) && src[i] == '.' {
		j := digits(src, i+1)
		if j == i+1 {
			return j, fail("malformed number", j)
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(src, i)
		if j == i {
			return i, fail("malformed number", i)
		}
		i = j
	}
	return i, nil
}

func digits(src []byte, i int) int {
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// Literal returns the offset after word (true, false or null) at src[i].
func Literal(src []byte, i int, word string) (int, error) {
	if len(src)-i < len(word) || string(src[i:i+len(word)]) != word {
		return i, fail("unexpected literal", i)
	}
	return i + len(word), nil
}

// SkipValue returns the offset after the value that starts at or after
// src[i], white space first, checking its syntax all through. Objects and
// arrays nest to any depth without deepening the stack.
func SkipValue(src []byte, i int) (int, error) {
	var (
		closers []byte // the brackets to close, innermost last
		text    []byte // scratch for the strings, whose text is not kept
		err     error
	)
	for {
		i = SkipSpace(src, i)
		if i >= len(src) {
			return i, fail("unexpected end", i)
		}
		switch c := src[i]; {
		case c == '{' || c == '[':
			closer := byte('}')
			if c == '[' {
				closer = ']'
			}
			i = SkipSpace(src, i+1)
			if i < len(src) && src[i] == closer {
				i++
				break
			}
			closers = append(closers, closer)
			if closer == '}' {
				if text, i, err = skipName(text, src, i); err != nil {
					return i, err
				}
			}
			continue
		case c == '"':
			text, i, err = AppendString(text[:0], src, i)
		case c == 't':
			i, err = Literal(src, i, "true")
		case c == 'f':
			i, err = Literal(src, i, "false")
		case c == 'n':
			i, err = Literal(src, i, "null")
		case c == '-' || c >= '0' && c <= '9':
			i, err = Number(src, i)
		default:
			return i, fail("expected a value", i)
		}
		if err != nil {
			return i, err
		}
		// A value is done: close what ends with it, then go on to the
		// next element of the innermost open object or array.
		for {
			if len(closers) == 0 {
				return i, nil
			}
			closer := closers[len(closers)-1]
			i = SkipSpace(src, i)
			if i >= len(src) {
				return i, fail("unexpected end", i)
			}
			if src[i] == closer {
				closers = closers[:len(closers)-1]
				i++
				continue
			}
			if src[i] != ',' {
				return i, fail("expected ',' or '"+string(rune(closer))+"'", i)
			}
			i++
			if closer == '}' {
				if text, i, err = skipName(text, src, i); err != nil {
					return i, err
				}
			}
			break
		}
	}
}

// skipName steps over a member's name and its colon, decoding the name
// into text, which it returns for reuse.
func skipName(text, src []byte, i int) ([]byte, int, error) {
	i = SkipSpace(src, i)
	if i >= len(src) || src[i] != '"' {
		return text, i, fail("expected a member name", i)
	}
	text, i, err := AppendString(text[:0], src, i)
	if err != nil {
		return text, i, err
	}
	i = SkipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return text, i, fail("expected ':'", i)
	}
	return text, i + 1, nil
}
