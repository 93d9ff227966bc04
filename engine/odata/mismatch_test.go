package odata

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/edm"
)

// TestMismatches evaluates filters on records and checks which
// comparisons are reported as having met only values their literal
// cannot be compared with, and how: a comparison that met a comparable
// value even once, the numeric pairings the service compares by value
// among them, is not; one that met no value at all is not either.
func TestMismatches(t *testing.T) {
	dt, _ := edm.ParseLiteral("datetime'2026-01-02T03:04:05Z'")
	records := []rec{
		{"Age": edm.Int32Value(30), "Name": edm.StringValue("Ann"), "Big": edm.Int64Value(5), "Price": edm.DoubleValue(2.5), "Seen": dt},
		{"Age": edm.Int32Value(40), "Name": edm.StringValue("Bo"), "Big": edm.Int64Value(6), "Price": edm.DoubleValue(3), "Seen": dt},
		{"Age": edm.Int32Value(50), "Price": edm.DoubleValue(4)},
	}
	for _, c := range []struct {
		filter string
		want   []string // Mismatch.String() of each, in order
	}{
		{"Age gt 'x'", []string{"Age is Edm.Int32 on all 3 entities where the filter tested it, but Age gt 'x' compares it with an Edm.String literal: values of different types never compare, so the test was false for every one (a number or a Boolean is written without quotes)"}},
		{"Age lt 'x'", []string{"Age is Edm.Int32 on all 3 entities where the filter tested it, but Age lt 'x' compares it with an Edm.String literal: values of different types never compare, so the test was true for every one (a number or a Boolean is written without quotes)"}},
		{"'x' lt Age", []string{"Age is Edm.Int32 on all 3 entities where the filter tested it, but Age gt 'x' compares it"}},
		{"Age gt 30", nil},
		{"Age ge 30L", []string{"Age is Edm.Int32 on all 3 entities where the filter tested it, but Age ge 30L compares it with an Edm.Int64 literal: values of different types never compare, so the test was false for every one (an Edm.Int32 is compared with a literal without the L)"}},
		{"Age eq 30.0", []string{"but Age eq 30.0 compares it with an Edm.Double literal: values of different types never compare, so the test was false for every one (a number with a decimal point or an exponent is an Edm.Double)"}},
		// Int64 against Int32, Double against Int32 and Int64: compared by value.
		{"Big gt 5", nil},
		{"Price gt 2 and Price lt 4L", nil},
		{"Name eq 5", []string{"Name is Edm.String on all 2 entities where the filter tested it, but Name eq 5 compares it with an Edm.Int32 literal: values of different types never compare, so the test was false for every one (text is written in single quotes)"}},
		{"Seen ge '2026-01-01'", []string{"Seen is Edm.DateTime on all 2 entities where the filter tested it, but Seen ge '2026-01-01' compares it with an Edm.String literal: values of different types never compare, so the test was false for every one (a date is written datetime'2026-01-02T03:04:05Z')"}},
		{"Nothing eq 'x'", nil},
		// Only where the filter tests it: after an and that failed, not.
		{"Age eq 50 and Name eq 5", nil},
		{"Age eq 30 and Name eq 5", []string{"Name is Edm.String on the one entity where the filter tested it, but Name eq 5 compares it with an Edm.Int32 literal: values of different types never compare, so the test was false for it"}},
		// Two in one filter, and a range of one property with a bad bound.
		{"(Age gt 'a' or Name ne true) and not (Price lt 'z')", []string{"Age is Edm.Int32 on all 3", "Name is Edm.String on all 2 entities where the filter tested it, but Name ne true compares it with an Edm.Boolean literal: values of different types never compare, so the test was true for every one (text is written in single quotes)", "Price is Edm.Double on all 2 entities where the filter tested it, but Price lt 'z' compares it with an Edm.String literal: values of different types never compare, so the test was true for every one"}},
		{"Age ge 10 and Age lt 'z'", []string{"Age is Edm.Int32 on all 3 entities where the filter tested it, but Age lt 'z' compares"}},
		{"Age eq '" + strings.Repeat("y", 60) + "'", []string{"but Age eq 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...' compares"}},
	} {
		f, err := Parse(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range records {
			f.Match(r)
		}
		got := f.Mismatches()
		if len(got) != len(c.want) {
			t.Errorf("%s: %d mismatches %v, want %d", c.filter, len(got), got, len(c.want))
			continue
		}
		for i, m := range got {
			if s := m.String(); !strings.HasPrefix(s, c.want[i]) && !strings.Contains(s, c.want[i]) {
				t.Errorf("%s: mismatch %d says\n%s\nwant\n%s", c.filter, i, s, c.want[i])
			}
		}
	}
}

// TestMismatchKinds names every type a property had, and Saw, which a
// scan calls for the values it tested in line, clears a mismatch.
func TestMismatchKinds(t *testing.T) {
	f, err := Parse("N eq 'x'")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []edm.Value{edm.Int32Value(1), edm.DoubleValue(2), edm.BoolValue(true)} {
		f.Match(rec{"N": v})
	}
	m := f.Mismatches()
	if len(m) != 1 || m[0].Count != 3 || !strings.HasPrefix(m[0].String(), "N is Edm.Int32, Edm.Double or Edm.Boolean on all 3 entities") {
		t.Fatalf("%+v", m)
	}
	f.Saw("N", edm.String)
	if m := f.Mismatches(); len(m) != 0 {
		t.Fatalf("after Saw of a comparable kind: %+v", m)
	}
	var none *Filter
	if none.Mismatches() != nil {
		t.Fatal("a nil filter has mismatches")
	}
}
