package edm

import (
	"github.com/tablelab/tablelab/engine/svcerr"
)

// FormatDateTime writes ticks as the service does:
// yyyy-MM-ddTHH:mm:ss[.fffffff]Z, the fraction without trailing zeros and
// left out when zero. It runs on every write (ETags are made from it), so
// it writes the digits itself rather than going through time.Format.
func FormatDateTime(ticks int64) string {
	var b [28]byte
	return string(appendDateTime(b[:0], ticks))
}

// AppendDateTime appends FormatDateTime(ticks) to dst.
func AppendDateTime(dst []byte, ticks int64) []byte { return appendDateTime(dst, ticks) }

func appendDateTime(b []byte, ticks int64) []byte {
	t := TimeOf(ticks)
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	frac := int(((ticks % TicksPerSecond) + TicksPerSecond) % TicksPerSecond)
	if frac != 0 {
		digits := 7
		for frac%10 == 0 {
			frac /= 10
			digits--
		}
		b = append(b, '.')
		b = appendDigits(b, frac, digits)
	}
	return append(b, 'Z')
}

func appendDigits(b []byte, v, width int) []byte {
	var tmp [8]byte
	for i := width - 1; i >= 0; i-- {
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[:width]...)
}

// ParseDateTime reads an ISO 8601 date-time as the service accepts it in
// entity bodies and datetime'…' literals: yyyy-MM-ddTHH:mm[:ss[.f…]]
// followed by Z, an offset ±hh:mm, or nothing (read as UTC), with up to
// seven fractional digits. Malformed text is InvalidInput; a value outside
// 1601-01-01 to 9999-12-31 is OutOfRangeInput.
func ParseDateTime(s string) (Value, error) {
	bad := func() (Value, error) {
		return Value{}, svcerr.With(svcerr.InvalidInput, "The value '"+s+"' is not a valid Edm.DateTime.")
	}
	p := 0
	num := func(n int) (int, bool) {
		if p+n > len(s) {
			return 0, false
		}
		v := 0
		for i := 0; i < n; i++ {
			c := s[p+i]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		p += n
		return v, true
	}
	lit := func(c byte) bool {
		if p < len(s) && s[p] == c {
			p++
			return true
		}
		return false
	}
	y, ok1 := num(4)
	ok2 := lit('-')
	mo, ok3 := num(2)
	ok4 := lit('-')
	d, ok5 := num(2)
	ok6 := lit('T')
	h, ok7 := num(2)
	ok8 := lit(':')
	mi, ok9 := num(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7 && ok8 && ok9) {
		return bad()
	}
	sec, frac := 0, int64(0)
	if lit(':') {
		var ok bool
		if sec, ok = num(2); !ok {
			return bad()
		}
		if lit('.') {
			digits := 0
			for p < len(s) && s[p] >= '0' && s[p] <= '9' {
				if digits < 7 {
					frac = frac*10 + int64(s[p]-'0')
				} else if s[p] != '0' {
					return bad() // finer than 100 ns cannot be stored
				}
				digits++
				p++
			}
			if digits == 0 {
				return bad()
			}
			for i := digits; i < 7; i++ {
				frac *= 10
			}
		}
	}
	offset := 0
	switch {
	case p == len(s):
	case lit('Z'):
	case p < len(s) && (s[p] == '+' || s[p] == '-'):
		sign := 1
		if s[p] == '-' {
			sign = -1
		}
		p++
		oh, ok1 := num(2)
		ok2 := lit(':')
		om, ok3 := num(2)
		if !(ok1 && ok2 && ok3) || oh > 14 || om > 59 {
			return bad()
		}
		offset = sign * (oh*60 + om)
	default:
		return bad()
	}
	if p != len(s) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return bad()
	}
	ticks := daysBefore(y, mo, d)*86400 + int64(h*3600+mi*60+sec) - int64(offset)*60
	ticks = ticks*TicksPerSecond + frac
	if ticks < MinDateTimeTicks || ticks > MaxDateTimeTicks {
		return Value{}, svcerr.With(svcerr.OutOfRangeInput, "The value '"+s+"' is out of the range of Edm.DateTime.")
	}
	return DateTimeTicks(ticks), nil
}

func leap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if leap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysBefore counts the days from 0001-01-01 to y-m-d.
func daysBefore(y, m, d int) int64 {
	yy := int64(y - 1)
	days := yy*365 + yy/4 - yy/100 + yy/400
	for i := 1; i < m; i++ {
		days += int64(daysIn(y, i))
	}
	return days + int64(d-1)
}
