package apifasthttp

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

func TestDeadlineStands(t *testing.T) {
	now := time.Now()
	at := func(d time.Duration) time.Time { return now.Add(d) }
	for _, c := range []struct {
		name   string
		set, t time.Time
		want   bool
	}{
		{"none set, none asked", time.Time{}, time.Time{}, true},
		{"none set", time.Time{}, at(time.Minute), false},
		{"none asked", at(time.Minute), time.Time{}, false},
		{"the same", at(time.Minute), at(time.Minute), true},
		{"a round trip later", at(time.Minute), at(time.Minute + 150*time.Microsecond), true},
		{"a second later", at(time.Minute), at(time.Minute + time.Second), true},
		{"over a second later", at(time.Minute), at(time.Minute + time.Second + time.Millisecond), false},
		{"earlier", at(time.Minute), at(time.Minute - time.Millisecond), false},
		{"set one passed", at(-time.Millisecond), at(time.Microsecond), false},
		{"set one now", now, at(time.Microsecond), false},
		// A short deadline may come early by a sixteenth of it only:
		// linger's pauses of 200 ms, 12.5 ms.
		{"a sixteenth later", at(200 * time.Millisecond), at(200*time.Millisecond + 12*time.Millisecond), true},
		{"over a sixteenth later", at(200 * time.Millisecond), at(200*time.Millisecond + 14*time.Millisecond), false},
		{"one of 2 min for one of 1", at(time.Minute), at(2 * time.Minute), false},
	} {
		if got := stands(c.set, c.t, now); got != c.want {
			t.Errorf("%s: stands = %v, want %v", c.name, got, c.want)
		}
	}
}

// countingConn counts the deadlines set on it.
type countingConn struct {
	net.Conn
	reads, writes int
}

func (c *countingConn) SetReadDeadline(t time.Time) error {
	c.reads++
	return c.Conn.SetReadDeadline(t)
}

func (c *countingConn) SetWriteDeadline(t time.Time) error {
	c.writes++
	return c.Conn.SetWriteDeadline(t)
}

// pipe returns the two ends of a loopback TCP connection, the server's
// counted and coarse.
func pipe(t *testing.T) (*coarseConn, *countingConn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { server.Close() })
	counted := &countingConn{Conn: server}
	return &coarseConn{Conn: counted}, counted, client
}

// The deadlines fasthttp sets for each request of a kept-alive
// connection, a minute ahead each, reach the connection about once a
// second, not three times a request.
func TestCoarseConnSetsDeadlinesOnlyWhenTheyMove(t *testing.T) {
	c, counted, _ := pipe(t)
	for range 1000 {
		if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if counted.reads != 1 || counted.writes != 1 {
		t.Errorf("3,000 deadlines within a second set %d read and %d write deadlines on the connection, want 1 and 1", counted.reads, counted.writes)
	}
	// An earlier one, or none, always reaches it.
	c.SetReadDeadline(time.Now().Add(time.Second))
	c.SetWriteDeadline(time.Time{})
	if counted.reads != 2 || counted.writes != 2 {
		t.Errorf("an earlier deadline and none: %d and %d set, want 2 and 2", counted.reads, counted.writes)
	}
}

// A read still times out when asked, not later; one asked for after a
// deadline has passed is set again (linger's pauses), not left passed.
func TestCoarseConnDeadlinesStillFire(t *testing.T) {
	c, _, client := pipe(t)
	buf := make([]byte, 1)
	read := func(wait time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		for range 10 { // set again and again as a server would
			c.SetReadDeadline(start.Add(wait))
		}
		_, err := c.Read(buf)
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("read: %v, want a timeout", err)
		}
		return time.Since(start)
	}
	for range 3 {
		if got := read(50 * time.Millisecond); got < 46*time.Millisecond || got > 2*time.Second {
			t.Fatalf("a read given 50 ms timed out after %v", got)
		}
	}
	// The deadline passed is not left standing: the next read waits.
	c.SetReadDeadline(time.Now().Add(time.Minute))
	client.Write([]byte("x"))
	if _, err := c.Read(buf); err != nil || buf[0] != 'x' {
		t.Fatalf("read after the deadline moved: %q, %v", buf, err)
	}
}
