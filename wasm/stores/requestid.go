package stores

import (
	"encoding/binary"
	"math/rand/v2"
	"sync/atomic"

	"github.com/tablelab/tablelab/engine/edm"
)

// requestIDs makes the x-ms-request-id of each response: a random
// 64-bit prefix drawn once and a counter, in a UUID's form. The ids need
// to be unique, not unpredictable, and drawing 16 random bytes per
// request would cross into JavaScript for each under GOOS=js. The prefix
// comes from the runtime's own seeded generator: crypto/rand would link
// its DRBG, with AES and SHA-3, for nothing an id needs.
type requestIDs struct {
	prefix [8]byte
	next   atomic.Uint64
}

func newRequestIDs() *requestIDs {
	r := &requestIDs{}
	binary.BigEndian.PutUint64(r.prefix[:], rand.Uint64())
	return r
}

// New returns the next id.
func (r *requestIDs) New() string {
	var b [16]byte
	copy(b[:8], r.prefix[:])
	binary.BigEndian.PutUint64(b[8:], r.next.Add(1))
	b[6] = b[6]&0x0f | 0x40 // version 4, as the service's ids read
	b[8] = b[8]&0x3f | 0x80
	return edm.FormatUUID(b)
}
