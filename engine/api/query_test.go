package api

import (
	"testing"

	"github.com/tablelab/tablelab/engine/api/auth"
)

// FuzzQuery holds the route's query to auth.ParseQuery, which the
// verifier reads the same string with: the same failures with the same
// words, and the same first value for every name.
func FuzzQuery(f *testing.F) {
	for _, s := range []string{
		"", "a=1", "a=1&a=2", "&&a=&b", "$filter=PartitionKey%20eq%20'a'&$top=5",
		"sv=2019-02-02&se=2030-01-01T00%3A00%3A00Z&sig=ab%2Bc%3D", "a+b=c+d", "a=%zz", "a=%4", "%=1", "x=%e9%", "$format=application/json;odata=nometadata",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		want, wantErr := auth.ParseQuery(raw)
		var q query
		err := q.parse(raw)
		if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("parse(%q): %v, auth.ParseQuery: %v", raw, err, wantErr)
		}
		if err != nil {
			return
		}
		for name := range want {
			if got := q.Get(name); got != want.Get(name) {
				t.Fatalf("parse(%q).Get(%q) = %q, want %q", raw, name, got, want.Get(name))
			}
		}
		if len(want) == 0 && len(q.pairs) != 0 {
			t.Fatalf("parse(%q): pairs %v, auth.ParseQuery none", raw, q.pairs)
		}
	})
}
