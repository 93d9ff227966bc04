// Package inspect is the local server's live request inspector: a hook in
// each service's front end that, while someone watches, records every
// request answered (its service, target, status and error code, plan,
// examined and returned, duration, request ids, headers and bodies up to
// a limit) into a bounded ring and hands it to the watchers as
// server-sent events.
//
// With no watcher the hook costs one atomic load per request: nothing is
// copied, timed or kept.
package inspect

import (
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of a Hub's bounds.
const (
	DefaultRingSize  = 500
	DefaultBodyLimit = 16 << 10
)

// A Hub collects the records of the requests the services answer, while
// anyone watches, and passes each to every watcher.
type Hub struct {
	// watchers counts subscriptions: the front ends read it on every
	// request, so it stands apart from the lock.
	watchers atomic.Int32
	bodyMax  int

	mu   sync.Mutex
	ring []*Record // oldest first once full: ring[next%len(ring)]
	next uint64    // the ID of the next record; IDs start at 1
	subs map[*subscription]struct{}
	now  func() time.Time
}

// NewHub returns a hub that keeps the last size records (DefaultRingSize
// when size ≤ 0) and, of each body, its first bodyLimit bytes
// (DefaultBodyLimit when bodyLimit ≤ 0).
func NewHub(size, bodyLimit int) *Hub {
	if size <= 0 {
		size = DefaultRingSize
	}
	if bodyLimit <= 0 {
		bodyLimit = DefaultBodyLimit
	}
	return &Hub{ring: make([]*Record, size), next: 1, bodyMax: bodyLimit, subs: map[*subscription]struct{}{}, now: time.Now}
}

// Watching reports whether anyone is subscribed: the hooks record nothing
// when no one is.
func (h *Hub) Watching() bool { return h.watchers.Load() > 0 }

// BodyLimit is how many bytes of each body a record keeps.
func (h *Hub) BodyLimit() int { return h.bodyMax }

// Publish completes r (its ID and the fields read from its exchange),
// keeps it in the ring and passes it to every watcher that has room for
// it; a watcher that has fallen behind misses it and is told how many it
// missed. Publish never waits for a watcher.
func (h *Hub) Publish(r *Record) {
	r.derive()
	h.mu.Lock()
	defer h.mu.Unlock()
	r.ID = h.next
	h.next++
	h.ring[r.ID%uint64(len(h.ring))] = r
	for s := range h.subs {
		select {
		case s.c <- r:
		default:
			s.missed.Add(1)
		}
	}
}

// Lookup returns the record id while the ring still holds it.
func (h *Hub) Lookup(id uint64) (*Record, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.ring[id%uint64(len(h.ring))]
	if r == nil || r.ID != id {
		return nil, false
	}
	return r, true
}

// recent returns the records the ring holds with IDs after id, oldest
// first.
func (h *Hub) recent(after uint64) []*Record {
	var out []*Record
	n := uint64(len(h.ring))
	first := uint64(1)
	if h.next > n {
		first = h.next - n
	}
	first = max(first, after+1)
	for id := first; id < h.next; id++ {
		if r := h.ring[id%n]; r != nil && r.ID == id {
			out = append(out, r)
		}
	}
	return out
}

// Clear empties the ring; watchers keep their subscriptions.
func (h *Hub) Clear() {
	h.mu.Lock()
	defer h.mu.Unlock()
	clear(h.ring)
}

// A subscription is one watcher's queue of records.
type subscription struct {
	c      chan *Record
	missed atomic.Int64
}

// subscriptionBuffer is how many records a watcher may fall behind
// before it misses some.
const subscriptionBuffer = 256

// subscribe starts a subscription and returns it with the records the
// ring holds after the ID after, so that a watcher sees what happened
// before it came (or while it was reconnecting) and nothing twice.
func (h *Hub) subscribe(after uint64) (*subscription, []*Record) {
	s := &subscription{c: make(chan *Record, subscriptionBuffer)}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[s] = struct{}{}
	h.watchers.Add(1)
	return s, h.recent(after)
}

func (h *Hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		h.watchers.Add(-1)
	}
}

// keep returns the first bytes of b up to the body limit, copied: the
// front ends reuse their buffers once a request is answered.
func (h *Hub) keep(b []byte) []byte {
	if len(b) > h.bodyMax {
		b = b[:h.bodyMax]
	}
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
