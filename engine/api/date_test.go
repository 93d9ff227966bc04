package api

import (
	"testing"
	"time"
)

// TestDateHeader checks the kept Date header against formatting afresh,
// as a test clock moves forward, within a second, and back.
func TestDateHeader(t *testing.T) {
	var d dateHeader
	base := time.Date(2026, 11, 23, 16, 45, 59, 0, time.FixedZone("", 3600))
	for _, step := range []time.Duration{0, 400 * time.Millisecond, 599 * time.Millisecond, time.Second, -2 * time.Second, 90 * time.Minute, -time.Nanosecond} {
		tm := base.Add(step)
		if got, want := d.text(tm), tm.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT"); got != want {
			t.Errorf("at %v: %q, want %q", tm, got, want)
		}
	}
}
