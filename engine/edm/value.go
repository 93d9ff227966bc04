// Package edm holds the typed property values of Azure Table storage: the
// eight Entity Data Model primitive types a property can carry, with exact
// parsing and formatting of their OData literal and JSON wire forms.
//
// A Value is small, immutable and comparable with ==. Its zero value is
// invalid (Kind Invalid); every constructor yields a valid one.
package edm

import (
	"math"
	"strings"
	"time"
)

// Kind names one of the eight Edm primitive types.
type Kind uint8

// The Edm kinds, in the order the service documents them.
const (
	Invalid Kind = iota
	String
	Int32
	Int64
	Double
	Boolean
	DateTime
	Guid
	Binary
)

var kindNames = [...]string{
	Invalid:  "Edm.Invalid",
	String:   "Edm.String",
	Int32:    "Edm.Int32",
	Int64:    "Edm.Int64",
	Double:   "Edm.Double",
	Boolean:  "Edm.Boolean",
	DateTime: "Edm.DateTime",
	Guid:     "Edm.Guid",
	Binary:   "Edm.Binary",
}

// String returns the kind's OData type name, such as "Edm.Int64".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return kindNames[Invalid]
}

// KindOf maps an OData type name ("Edm.Int64") to its Kind. The match is
// exact, as the service's is; unknown names yield Invalid.
func KindOf(name string) Kind {
	for k := String; k <= Binary; k++ {
		if kindNames[k] == name {
			return k
		}
	}
	return Invalid
}

// Value is one typed property value.
//
// Numbers, booleans and date-times live in n; strings, binary bytes and the
// canonical lower-case text of a Guid live in s. Keeping a Guid as its
// canonical text makes formatting free and its ordering the service's: .NET
// compares Guids field by field in the order they are printed.
type Value struct {
	s     string
	n     uint64
	k     Kind
	plain bool // a String known to be plain (PlainStringValue)
}

// Ticks per second of an Edm.DateTime: the service keeps 100 ns precision.
const TicksPerSecond = 10_000_000

// unixEpochTicks is the tick count of 1970-01-01T00:00:00Z counted from
// 0001-01-01T00:00:00Z, the origin .NET (and so the service) counts from.
const unixEpochTicks = 621_355_968_000_000_000

// The range of Edm.DateTime values the service accepts, in ticks since
// 0001-01-01: from 1601-01-01T00:00:00Z to 9999-12-31T23:59:59.9999999Z.
const (
	MinDateTimeTicks int64 = 504_911_232_000_000_000
	MaxDateTimeTicks int64 = 3_155_378_975_999_999_999
)

// StringValue returns an Edm.String value.
func StringValue(s string) Value { return Value{k: String, s: s} }

// PlainStringValue returns an Edm.String value known to be plain (see
// IsPlain): its JSON form is its text between quotes, with nothing to
// escape or check. The caller vouches for it; a store that checked once,
// when the string was written, saves every read that pass.
func PlainStringValue(s string) Value { return Value{k: String, s: s, plain: true} }

// Int32Value returns an Edm.Int32 value.
func Int32Value(v int32) Value { return Value{k: Int32, n: uint64(int64(v))} }

// Int64Value returns an Edm.Int64 value.
func Int64Value(v int64) Value { return Value{k: Int64, n: uint64(v)} }

// DoubleValue returns an Edm.Double value; NaN and ±Inf are allowed.
func DoubleValue(f float64) Value { return Value{k: Double, n: math.Float64bits(f)} }

// BoolValue returns an Edm.Boolean value.
func BoolValue(b bool) Value {
	if b {
		return Value{k: Boolean, n: 1}
	}
	return Value{k: Boolean}
}

// DateTimeTicks returns an Edm.DateTime value from 100 ns ticks counted
// from 0001-01-01T00:00:00Z. The caller checks the range (see InRange).
func DateTimeTicks(ticks int64) Value { return Value{k: DateTime, n: uint64(ticks)} }

// DateTimeValue returns an Edm.DateTime value for t, truncated to 100 ns.
func DateTimeValue(t time.Time) Value { return DateTimeTicks(TicksOf(t)) }

// BinaryValue returns an Edm.Binary value holding a copy of b.
func BinaryValue(b []byte) Value { return Value{k: Binary, s: string(b)} }

// BinaryString returns an Edm.Binary value whose bytes are those of s,
// without copying.
func BinaryString(s string) Value { return Value{k: Binary, s: s} }

// TicksOf converts t to 100 ns ticks since 0001-01-01T00:00:00Z (UTC).
func TicksOf(t time.Time) int64 {
	sec := t.Unix()
	return sec*TicksPerSecond + int64(t.Nanosecond()/100) + unixEpochTicks
}

// TimeOf converts ticks since 0001-01-01T00:00:00Z to a UTC time.Time.
func TimeOf(ticks int64) time.Time {
	rel := ticks - unixEpochTicks
	sec := rel / TicksPerSecond
	rem := rel % TicksPerSecond
	if rem < 0 {
		rem += TicksPerSecond
		sec--
	}
	return time.Unix(sec, rem*100).UTC()
}

// Kind reports the value's Edm type.
func (v Value) Kind() Kind { return v.k }

// IsValid reports whether v holds a value of one of the eight kinds.
func (v Value) IsValid() bool { return v.k != Invalid }

// Str returns the text of an Edm.String, the bytes of an Edm.Binary as a
// string, or the canonical text of an Edm.Guid.
func (v Value) Str() string { return v.s }

// Int returns the integer of an Edm.Int32 or Edm.Int64.
func (v Value) Int() int64 { return int64(v.n) }

// Float returns the number of an Edm.Double.
func (v Value) Float() float64 { return math.Float64frombits(v.n) }

// Bool returns the truth of an Edm.Boolean.
func (v Value) Bool() bool { return v.n != 0 }

// Ticks returns the 100 ns ticks since 0001-01-01 of an Edm.DateTime.
func (v Value) Ticks() int64 { return int64(v.n) }

// Time returns an Edm.DateTime as a UTC time.Time.
func (v Value) Time() time.Time { return TimeOf(int64(v.n)) }

// Bytes returns a copy of an Edm.Binary's bytes.
func (v Value) Bytes() []byte { return []byte(v.s) }

// Equal reports whether a and b are the same kind and value. Doubles
// compare by value, so NaN is not equal to itself, as in the service.
func Equal(a, b Value) bool {
	if a.k != b.k {
		return false
	}
	switch a.k {
	case Double:
		return a.Float() == b.Float()
	case String, Binary, Guid:
		return a.s == b.s // whether known plain or not
	}
	return a.n == b.n && a.s == b.s
}

// Compare orders two values of the same kind: -1, 0 or +1. ok is false when
// the kinds differ or either value is a NaN, which orders against nothing.
// Strings and binaries compare by ordinal bytes, booleans false < true.
func Compare(a, b Value) (c int, ok bool) {
	if a.k != b.k || a.k == Invalid {
		return 0, false
	}
	switch a.k {
	case String, Binary, Guid:
		return strings.Compare(a.s, b.s), true
	case Int32, Int64, DateTime:
		x, y := int64(a.n), int64(b.n)
		return cmp3(x < y, x > y), true
	case Double:
		x, y := a.Float(), b.Float()
		if math.IsNaN(x) || math.IsNaN(y) {
			return 0, false
		}
		return cmp3(x < y, x > y), true
	case Boolean:
		return cmp3(a.n < b.n, a.n > b.n), true
	}
	return 0, false
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// Size is the number of bytes the service counts for the value when it
// measures an entity against its 1 MiB limit: strings as UTF-16 plus a
// 4-byte length, binaries plus a 4-byte length, fixed widths otherwise.
func (v Value) Size() int {
	switch v.k {
	case String:
		return 4 + 2*UTF16Len(v.s)
	case Binary:
		return 4 + len(v.s)
	case Int32:
		return 4
	case Boolean:
		return 1
	case Guid:
		return 16
	}
	return 8
}

// UTF16Len returns the number of UTF-16 code units needed to encode s, the
// measure the service applies to key and string lengths.
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x80 || c&0xC0 == 0x80:
			// ASCII, or a continuation byte that the lead byte already counted.
			if c < 0x80 {
				n++
			}
		case c >= 0xF0:
			n += 2 // a code point above the BMP needs a surrogate pair
		default:
			n++
		}
	}
	return n
}
