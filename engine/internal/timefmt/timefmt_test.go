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
	ISO7:        "2006-01-02T15:04:05.0000000Z",
	USDateTime:  "01/02/2006 15:04:05",
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

func TestAppendMatchesFormat(t *testing.T) {
	for l := range numLayouts {
		for _, tm := range samples {
			if got, want := string(Append(nil, l, tm)), tm.Format(strings[l]); got != want {
				t.Errorf("Append(%q, %v) = %q, want %q", strings[l], tm, got, want)
			}
		}
	}
}

func FuzzAppend(f *testing.F) {
	for _, tm := range samples {
		f.Add(tm.Unix(), int64(tm.Nanosecond()), 0)
	}
	f.Add(int64(-62135596800), int64(0), 3600)
	f.Fuzz(func(t *testing.T, sec, nsec int64, offset int) {
		tm := time.Unix(sec, nsec%1e9).In(time.FixedZone("", offset%(24*3600)))
		for l := range numLayouts {
			if got, want := string(Append(nil, l, tm)), tm.Format(strings[l]); got != want {
				t.Fatalf("Append(%q, %v) = %q, want %q", strings[l], tm, got, want)
			}
		}
	})
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
		for l := range ISO7 {
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

func TestParseRefusesAppendOnly(t *testing.T) {
	tm := samples[1]
	for _, l := range []Layout{ISO7, USDateTime, numLayouts} {
		if _, ok := Parse(l, tm.Format(strings[ISO7])); ok {
			t.Errorf("Parse(%d) accepted a time", l)
		}
	}
}

func BenchmarkAppendRFC1123(b *testing.B) {
	buf := make([]byte, 0, 64)
	tm := samples[0]
	for b.Loop() {
		buf = Append(buf[:0], RFC1123, tm)
	}
}

func BenchmarkFormatRFC1123(b *testing.B) {
	buf := make([]byte, 0, 64)
	tm := samples[0]
	for b.Loop() {
		buf = tm.AppendFormat(buf[:0], strings[RFC1123])
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
