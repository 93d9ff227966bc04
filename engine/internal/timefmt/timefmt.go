// Package timefmt reads the few time layouts the storage protocols use
// exactly as time.Parse does for those layouts, without time's general
// layout interpreter. Under WebAssembly, time.Parse reading a SAS's expiry
// was the largest single cost of a point read, and once no package of the
// browser build calls it, the interpreter's parsing half (some 12 KB of
// gzip) leaves the build. Writing times stays with time.Time.Format: the
// runtime keeps time.Time.String, and so the formatting half, in every
// binary that puts a time in an interface.
package timefmt

import "time"

// Layout names one of the layouts the package knows. Each is spelled as
// time's layout strings are, in the comment beside it.
type Layout uint8

// The layouts.
const (
	RFC1123     Layout = iota // "Mon, 02 Jan 2006 15:04:05 GMT": HTTP dates, x-ms-date
	RFC850                    // "Monday, 02-Jan-06 15:04:05 GMT": HTTP's obsolete form
	ANSIC                     // "Mon Jan _2 15:04:05 2006": HTTP's other obsolete form
	ISO                       // "2006-01-02T15:04:05Z": SAS start and expiry
	ISOMinutes                // "2006-01-02T15:04Z"
	ISODate                   // "2006-01-02"
	RFC3339Nano               // "2006-01-02T15:04:05.999999999Z07:00"
	numLayouts
)

// The elements of a layout, as time's layout engine names them.
const (
	lit        = iota // literal text, in the table's next string
	weekday           // Mon
	longWeek          // Monday
	monthName         // Jan
	zeroMonth         // 01
	zeroDay           // 02
	underDay          // _2
	longYear          // 2006
	year2             // 06
	hour              // 15
	zeroMinute        // 04
	zeroSecond        // 05
	frac9             // .999999999
	colonTZ           // Z07:00
)

// elem is one element of a layout: a kind, and for lit its text.
type elem struct {
	kind uint8
	text string
}

var layouts = [numLayouts][]elem{
	RFC1123:     {{weekday, ""}, {lit, ", "}, {zeroDay, ""}, {lit, " "}, {monthName, ""}, {lit, " "}, {longYear, ""}, {lit, " "}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, ":"}, {zeroSecond, ""}, {lit, " GMT"}},
	RFC850:      {{longWeek, ""}, {lit, ", "}, {zeroDay, ""}, {lit, "-"}, {monthName, ""}, {lit, "-"}, {year2, ""}, {lit, " "}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, ":"}, {zeroSecond, ""}, {lit, " GMT"}},
	ANSIC:       {{weekday, ""}, {lit, " "}, {monthName, ""}, {lit, " "}, {underDay, ""}, {lit, " "}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, ":"}, {zeroSecond, ""}, {lit, " "}, {longYear, ""}},
	ISO:         {{longYear, ""}, {lit, "-"}, {zeroMonth, ""}, {lit, "-"}, {zeroDay, ""}, {lit, "T"}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, ":"}, {zeroSecond, ""}, {lit, "Z"}},
	ISOMinutes:  {{longYear, ""}, {lit, "-"}, {zeroMonth, ""}, {lit, "-"}, {zeroDay, ""}, {lit, "T"}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, "Z"}},
	ISODate:     {{longYear, ""}, {lit, "-"}, {zeroMonth, ""}, {lit, "-"}, {zeroDay, ""}},
	RFC3339Nano: {{longYear, ""}, {lit, "-"}, {zeroMonth, ""}, {lit, "-"}, {zeroDay, ""}, {lit, "T"}, {hour, ""}, {lit, ":"}, {zeroMinute, ""}, {lit, ":"}, {zeroSecond, ""}, {frac9, ""}, {colonTZ, ""}},
}

const (
	days   = "SunMonTueWedThuFriSat"
	months = "JanFebMarAprMayJunJulAugSepOctNovDec"
)

var longDays = [...]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// Parse reads s in layout l as time.Parse does with the layout's string:
// the same times accepted, with the same leniencies (names in any case,
// one-digit hours, fractional seconds after the seconds, runs of spaces
// where the layout has one), and the same instant returned, in UTC or,
// for an offset, in a fixed zone. It reports false where time.Parse
// fails, and for a Layout it does not know.
func Parse(l Layout, s string) (time.Time, bool) {
	if l >= numLayouts {
		return time.Time{}, false
	}
	year, month, day := 0, 1, 1
	var hr, mi, sec, nsec int
	zone, hasZone := 0, false
	v := s
	ok := true
	els := layouts[l]
	for i, e := range els {
		switch e.kind {
		case lit:
			v, ok = skip(v, e.text)
		case weekday:
			_, v, ok = lookupShort(days, v)
		case longWeek:
			ok = false
			for _, d := range longDays {
				if len(v) >= len(d) && match(v[:len(d)], d) {
					v, ok = v[len(d):], true
					break
				}
			}
		case monthName:
			month, v, ok = lookupShort(months, v)
			month++
		case zeroMonth:
			month, v, ok = getnum(v, true)
			ok = ok && month >= 1 && month <= 12
		case zeroDay:
			day, v, ok = getnum(v, true)
		case underDay:
			if len(v) > 0 && v[0] == ' ' {
				v = v[1:]
			}
			day, v, ok = getnum(v, false)
		case longYear:
			if len(v) < 4 || !isDigit(v, 0) {
				return time.Time{}, false
			}
			year, ok = atoi(v[:4])
			v = v[4:]
		case year2:
			if len(v) < 2 {
				return time.Time{}, false
			}
			year, ok = atoi(v[:2])
			v = v[2:]
			if year >= 69 {
				year += 1900
			} else {
				year += 2000
			}
		case hour:
			hr, v, ok = getnum(v, false)
			ok = ok && hr < 24
		case zeroMinute:
			mi, v, ok = getnum(v, true)
			ok = ok && mi < 60
		case zeroSecond:
			sec, v, ok = getnum(v, true)
			ok = ok && sec < 60
			// A fraction after the seconds is read even when the layout
			// has none, unless the layout's next element is one.
			if ok && len(v) >= 2 && (v[0] == '.' || v[0] == ',') && isDigit(v, 1) && (i+1 >= len(els) || els[i+1].kind != frac9) {
				nsec, v = fraction(v)
			}
		case frac9:
			if len(v) >= 2 && (v[0] == '.' || v[0] == ',') && isDigit(v, 1) {
				nsec, v = fraction(v)
			}
		case colonTZ:
			if len(v) >= 1 && v[0] == 'Z' {
				v = v[1:]
				break
			}
			if len(v) < 6 || v[3] != ':' {
				return time.Time{}, false
			}
			var zh, zm int
			zh, _, ok = getnum(v[1:3], true)
			if ok {
				zm, _, ok = getnum(v[4:6], true)
			}
			ok = ok && zh <= 24 && zm <= 60 && (v[0] == '+' || v[0] == '-')
			zone, hasZone = (zh*60+zm)*60, true
			if v[0] == '-' {
				zone = -zone
			}
			v = v[6:]
		}
		if !ok {
			return time.Time{}, false
		}
	}
	if v != "" || day < 1 || day > daysIn(month, year) {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hr, mi, sec, nsec, time.UTC)
	if hasZone {
		t = t.Add(-time.Duration(zone) * time.Second).In(time.FixedZone("", zone))
	}
	return t, true
}

// skip consumes the literal text of a layout from v. A space in the
// layout matches any run of spaces in v, or the end of v.
func skip(v, text string) (string, bool) {
	for len(text) > 0 {
		if text[0] == ' ' {
			if len(v) > 0 && v[0] != ' ' {
				return v, false
			}
			text, v = trimSpaces(text), trimSpaces(v)
			continue
		}
		if len(v) == 0 || v[0] != text[0] {
			return v, false
		}
		text, v = text[1:], v[1:]
	}
	return v, true
}

func trimSpaces(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	return s
}

// lookupShort finds which three-letter name of names (concatenated)
// begins v, ignoring the case of letters.
func lookupShort(names, v string) (int, string, bool) {
	if len(v) < 3 {
		return 0, v, false
	}
	for i := 0; i < len(names); i += 3 {
		if match(v[:3], names[i:i+3]) {
			return i / 3, v[3:], true
		}
	}
	return 0, v, false
}

// match reports whether s1 and s2 are equal ignoring the case of ASCII
// letters.
func match(s1, s2 string) bool {
	for i := 0; i < len(s1); i++ {
		c1, c2 := s1[i], s2[i]
		if c1 != c2 {
			c1 |= 'a' - 'A'
			c2 |= 'a' - 'A'
			if c1 != c2 || c1 < 'a' || c1 > 'z' {
				return false
			}
		}
	}
	return true
}

func isDigit(s string, i int) bool { return i < len(s) && s[i] >= '0' && s[i] <= '9' }

// getnum reads one or two digits; fixed demands two.
func getnum(s string, fixed bool) (int, string, bool) {
	if !isDigit(s, 0) {
		return 0, s, false
	}
	if !isDigit(s, 1) {
		if fixed {
			return 0, s, false
		}
		return int(s[0] - '0'), s[1:], true
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), s[2:], true
}

// atoi reads a decimal number with an optional sign and nothing else.
func atoi(s string) (int, bool) {
	neg := false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	x := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s, i) {
			return 0, false
		}
		x = x*10 + int(s[i]-'0')
	}
	if neg {
		x = -x
	}
	return x, true
}

// fraction reads a separator and the digits after it as nanoseconds,
// ignoring digits past the ninth; it returns the rest of v.
func fraction(v string) (int, string) {
	n := 1
	ns, digits := 0, 0
	for ; isDigit(v, n); n++ {
		if digits < 9 {
			ns = ns*10 + int(v[n]-'0')
			digits++
		}
	}
	for ; digits < 9; digits++ {
		ns *= 10
	}
	return ns, v[n:]
}

func daysIn(month, year int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
