package api

import (
	"errors"
	"testing"
)

type stringer struct{}

func (stringer) String() string { return "a stringer" }

// TestPanicText checks the words of a recovered panic against what %v
// wrote for the values panics carry.
func TestPanicText(t *testing.T) {
	var nilMap map[string]int
	runtimeErr := func() (err error) {
		defer func() { err = recover().(error) }()
		nilMap["x"] = 1
		return nil
	}()
	for _, c := range []struct {
		p    any
		want string
	}{
		{errors.New("boom"), "boom"},
		{runtimeErr, "assignment to entry in nil map"},
		{"plain", "plain"},
		{stringer{}, "a stringer"},
		{42, "42"},
		{3.5, "a panic value that is not an error or a string"},
	} {
		if got := panicText(c.p); got != c.want {
			t.Errorf("panicText(%#v) = %q, want %q", c.p, got, c.want)
		}
	}
}
