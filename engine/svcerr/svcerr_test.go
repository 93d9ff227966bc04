package svcerr

import "testing"

func TestClause(t *testing.T) {
	for in, want := range map[string]string{
		"The value 'x' is not a valid Edm.Double.": "The value 'x' is not a valid Edm.Double",
		"unexpected 'x'":      "Unexpected 'x'",
		"  trailing space.  ": "Trailing space",
		"":                    "",
		"Ends in a quote '.'": "Ends in a quote '.'",
	} {
		if got := Clause(in); got != want {
			t.Errorf("Clause(%q) = %q, want %q", in, got, want)
		}
	}
}
