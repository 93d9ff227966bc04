package bench

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// result is one measured line.
type result struct {
	ops      int
	entities int
	elapsed  time.Duration
	lats     []time.Duration
	errs     int
	firstErr string // the first error a line met, to print beside the count
	note     string
}

func (r result) throughput() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	n := r.ops
	if r.entities > 0 {
		n = r.entities
	}
	return float64(n) / r.elapsed.Seconds()
}

func (r result) pct(p float64) time.Duration {
	if len(r.lats) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), r.lats...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1))]
}

// measure runs fn from conc goroutines until the duration has passed (or
// maxOps operations are done), timing each call.
func measure(conc int, dur time.Duration, maxOps int, fn func(worker, seq int) (entities int, err error)) result {
	var mu sync.Mutex
	var res result
	var count atomic.Int64
	start := time.Now()
	deadline := start.Add(dur)
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var lats []time.Duration
			ents, errs := 0, 0
			var firstErr error
			for seq := 0; time.Now().Before(deadline); seq++ {
				if maxOps > 0 && int(count.Add(1)) > maxOps {
					break
				}
				t0 := time.Now()
				n, err := fn(w, seq)
				lats = append(lats, time.Since(t0))
				ents += n
				if err != nil {
					if errs == 0 {
						firstErr = err
					}
					errs++
					if errs > 20 {
						break
					}
				}
			}
			mu.Lock()
			res.lats = append(res.lats, lats...)
			res.ops += len(lats)
			res.entities += ents
			res.errs += errs
			if firstErr != nil && res.firstErr == "" {
				res.firstErr = firstLine(firstErr.Error())
			}
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
