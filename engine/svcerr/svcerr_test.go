package svcerr

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

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

// TestFromAndIs checks that From and Is see through the chains errors.As
// walks: %w wrapping, errors.Join, and wrapping inside a join.
func TestFromAndIs(t *testing.T) {
	base := With(MessageNotFound, "gone")
	for name, err := range map[string]error{
		"bare":           base,
		"wrapped":        fmt.Errorf("op: %w", base),
		"twice wrapped":  fmt.Errorf("outer: %w", fmt.Errorf("inner: %w", base)),
		"joined":         errors.Join(errors.New("first"), base),
		"wrapped joined": fmt.Errorf("op: %w", errors.Join(io.EOF, fmt.Errorf("x: %w", base))),
	} {
		if got := From(err); got != base {
			t.Errorf("%s: From = %v, want the wrapped error", name, got)
		}
		if !Is(err, MessageNotFound) || Is(err, QueueNotFound) {
			t.Errorf("%s: Is does not match the code alone", name)
		}
	}
	for name, err := range map[string]error{
		"plain":        io.EOF,
		"wrapped":      fmt.Errorf("op: %w", io.EOF),
		"joined":       errors.Join(io.EOF, errors.New("x")),
		"not wrapping": errors.New(base.Error()),
	} {
		if got := From(err); got.Code != InternalError || got.Message != InternalError.Message() {
			t.Errorf("%s: From = %v, want an InternalError", name, got)
		}
		if Is(err, MessageNotFound) {
			t.Errorf("%s: Is matched an error that is not a service error", name)
		}
	}
}
