package urltext

// An IP is an IPv4 or IPv6 address, with an IPv6 address's zone. The
// zero IP is no address.
type IP struct {
	addr [16]byte // IPv4 in the last four bytes
	bits int      // 32 or 128; 0 for the zero IP
	zone string
}

// ParseIP reads an address as netip.ParseAddr does: four decimal fields
// for IPv4 (no leading zeros), or IPv6's hexadecimal groups with at most
// one "::", a dotted IPv4 tail and a zone after '%'.
func ParseIP(s string) (IP, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			ip := IP{bits: 32}
			if !parseIPv4(s, ip.addr[12:]) {
				return IP{}, false
			}
			return ip, true
		case ':':
			return parseIPv6(s)
		case '%':
			return IP{}, false
		}
	}
	return IP{}, false
}

// parseIPv4 reads the whole of s into the four bytes of dst.
func parseIPv4(s string, dst []byte) bool {
	field, digits := 0, 0
	acc := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if digits == 0 || field == 4 {
				return false
			}
			dst[field] = byte(acc)
			field++
			acc, digits = 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || digits > 0 && acc == 0 {
			return false // a non-digit, or a leading zero
		}
		acc = acc*10 + int(c-'0')
		digits++
		if acc > 255 {
			return false
		}
	}
	return field == 4
}

func parseIPv6(s string) (IP, bool) {
	ip := IP{bits: 128}
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			if i == len(s)-1 {
				return IP{}, false
			}
			s, ip.zone = s[:i], s[i+1:]
			break
		}
	}
	gap := -1 // where "::" stands, in bytes of addr
	n := 0    // bytes of addr filled
	if len(s) >= 2 && s[0] == ':' && s[1] == ':' {
		gap, s = 0, s[2:]
	}
	for s != "" && n < 16 {
		acc, digits := 0, 0
		for ; digits < len(s) && unhex(s[digits]) >= 0; digits++ {
			if digits == 4 {
				return IP{}, false
			}
			acc = acc<<4 | unhex(s[digits])
		}
		if digits == 0 {
			return IP{}, false
		}
		if digits < len(s) && s[digits] == '.' {
			// a dotted IPv4 tail: the last four bytes, where they fit
			if gap < 0 && n != 12 || n > 12 || !parseIPv4(s, ip.addr[n:n+4]) {
				return IP{}, false
			}
			n += 4
			s = ""
			break
		}
		ip.addr[n], ip.addr[n+1] = byte(acc>>8), byte(acc)
		n += 2
		s = s[digits:]
		if s == "" {
			break
		}
		if s[0] != ':' || len(s) == 1 {
			return IP{}, false
		}
		s = s[1:]
		if s[0] == ':' {
			if gap >= 0 {
				return IP{}, false
			}
			gap, s = n, s[1:]
		}
	}
	switch {
	case s != "":
		return IP{}, false
	case n < 16:
		if gap < 0 {
			return IP{}, false
		}
		shift := 16 - n
		copy(ip.addr[gap+shift:], ip.addr[gap:n])
		clear(ip.addr[gap : gap+shift])
	case gap >= 0:
		return IP{}, false // "::" must stand for at least one group
	}
	return ip, true
}

// Unmap turns an IPv4 address written as IPv6 (::ffff:a.b.c.d) into the
// IPv4 address, dropping its zone; others are returned as they are.
func (ip IP) Unmap() IP {
	if ip.bits != 128 || ip.addr[10] != 0xff || ip.addr[11] != 0xff {
		return ip
	}
	for _, b := range ip.addr[:10] {
		if b != 0 {
			return ip
		}
	}
	v4 := IP{bits: 32}
	copy(v4.addr[12:], ip.addr[12:])
	return v4
}

// Compare orders addresses as netip.Addr.Compare does: no address first,
// then IPv4 before IPv6, then by value, then by zone.
func (ip IP) Compare(o IP) int {
	if ip.bits != o.bits {
		return ip.bits - o.bits
	}
	for i := range ip.addr {
		if ip.addr[i] != o.addr[i] {
			return int(ip.addr[i]) - int(o.addr[i])
		}
	}
	switch {
	case ip.zone < o.zone:
		return -1
	case ip.zone > o.zone:
		return 1
	}
	return 0
}
