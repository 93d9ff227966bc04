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

// TestErrorString pins Error's wording with and without a batch index,
// as fmt wrote it before the browser build dropped fmt.
func TestErrorString(t *testing.T) {
	e := With(InvalidInput, "The value is bad.")
	if got, want := e.Error(), "InvalidInput: The value is bad."; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if got, want := e.AtIndex(12).Error(), "InvalidInput: 12:The value is bad."; got != want {
		t.Errorf("AtIndex(12).Error() = %q, want %q", got, want)
	}
	if e.Index != -1 || New(TableNotFound).Index != -1 {
		t.Error("an error outside a batch names an operation")
	}
}
