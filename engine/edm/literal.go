package edm

import (
	"math"
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

func invalid(kind Kind, s string) error {
	return svcerr.With(svcerr.InvalidInput, "The value '"+s+"' is not a valid "+kind.String()+".")
}

// ParseInt32 reads a decimal Edm.Int32.
func ParseInt32(s string) (Value, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return Value{}, invalid(Int32, s)
	}
	return Int32Value(int32(n)), nil
}

// ParseInt64 reads a decimal Edm.Int64.
func ParseInt64(s string) (Value, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return Value{}, invalid(Int64, s)
	}
	return Int64Value(n), nil
}

// ParseDouble reads an Edm.Double: a decimal number, or NaN, Infinity,
// -Infinity (also INF and -INF, which .NET writes).
func ParseDouble(s string) (Value, error) {
	switch s {
	case "NaN":
		return DoubleValue(math.NaN()), nil
	case "Infinity", "INF", "+Infinity":
		return DoubleValue(math.Inf(1)), nil
	case "-Infinity", "-INF":
		return DoubleValue(math.Inf(-1)), nil
	}
	if s == "" || strings.ContainsAny(s, "_xXpPnNiI") {
		// strconv accepts underscores, hex floats and spelled-out
		// infinities; the service does not.
		return Value{}, invalid(Double, s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return Value{}, invalid(Double, s)
	}
	return DoubleValue(f), nil
}

// ParseBool reads true or false.
func ParseBool(s string) (Value, error) {
	switch s {
	case "true":
		return BoolValue(true), nil
	case "false":
		return BoolValue(false), nil
	}
	return Value{}, invalid(Boolean, s)
}

// ParseGuid reads a Guid in its 8-4-4-4-12 hex form, in either case.
func ParseGuid(s string) (Value, error) {
	if len(s) != 36 {
		return Value{}, invalid(Guid, s)
	}
	var b [36]byte
	for i := 0; i < 36; i++ {
		c := s[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return Value{}, invalid(Guid, s)
			}
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		default:
			return Value{}, invalid(Guid, s)
		}
		b[i] = c
	}
	return Value{k: Guid, s: string(b[:])}, nil
}

// ParseBinaryHex reads the hex digits of an X'…' or binary'…' literal.
func ParseBinaryHex(s string) (Value, error) {
	// Decoded here rather than by encoding/hex, whose error type would
	// link fmt into the browser build.
	if len(s)%2 != 0 {
		return Value{}, invalid(Binary, s)
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		hi, lo := unhex(s[2*i]), unhex(s[2*i+1])
		if hi > 0xf || lo > 0xf {
			return Value{}, invalid(Binary, s)
		}
		b[i] = hi<<4 | lo
	}
	return BinaryValue(b), nil
}

// appendHex appends the lower-case hex digits of s to b: encoding/hex, as
// in ParseBinaryHex, would link fmt into the browser build.
func appendHex(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, hexDigits[s[i]>>4], hexDigits[s[i]&0xf])
	}
	return b
}

// FormatUUID returns the canonical text of the UUID whose bytes, in the
// order RFC 4122 writes them, are b: 8-4-4-4-12 lower-case hex digits, the
// form of an Edm.Guid's text.
func FormatUUID(b [16]byte) string {
	var t [36]byte
	j := 0
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			t[j] = '-'
			j++
		}
		t[j], t[j+1] = hexDigits[c>>4], hexDigits[c&0xf]
		j += 2
	}
	return string(t[:])
}

// unhex returns the value of a hex digit in either case, or 0xff.
func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0xff
}

// ParseLiteral reads one whole OData literal of a $filter:
//
//	'text' with '' for a quote  Edm.String
//	42, -7                      Edm.Int32 (beyond its range: Edm.Int64)
//	42L                         Edm.Int64
//	3.5, 1e10, 2.0              Edm.Double
//	true, false                 Edm.Boolean
//	datetime'2024-01-02T03:04:05Z'
//	guid'c9da6455-213d-42c9-9a79-3e9149a57833'
//	X'0A0B', binary'0A0B'
func ParseLiteral(s string) (Value, error) {
	if s == "" {
		return Value{}, svcerr.With(svcerr.InvalidInput, "An empty literal is not valid.")
	}
	if s[0] == '\'' {
		text, ok := unquoteLiteral(s)
		if !ok {
			return Value{}, invalid(String, s)
		}
		return StringValue(text), nil
	}
	if prefix, quoted, ok := strings.Cut(s, "'"); ok {
		inner, ok := unquoteLiteral("'" + quoted)
		if !ok {
			return Value{}, svcerr.With(svcerr.InvalidInput, "The literal "+s+" is not valid.")
		}
		switch strings.ToLower(prefix) {
		case "datetime":
			return ParseDateTime(inner)
		case "guid":
			return ParseGuid(inner)
		case "x", "binary":
			return ParseBinaryHex(inner)
		}
		return Value{}, svcerr.With(svcerr.InvalidInput, "The literal "+s+" is not valid.")
	}
	switch s {
	case "true", "false":
		return ParseBool(s)
	case "NaN", "INF", "-INF":
		return ParseDouble(s)
	}
	if last := s[len(s)-1]; last == 'L' || last == 'l' {
		return ParseInt64(s[:len(s)-1])
	}
	if strings.ContainsAny(s, ".eE") {
		return ParseDouble(s)
	}
	if v, err := ParseInt32(s); err == nil {
		return v, nil
	}
	if v, err := ParseInt64(s); err == nil {
		return v, nil
	}
	return Value{}, svcerr.With(svcerr.InvalidInput, "The literal "+s+" is not valid.")
}

// unquoteLiteral reads 'text' where ” stands for one quote.
func unquoteLiteral(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if !strings.Contains(inner, "'") {
		return inner, true
	}
	var b strings.Builder
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\'' {
			if i+1 >= len(inner) || inner[i+1] != '\'' {
				return "", false
			}
			i++
		}
		b.WriteByte(inner[i])
	}
	return b.String(), true
}

// Literal returns v as an OData literal that ParseLiteral reads back to an
// equal value (for a NaN, to another NaN).
func (v Value) Literal() string {
	switch v.k {
	case String:
		return "'" + strings.ReplaceAll(v.s, "'", "''") + "'"
	case Int32:
		return strconv.FormatInt(v.Int(), 10)
	case Int64:
		return strconv.FormatInt(v.Int(), 10) + "L"
	case Double:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			return "NaN"
		case math.IsInf(f, 1):
			return "INF"
		case math.IsInf(f, -1):
			return "-INF"
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case Boolean:
		return strconv.FormatBool(v.Bool())
	case DateTime:
		return "datetime'" + FormatDateTime(v.Ticks()) + "'"
	case Guid:
		return "guid'" + v.s + "'"
	case Binary:
		b := make([]byte, 0, 3+2*len(v.s))
		b = appendHex(append(b, "X'"...), v.s)
		return string(append(b, '\''))
	}
	return ""
}
