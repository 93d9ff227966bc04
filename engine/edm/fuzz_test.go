package edm

import (
	"encoding/hex"
	"math"
	"testing"
)

func FuzzParseLiteral(f *testing.F) {
	for _, s := range []string{"'it''s'", "42", "42L", "3.5", "1e10", "true", "datetime'2024-01-02T03:04:05Z'",
		"guid'c9da6455-213d-42c9-9a79-3e9149a57833'", "X'0A0B'", "binary'00'", "NaN", "-INF", "''", "'", "9999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseLiteral(s)
		if err != nil {
			return
		}
		back, err := ParseLiteral(v.Literal())
		if err != nil {
			t.Fatalf("%q → %q does not parse: %v", s, v.Literal(), err)
		}
		if !Equal(back, v) && !(v.Kind() == Double && math.IsNaN(v.Float())) {
			t.Fatalf("%q → %q → %v", s, v.Literal(), back.Literal())
		}
	})
}

func FuzzDecodeJSON(f *testing.F) {
	for _, c := range [][2]string{{`"abc"`, ""}, {`12`, ""}, {`"9007199254740993"`, "Edm.Int64"}, {`"NaN"`, "Edm.Double"},
		{`"2024-01-02T03:04:05Z"`, "Edm.DateTime"}, {`"AAH/"`, "Edm.Binary"}, {`1.5e3`, ""}, {`"\ud83d\ude80"`, ""}} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, raw, typ string) {
		v, err := DecodeJSON([]byte(raw), typ)
		if err != nil {
			return
		}
		wire := AppendJSON(nil, v)
		ann := ""
		if v.NeedsAnnotation() {
			ann = v.Kind().String()
		}
		back, err := DecodeJSON(wire, ann)
		if err != nil {
			t.Fatalf("%s (%s) → %s does not decode: %v", raw, typ, wire, err)
		}
		if back.Kind() != v.Kind() && !(v.Kind() == Double && back.Kind() == Double) {
			t.Fatalf("%s → %s changed kind %v → %v", raw, wire, v.Kind(), back.Kind())
		}
	})
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2024-01-02T03:04:05.1234567Z", "2008-07-10T00:00:00", "2024-01-02T03:04:05+02:00", "1601-01-01T00:00:00Z", "9999-12-31T23:59:59.9999999Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseDateTime(s)
		if err != nil {
			return
		}
		back, err := ParseDateTime(FormatDateTime(v.Ticks()))
		if err != nil || back.Ticks() != v.Ticks() {
			t.Fatalf("%q → %s → %v %v", s, FormatDateTime(v.Ticks()), back.Ticks(), err)
		}
	})
}

// FuzzParseBinaryHex holds the package's own hex decoding to
// encoding/hex's: the same bytes for the same digits, and a failure for
// exactly the inputs it rejects.
func FuzzParseBinaryHex(f *testing.F) {
	for _, s := range []string{"", "00", "0aFf", "0", "zz", "0g", "DEADbeef", "é1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, wantErr := hex.DecodeString(s)
		v, err := ParseBinaryHex(s)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/hex says %v", s, err, wantErr)
		}
		if err == nil && v.Str() != string(want) {
			t.Fatalf("%q: %x, want %x", s, v.Str(), want)
		}
	})
}
