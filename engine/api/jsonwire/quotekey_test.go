package jsonwire

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzQuoteKey holds QuoteKey's shortcut for plain keys to the full
// quoting: doubled quotes, then path escapes with the quotes left as they
// are.
func FuzzQuoteKey(f *testing.F) {
	for _, k := range []string{"", "p0001", "a-b_c.d~e", "it's", "a b", "a/b?c#d", "ü", "%27", "a+b"} {
		f.Add(k)
	}
	f.Fuzz(func(t *testing.T, k string) {
		want := strings.ReplaceAll(url.PathEscape(strings.ReplaceAll(k, "'", "''")), "%27", "'")
		if got := QuoteKey(k); got != want {
			t.Fatalf("QuoteKey(%q) = %q, want %q", k, got, want)
		}
	})
}
