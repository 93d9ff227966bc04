package edm

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestDateTime(t *testing.T) {
	cases := []struct{ in, out string }{
		{"2024-01-02T03:04:05.1234567Z", "2024-01-02T03:04:05.1234567Z"},
		{"2024-01-02T03:04:05.123Z", "2024-01-02T03:04:05.123Z"},
		{"2024-01-02T03:04:05.1000000Z", "2024-01-02T03:04:05.1Z"},
		{"2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"},
		{"2008-07-10T00:00:00", "2008-07-10T00:00:00Z"},
		{"2024-01-02T03:04Z", "2024-01-02T03:04:00Z"},
		{"2024-01-02T03:04:05+02:00", "2024-01-02T01:04:05Z"},
		{"2024-01-02T00:30:00-01:30", "2024-01-02T02:00:00Z"},
		{"1601-01-01T00:00:00Z", "1601-01-01T00:00:00Z"},
		{"9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.9999999Z"},
		{"2024-02-29T12:00:00Z", "2024-02-29T12:00:00Z"},
		{"2020-09-17T00:00:00.99999Z", "2020-09-17T00:00:00.99999Z"},
	}
	for _, c := range cases {
		v, err := ParseDateTime(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := FormatDateTime(v.Ticks()); got != c.out {
			t.Errorf("%s: formatted %s, want %s", c.in, got, c.out)
		}
		want, _ := time.Parse(time.RFC3339Nano, c.out)
		if !v.Time().Equal(want) {
			t.Errorf("%s: time %v, want %v", c.in, v.Time(), want)
		}
	}
	for in, code := range map[string]svcerr.Code{
		"1600-12-31T23:59:59.9999999Z":  svcerr.OutOfRangeInput,
		"0001-01-01T00:00:00Z":          svcerr.OutOfRangeInput,
		"2024-13-01T00:00:00Z":          svcerr.InvalidInput,
		"2023-02-29T00:00:00Z":          svcerr.InvalidInput,
		"2024-01-02 03:04:05Z":          svcerr.InvalidInput,
		"2024-01-02T03:04:05.Z":         svcerr.InvalidInput,
		"2024-01-02T03:04:05.12345678Z": svcerr.InvalidInput,
		"2024-01-02T03:04:05ZZ":         svcerr.InvalidInput,
		"2024-01-02T24:00:00Z":          svcerr.InvalidInput,
		"":                              svcerr.InvalidInput,
	} {
		if _, err := ParseDateTime(in); !svcerr.Is(err, code) {
			t.Errorf("%q: %v, want %s", in, err, code)
		}
	}
	// Trailing zeros beyond 100 ns are harmless.
	if v, err := ParseDateTime("2024-01-02T03:04:05.123456700Z"); err != nil || FormatDateTime(v.Ticks()) != "2024-01-02T03:04:05.1234567Z" {
		t.Errorf("nine digits: %v %v", v, err)
	}
}

func TestLiterals(t *testing.T) {
	cases := []struct {
		in   string
		kind Kind
		lit  string
	}{
		{"'it''s'", String, "'it''s'"},
		{"''", String, "''"},
		{"42", Int32, "42"},
		{"-2147483648", Int32, "-2147483648"},
		{"2147483648", Int64, "2147483648L"},
		{"42L", Int64, "42L"},
		{"-9223372036854775808L", Int64, "-9223372036854775808L"},
		{"3.5", Double, "3.5"},
		{"1e10", Double, "1e+10"},
		{"2.0", Double, "2.0"},
		{"-0.5", Double, "-0.5"},
		{"NaN", Double, "NaN"},
		{"INF", Double, "INF"},
		{"-INF", Double, "-INF"},
		{"true", Boolean, "true"},
		{"false", Boolean, "false"},
		{"datetime'2024-01-02T03:04:05Z'", DateTime, "datetime'2024-01-02T03:04:05Z'"},
		{"guid'C9DA6455-213D-42C9-9A79-3E9149A57833'", Guid, "guid'c9da6455-213d-42c9-9a79-3e9149a57833'"},
		{"X'0A0b'", Binary, "X'0a0b'"},
		{"binary'00ff'", Binary, "X'00ff'"},
		{"X''", Binary, "X''"},
	}
	for _, c := range cases {
		v, err := ParseLiteral(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if v.Kind() != c.kind || v.Literal() != c.lit {
			t.Errorf("%s: %s %s, want %s %s", c.in, v.Kind(), v.Literal(), c.kind, c.lit)
		}
		back, err := ParseLiteral(v.Literal())
		if err != nil || !(Equal(back, v) || v.Kind() == Double && math.IsNaN(v.Float())) {
			t.Errorf("%s: round trip gave %v %v", c.in, back, err)
		}
	}
	for _, bad := range []string{"", "'unterminated", "'a'b'", "12x", "9223372036854775808L", "X'0'", "X'zz'", "guid'1234'", "datetime'yesterday'", "foo'bar'", "1.2.3", "0x10", "1_000"} {
		if _, err := ParseLiteral(bad); !svcerr.Is(err, svcerr.InvalidInput) && !svcerr.Is(err, svcerr.OutOfRangeInput) {
			t.Errorf("%q accepted: %v", bad, err)
		}
	}
}

func TestJSONWireForms(t *testing.T) {
	guid, _ := ParseGuid("c9da6455-213d-42c9-9a79-3e9149a57833")
	when, _ := ParseDateTime("2024-01-02T03:04:05.1234567Z")
	cases := []struct {
		v        Value
		wire     string
		annotate bool
	}{
		{StringValue("a\"b\\c\n\u0001é🚀"), `"a\"b\\c\n\u0001é🚀"`, false},
		{Int32Value(-7), `-7`, false},
		{Int64Value(9007199254740993), `"9007199254740993"`, true},
		{DoubleValue(3), `3.0`, false},
		{DoubleValue(3.25), `3.25`, false},
		{DoubleValue(1e300), `1e+300`, false},
		{DoubleValue(math.NaN()), `"NaN"`, true},
		{DoubleValue(math.Inf(1)), `"Infinity"`, true},
		{DoubleValue(math.Inf(-1)), `"-Infinity"`, true},
		{BoolValue(true), `true`, false},
		{when, `"2024-01-02T03:04:05.1234567Z"`, true},
		{guid, `"c9da6455-213d-42c9-9a79-3e9149a57833"`, true},
		{BinaryValue([]byte{0, 1, 255}), `"AAH/"`, true},
		{BinaryValue(nil), `""`, true},
	}
	for _, c := range cases {
		got := string(AppendJSON(nil, c.v))
		if got != c.wire || c.v.NeedsAnnotation() != c.annotate {
			t.Errorf("%v: wire %s (annotate %v), want %s (%v)", c.v.Literal(), got, c.v.NeedsAnnotation(), c.wire, c.annotate)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s is not valid JSON", got)
		}
		typ := ""
		if c.annotate {
			typ = c.v.Kind().String()
		}
		back, err := DecodeJSON([]byte(got), typ)
		if err != nil || back.Kind() != c.v.Kind() || !(Equal(back, c.v) || c.v.Kind() == Double && math.IsNaN(back.Float())) {
			t.Errorf("%s: decoded %v %v", got, back.Literal(), err)
		}
	}
	inferred := map[string]Kind{`"x"`: String, `12`: Int32, `2147483648`: Double, `1.5`: Double, `1e3`: Double, `true`: Boolean, `-0`: Int32}
	for raw, kind := range inferred {
		v, err := DecodeJSON([]byte(raw), "")
		if err != nil || v.Kind() != kind {
			t.Errorf("%s inferred as %v (%v), want %v", raw, v.Kind(), err, kind)
		}
	}
	for _, c := range []struct{ raw, typ string }{
		{`"12x"`, "Edm.Int64"}, {`1.5`, "Edm.Int32"}, {`"abc"`, "Edm.Guid"}, {`"%%%"`, "Edm.Binary"},
		{`"x"`, "Edm.Nope"}, {`null`, ""}, {`{}`, ""}, {`[1]`, ""}, {`true`, "Edm.String"}, {`1`, "Edm.DateTime"},
		{`"2147483648"`, "Edm.Int32"}, {`01`, ""}, {`"1601-01-01T00:00:00Z"`, "Edm.Boolean"},
	} {
		if _, err := DecodeJSON([]byte(c.raw), c.typ); !svcerr.Is(err, svcerr.InvalidInput) {
			t.Errorf("%s as %q: %v", c.raw, c.typ, err)
		}
	}
	// Typed values from strings: Int64 and Double from their string forms.
	if v, err := DecodeJSON([]byte(`"-9223372036854775808"`), "Edm.Int64"); err != nil || v.Int() != math.MinInt64 {
		t.Errorf("Int64 min: %v %v", v, err)
	}
	if v, err := DecodeJSON([]byte(`"3"`), "Edm.Double"); err != nil || v.Kind() != Double || v.Float() != 3 {
		t.Errorf("Double from string: %v %v", v, err)
	}
}

func TestCompareAndSize(t *testing.T) {
	if c, ok := Compare(StringValue("b"), StringValue("B")); !ok || c != 1 {
		t.Error("strings compare ordinally")
	}
	if _, ok := Compare(Int32Value(1), Int64Value(1)); ok {
		t.Error("kinds differ: not comparable")
	}
	if _, ok := Compare(DoubleValue(math.NaN()), DoubleValue(1)); ok {
		t.Error("NaN orders against nothing")
	}
	a, _ := ParseGuid("00000000-0000-0000-0000-000000000001")
	b, _ := ParseGuid("10000000-0000-0000-0000-000000000000")
	if c, _ := Compare(a, b); c != -1 {
		t.Error("guid order")
	}
	if UTF16Len("a🚀é") != 4 || StringValue("ab").Size() != 8 || BinaryValue([]byte{1}).Size() != 5 {
		t.Error("sizes")
	}
}

func BenchmarkFormatDateTime(b *testing.B) {
	v, _ := ParseDateTime("2024-01-02T03:04:05.1234567Z")
	for i := 0; i < b.N; i++ {
		_ = FormatDateTime(v.Ticks() + int64(i))
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	vals := []Value{StringValue("hello world"), Int32Value(42), Int64Value(1 << 40), DoubleValue(3.5), BoolValue(true)}
	buf := make([]byte, 0, 256)
	for i := 0; i < b.N; i++ {
		buf = buf[:0]
		for _, v := range vals {
			buf = AppendJSON(buf, v)
		}
	}
}

func TestFormatUUID(t *testing.T) {
	b := [16]byte{0xc9, 0xda, 0x64, 0x55, 0x21, 0x3d, 0x42, 0xc9, 0x9a, 0x79, 0x3e, 0x91, 0x49, 0xa5, 0x78, 0x33}
	const want = "c9da6455-213d-42c9-9a79-3e9149a57833"
	if got := FormatUUID(b); got != want {
		t.Errorf("FormatUUID = %q, want %q", got, want)
	}
	// What it writes is a Guid literal's canonical text.
	v, err := ParseGuid(FormatUUID([16]byte{0: 0xff, 15: 0x01}))
	if err != nil || v.Str() != "ff000000-0000-0000-0000-000000000001" {
		t.Errorf("ParseGuid(FormatUUID(…)) = %q, %v", v.Str(), err)
	}
}
