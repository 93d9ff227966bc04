package edm

import (
	"encoding/base64"
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine/internal/jsontext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// NeedsAnnotation reports whether the JSON wire form of v needs a
// "Prop@odata.type" annotation for a client to read its type back: the
// types a bare JSON value cannot carry (Int64, DateTime, Guid, Binary) and
// the Doubles written as strings (NaN, ±Infinity).
func (v Value) NeedsAnnotation() bool {
	switch v.k {
	case Int64, DateTime, Guid, Binary:
		return true
	case Double:
		f := v.Float()
		return math.IsNaN(f) || math.IsInf(f, 0)
	}
	return false
}

// AppendJSON appends v's JSON wire form: strings escaped, Int32 bare,
// Int64 as a quoted decimal, Doubles always with a decimal point or an
// exponent (so clients do not read 3.0 as an Int32) and the non-finite
// ones as "NaN", "Infinity" and "-Infinity", date-times, Guids and
// base64 binaries quoted.
func AppendJSON(dst []byte, v Value) []byte {
	switch v.k {
	case String:
		if v.plain {
			dst = append(dst, '"')
			dst = append(dst, v.s...)
			return append(dst, '"')
		}
		return AppendQuoted(dst, v.s)
	case Int32:
		return strconv.AppendInt(dst, v.Int(), 10)
	case Int64:
		dst = append(dst, '"')
		dst = strconv.AppendInt(dst, v.Int(), 10)
		return append(dst, '"')
	case Double:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return append(dst, `"NaN"`...)
		case math.IsInf(f, 1):
			return append(dst, `"Infinity"`...)
		case math.IsInf(f, -1):
			return append(dst, `"-Infinity"`...)
		}
		start := len(dst)
		dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
		for _, c := range dst[start:] {
			if c == '.' || c == 'e' || c == 'E' {
				return dst
			}
		}
		return append(dst, ".0"...)
	case Boolean:
		return strconv.AppendBool(dst, v.Bool())
	case DateTime:
		dst = append(dst, '"')
		dst = appendDateTime(dst, v.Ticks())
		return append(dst, '"')
	case Guid:
		dst = append(dst, '"')
		dst = append(dst, v.s...)
		return append(dst, '"')
	case Binary:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, []byte(v.s))
		return append(dst, '"')
	}
	return append(dst, "null"...)
}

const hexDigits = "0123456789abcdef"

// plain8 reports whether none of the eight bytes in w needs escaping in
// JSON or decoding as UTF-8: each is in 0x20..0x7F and is neither '"'
// nor '\\'.
func plain8(w uint64) bool { return jsontext.NotPlain8(w) == 0 }

// IsPlain reports whether s is ASCII from 0x20 up, without '"' or '\\':
// text that JSON carries as it is, between quotes, and valid UTF-8.
func IsPlain(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plain8(binary.LittleEndian.Uint64([]byte(s[i : i+8]))) {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// AppendQuoted appends s as a JSON string. Invalid UTF-8 becomes U+FFFD,
// so the output is always valid JSON.
func AppendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: stored strings are mostly ASCII
		// text with nothing to escape, and a page of entities is mostly
		// strings.
		for i+8 <= len(s) && plain8(binary.LittleEndian.Uint64([]byte(s[i:i+8]))) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// DecodeJSON reads one property value from its JSON wire form. raw is the
// JSON value as it stands in the body; typeName is the property's
// "@odata.type" annotation, or "" when it has none. Without one, a string
// is an Edm.String, true and false Edm.Boolean, an integer within the
// Int32 range Edm.Int32, and any other number Edm.Double (as the service's
// OData reader does). A value that does not fit its annotation, an
// unknown annotation, and JSON null, objects and arrays are InvalidInput.
func DecodeJSON(raw []byte, typeName string) (Value, error) {
	if len(raw) == 0 {
		return Value{}, svcerr.With(svcerr.InvalidInput, "A property value is missing.")
	}
	kind := Invalid
	if typeName != "" {
		if kind = KindOf(typeName); kind == Invalid {
			return Value{}, svcerr.With(svcerr.InvalidInput, "The type name '"+typeName+"' is not a known Edm type.")
		}
	}
	switch c := raw[0]; {
	case c == '"':
		s, ok := unquote(raw)
		if !ok {
			return Value{}, svcerr.With(svcerr.InvalidInput, "A property value is not valid JSON.")
		}
		return fromString(s, kind)
	case c == 't' || c == 'f':
		v, err := ParseBool(string(raw))
		if err != nil || kind != Invalid && kind != Boolean {
			return Value{}, mismatch(raw, kind)
		}
		return v, nil
	case c == '-' || c >= '0' && c <= '9':
		if !validNumber(raw) {
			return Value{}, svcerr.With(svcerr.InvalidInput, "A property value is not valid JSON.")
		}
		return fromNumber(string(raw), kind)
	}
	return Value{}, svcerr.With(svcerr.InvalidInput, "A property value must be a string, a number or a boolean.")
}

func mismatch(raw []byte, kind Kind) error {
	return svcerr.With(svcerr.InvalidInput, "The value "+truncate(string(raw))+" does not match the type "+kind.String()+".")
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func fromString(s string, kind Kind) (Value, error) {
	switch kind {
	case Invalid, String:
		return StringValue(s), nil
	case Int64:
		return ParseInt64(s)
	case Int32:
		return ParseInt32(s)
	case Double:
		return ParseDouble(s)
	case DateTime:
		return ParseDateTime(s)
	case Guid:
		return ParseGuid(s)
	case Binary:
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return Value{}, invalid(Binary, truncate(s))
		}
		return BinaryValue(b), nil
	case Boolean:
		return ParseBool(s)
	}
	return Value{}, invalid(kind, truncate(s))
}

func fromNumber(s string, kind Kind) (Value, error) {
	integer := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			integer = false
		}
	}
	switch kind {
	case Invalid:
		if integer {
			if v, err := ParseInt32(s); err == nil {
				return v, nil
			}
		}
		return ParseDouble(s)
	case Int32:
		if !integer {
			return Value{}, invalid(Int32, s)
		}
		return ParseInt32(s)
	case Int64:
		if !integer {
			return Value{}, invalid(Int64, s)
		}
		return ParseInt64(s)
	case Double:
		return ParseDouble(s)
	}
	return Value{}, invalid(kind, s)
}

// unquote decodes a JSON string, quotes included and white space after
// allowed, as encoding/json does: invalid UTF-8 and unpaired surrogates
// become U+FFFD, control characters and unknown escapes make it invalid.
// The browser build cannot afford encoding/json, which with the
// reflection it needs was a fifth of the binary, for this one job.
func unquote(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	// Most strings have nothing to decode and are copied once.
	if end := jsontext.PlainEnd(raw, 1); end < len(raw) && raw[end] == '"' && jsontext.SkipSpace(raw, end+1) == len(raw) {
		return string(raw[1:end]), true
	}
	out, end, err := jsontext.AppendString(make([]byte, 0, len(raw)), raw, 0)
	if err != nil || jsontext.SkipSpace(raw, end) != len(raw) {
		return "", false
	}
	return string(out), true
}

// validNumber reports whether b is a JSON number, white space after
// allowed.
func validNumber(b []byte) bool {
	end, err := jsontext.Number(b, 0)
	return err == nil && jsontext.SkipSpace(b, end) == len(b)
}
