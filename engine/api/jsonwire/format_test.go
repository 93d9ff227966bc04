package jsonwire

import (
	"strings"
	"testing"
)

// splitLevel is level as it was written with strings.Split, kept as the
// reference the allocation-free reading is held to.
func splitLevel(s string) (Metadata, bool) {
	params := strings.Split(s, ";")
	switch strings.ToLower(strings.TrimSpace(params[0])) {
	case "application/json", "*/*", "application/*", "json":
	default:
		return 0, false
	}
	m := MinimalMetadata
	for _, p := range params[1:] {
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "odata") {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "nometadata":
				m = NoMetadata
			case "minimalmetadata":
				m = MinimalMetadata
			case "fullmetadata":
				m = FullMetadata
			default:
				return 0, false
			}
		}
	}
	return m, true
}

func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"", "application/json", "application/json;odata=nometadata", "application/atom+xml, application/json;odata=fullmetadata",
		"*/*;q=0.8", "json;odata=bogus", ";;,,", "APPLICATION/JSON; ODATA=FullMetadata"} {
		f.Add(s, "")
		f.Add("", s)
	}
	f.Fuzz(func(t *testing.T, accept, format string) {
		got, err := ParseFormat(accept, format)
		var want Metadata
		ok := false
		switch {
		case format != "":
			want, ok = splitLevel(format)
		case strings.TrimSpace(accept) == "":
			want, ok = MinimalMetadata, true
		default:
			for _, part := range strings.Split(accept, ",") {
				if want, ok = splitLevel(part); ok {
					break
				}
			}
		}
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("ParseFormat(%q, %q) = %v, %v; want %v, %v", accept, format, got, err, want, ok)
		}
		if ok && !strings.Contains(got.ContentType(), "odata="+[...]string{"", "nometadata", "minimalmetadata", "fullmetadata"}[got]+";") {
			t.Fatalf("ContentType of %d is %q", got, got.ContentType())
		}
	})
}
