package timefmt

import (
	"testing"
	"time"
)

// strings are the layouts as time spells them.
var strings = [numLayouts]string{
	RFC1123:     "Mon, 02 Jan 2006 15:04:05 GMT",
	RFC850:      "Monday, 02-Jan-06 15:04:05 GMT",
	ANSIC:       "Mon Jan _2 15:04:05 2006",
	ISO:         "2006-01-02T15:04:05Z",
	ISOMinutes:  "2006-01-02T15:04Z",
	ISODate:     "2006-01-02",
	RFC3339Nano: time.RFC3339Nano,
}

var samples = []time.Time{
	time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC),
	time.Date(2024, 2, 29, 0, 0, 0, 123456789, time.UTC),
	time.Date(1999, 12, 31, 23, 59, 59, 999999999, time.UTC),
	time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	time.Date(9999, 12, 31, 23, 59, 59, 100, time.UTC),
	time.Date(12345, 6, 7, 8, 9, 10, 11, time.UTC),
	time.Date(-44, 3, 15, 12, 0, 0, 0, time.UTC),
	time.Date(2030, 7, 4, 9, 5, 1, 500000000, time.FixedZone("", -(7*3600+30*60))),
	time.Date(2030, 7, 4, 9, 5, 1, 0, time.FixedZone("", 5*3600+45*60+30)),
}

func FuzzParse(f *testing.F) {
	for _, tm := range samples {
		for l := range numLayouts {
			f.Add(tm.Format(strings[l]))
		}
	}
	for _, s := range []string{
		"mon, 2 jan 2006 15:04:05 GMT", "Mon,   02 JAN 2006 5:04:05.25 GMT", "Mon, 02 Jan 2006 15:04:05", "Mon, 30 Feb 2006 15:04:05 GMT",
		"Sunday, 02-Jan-+6 15:04:05 GMT", "Mon Jan  2 15:04:05 2006", "Mon Jan 2 15:04:05 2006",
		"2024-01-02T03:04:05,5Z", "2024-01-02T03:04:05.1234567891234Z", "2024-01-02T24:00:00Z", "2024-01-02T03:04Z",
		"2024-01-02T03:04:05+24:60", "2024-01-02T03:04:05-00:00", "2024-01-02T3:04:05.5+01:00", "2024-13-02", "0000-02-29",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for l := range numLayouts {
			want, err := time.Parse(strings[l], s)
			got, ok := Parse(l, s)
			if ok != (err == nil) {
				t.Fatalf("Parse(%q, %q): ok %v, time.Parse: %v", strings[l], s, ok, err)
			}
			if ok && !got.Equal(want) {
				t.Fatalf("Parse(%q, %q) = %v, time.Parse: %v", strings[l], s, got, want)
			}
			if _, off := want.Zone(); ok {
				if _, gotOff := got.Zone(); gotOff != off {
					t.Fatalf("Parse(%q, %q): offset %d, time.Parse: %d", strings[l], s, gotOff, off)
				}
			}
		}
	})
}

func TestParseRefusesUnknownLayout(t *testing.T) {
	if _, ok := Parse(numLayouts, samples[0].Format(strings[ISO])); ok {
		t.Error("Parse accepted a time in a layout it does not know")
	}
}

func BenchmarkParseISO(b *testing.B) {
	for b.Loop() {
		Parse(ISO, "2026-11-23T16:40:00Z")
	}
}

func BenchmarkTimeParseISO(b *testing.B) {
	for b.Loop() {
		time.Parse(strings[ISO], "2026-11-23T16:40:00Z")
	}
}
