package apifasthttp

import (
	"net"
	"sync"
	"time"
)

// Listener returns ln with the deadlines of the connections it accepts
// kept coarse: a deadline asked for a little after the one already set
// on the connection leaves that one standing. fasthttp sets a read
// deadline twice and a write deadline once for every request on a
// kept-alive connection, each a timer the runtime moves, and at one
// request at a time that work is part of every request's latency
// (docs/benchmarks.md); with the read and idle timeouts equal (Config),
// the deadlines of one request differ from the last one's by its round
// trip, and nearly all of them are left standing.
//
// A deadline may thus come early, by at most a sixteenth of the time it
// gave and never by more than a second; never late. Wrap the listener
// before any TLS listener, so that fasthttp still sees the TLS
// connection.
func Listener(ln net.Listener) net.Listener { return coarseListener{ln} }

type coarseListener struct{ net.Listener }

// Accept implements net.Listener.
func (l coarseListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &coarseConn{Conn: c}, nil
}

// coarseConn is a connection whose deadlines change only when they must
// (Listener).
type coarseConn struct {
	net.Conn
	mu          sync.Mutex
	read, write time.Time // the deadlines set on Conn
}

// NetConn returns the connection c wraps, as tls.Conn's does.
func (c *coarseConn) NetConn() net.Conn { return c.Conn }

// SetReadDeadline implements net.Conn.
func (c *coarseConn) SetReadDeadline(t time.Time) error { return c.set(&c.read, t, false) }

// SetWriteDeadline implements net.Conn.
func (c *coarseConn) SetWriteDeadline(t time.Time) error { return c.set(&c.write, t, true) }

// set sets the read or write deadline to t, unless the one set, *was,
// stands for it.
func (c *coarseConn) set(was *time.Time, t time.Time, write bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stands(*was, t, time.Now()) {
		return nil
	}
	var err error
	if write {
		err = c.Conn.SetWriteDeadline(t)
	} else {
		err = c.Conn.SetReadDeadline(t)
	}
	if err != nil {
		return err
	}
	*was = t
	return nil
}

// SetDeadline implements net.Conn.
func (c *coarseConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// stands reports whether the deadline set, set (zero for none), may stand
// for the one asked for, t, at now: it is still to come, and comes before
// t by no more than a sixteenth of the time t gives, and a second.
func stands(set, t, now time.Time) bool {
	if set.IsZero() || t.IsZero() {
		return set.IsZero() && t.IsZero()
	}
	if !set.After(now) || t.Before(set) {
		return false
	}
	return t.Sub(set) <= min(t.Sub(now)/16, time.Second)
}
