package urltext

import (
	"net/netip"
	"net/url"
	"strconv"
	"testing"
)

var texts = []string{
	"", "plain", "a+b", "a%20b", "%41%2f%2F", "%", "%4", "%zz", "50%", "x%4g", "ü/é?x=1&y=2",
	"$&+,/:;=?@ ", "-._~", "line\nbreak", "\x00\xff", "%E2%82%AC+%2B",
}

func TestUnescape(t *testing.T) {
	for _, s := range texts {
		checkUnescape(t, s)
	}
}

func TestEscape(t *testing.T) {
	for _, s := range texts {
		checkEscape(t, s)
	}
	for c := 0; c < 256; c++ {
		checkEscape(t, string([]byte{byte(c)}))
	}
}

func checkUnescape(t *testing.T, s string) {
	t.Helper()
	for _, f := range []struct {
		name      string
		got, want func(string) (string, error)
	}{
		{"PathUnescape", PathUnescape, url.PathUnescape},
		{"QueryUnescape", QueryUnescape, url.QueryUnescape},
	} {
		got, gotErr := f.got(s)
		want, wantErr := f.want(s)
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s(%q) = %q, %v; net/url says %q, %v", f.name, s, got, gotErr, want, wantErr)
		} else if gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%s(%q) fails with %q; net/url with %q", f.name, s, gotErr, wantErr)
		}
	}
}

func checkEscape(t *testing.T, s string) {
	t.Helper()
	if got, want := PathEscape(s), url.PathEscape(s); got != want {
		t.Errorf("PathEscape(%q) = %q; net/url says %q", s, got, want)
	}
	if got, want := QueryEscape(s), url.QueryEscape(s); got != want {
		t.Errorf("QueryEscape(%q) = %q; net/url says %q", s, got, want)
	}
}

func TestValues(t *testing.T) {
	v := Values{}
	u := url.Values{}
	for _, kv := range [][2]string{{"b", "2"}, {"a", "x y"}, {"b", "1"}, {"é", "&="}, {"empty", ""}} {
		v.Add(kv[0], kv[1])
		u.Add(kv[0], kv[1])
	}
	v.Set("a", "only")
	u.Set("a", "only")
	if got, want := v.Encode(), u.Encode(); got != want {
		t.Errorf("Encode = %q; net/url says %q", got, want)
	}
	if v.Get("b") != "2" || v.Get("missing") != "" || !v.Has("empty") || v.Has("missing") {
		t.Errorf("Get or Has disagree with the values %v", v)
	}
	if (Values{}).Encode() != "" {
		t.Error("no values should encode as nothing")
	}
}

var ips = []string{
	"", "1.2.3.4", "0.0.0.0", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1.2.3.4.5", "1..2.3",
	".1.2.3", "1.2.3.", "1.2.3.x", "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8:9",
	"1:2:3:4:5:6:7::", "::1:2:3:4:5:6:7", "1::2::3", "12345::", "::ffff:1.2.3.4", "::ffff:01.2.3.4",
	"1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3.4", "fe80::1%eth0", "fe80::1%", "%eth0",
	"FFFF::ABCD", ":1", "1:", ":::", "1:2:3:4:5:6:7:8::", "::ffff:1.2.3.4%z", "localhost", "[::1]",
	"::ffff:0:1.2.3.4", "0:0:0:0:0:ffff:102:304",
}

func TestParseIP(t *testing.T) {
	for _, s := range ips {
		checkIP(t, s)
	}
	for _, a := range ips {
		for _, b := range ips {
			checkCompare(t, a, b)
		}
	}
}

func checkIP(t *testing.T, s string) {
	t.Helper()
	got, ok := ParseIP(s)
	want, err := netip.ParseAddr(s)
	if ok != (err == nil) {
		t.Fatalf("ParseIP(%q) ok = %t; netip says %v", s, ok, err)
	}
	if !ok {
		return
	}
	if got.bits != want.BitLen() || got.zone != want.Zone() || got.addr != want.As16() && got.bits == 128 ||
		got.bits == 32 && [4]byte(got.addr[12:]) != want.As4() {
		t.Errorf("ParseIP(%q) = %v; netip says %v", s, got, want)
	}
	if u, w := got.Unmap(), want.Unmap(); u.bits != w.BitLen() || u.zone != w.Zone() {
		t.Errorf("ParseIP(%q).Unmap() = %v; netip says %v", s, u, w)
	}
}

func checkCompare(t *testing.T, a, b string) {
	t.Helper()
	x, _ := ParseIP(a)
	y, _ := ParseIP(b)
	nx, _ := netip.ParseAddr(a)
	ny, _ := netip.ParseAddr(b)
	for _, unmap := range []bool{false, true} {
		if unmap {
			x, y, nx, ny = x.Unmap(), y.Unmap(), nx.Unmap(), ny.Unmap()
		}
		if got, want := sign(x.Compare(y)), nx.Compare(ny); got != want {
			t.Errorf("Compare(%q, %q) (unmapped: %t) = %d; netip says %d", a, b, unmap, got, want)
		}
	}
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

func FuzzUnescape(f *testing.F) {
	for _, s := range texts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkUnescape(t, s)
		checkEscape(t, s)
	})
}

func FuzzParseIP(f *testing.F) {
	for _, s := range ips {
		f.Add(s, "::1")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkIP(t, a)
		checkIP(t, b)
		checkCompare(t, a, b)
	})
}

func TestEncodeSortsManyNames(t *testing.T) {
	v := Values{}
	u := url.Values{}
	for i := range 200 {
		// Names in no order, some repeated.
		k := strconv.Itoa(i * 7919 % 113)
		v.Add(k, strconv.Itoa(i))
		u.Add(k, strconv.Itoa(i))
	}
	if got, want := v.Encode(), u.Encode(); got != want {
		t.Errorf("Encode = %q; net/url says %q", got, want)
	}
}
