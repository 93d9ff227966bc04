package bench

import (
	"fmt"
	"io"
	"time"
)

// floorTarget is the fraction of the floor server's throughput that
// point reads at c1 and sequential writes must reach in the same run:
// those are the two lines where the loopback round trip and the disk,
// not tablelab, set the bound.
const floorTarget = 0.8

// row is one line measured on one target at one size.
type row struct {
	line   string
	size   int
	target string
	res    result
}

// report holds a run's rows and prints its tables.
type report struct {
	w      io.Writer
	sizes  []int
	lines  []line
	rows   []row
	peak   map[string]int64 // by target@size, holding the loaded data
	fsync  time.Duration    // a 1 KiB write + data sync
	reboot map[int]time.Duration
}

func (r *report) find(line string, size int, target string) (result, bool) {
	for _, x := range r.rows {
		if x.line == line && x.size == size && x.target == target {
			return x.res, true
		}
	}
	return result{}, false
}

func peakKey(target string, size int) string { return fmt.Sprintf("%s@%d", target, size) }

// ratios prints one target against another, as ratios: tablelab against
// Azurite in memory, and, when it ran, against itself holding every
// entity in memory.
func (r *report) ratios(ours, theirs, label string) {
	fmt.Fprintf(r.w, "\n| size | line | %s /s | p50 | p99 | %s /s | p50 | p99 | throughput × | p99 ratio |\n|---|---|---|---|---|---|---|---|---|---|\n", ours, label)
	for _, size := range r.sizes {
		for _, l := range r.lines {
			a, ok1 := r.find(l.name, size, ours)
			b, ok2 := r.find(l.name, size, theirs)
			if !ok1 {
				continue
			}
			bt, bp50, bp99, ratio, p99r := "n/a", "", "", "", ""
			if ok2 && b.ops > 0 {
				bt = fmt.Sprintf("%.0f", b.throughput())
				bp50, bp99 = b.pct(0.5).Round(time.Microsecond).String(), b.pct(0.99).Round(time.Microsecond).String()
				ratio = fmt.Sprintf("%.1f×", a.throughput()/b.throughput())
				p99r = fmt.Sprintf("%.2f", float64(a.pct(0.99))/float64(b.pct(0.99)))
			}
			fmt.Fprintf(r.w, "| %d | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", size, l.name, a.throughput(), a.pct(0.5).Round(time.Microsecond), a.pct(0.99).Round(time.Microsecond), bt, bp50, bp99, ratio, p99r)
		}
		o, t := r.peak[peakKey(ours, size)], r.peak[peakKey(theirs, size)]
		ratio := ""
		if t > 0 {
			ratio = fmt.Sprintf("%.2f of %s", float64(o)/float64(t), label)
		}
		fmt.Fprintf(r.w, "| %d | peak RSS, loaded data | %d MiB | | | %d MiB | | | | %s |\n", size, o>>20, t>>20, ratio)
	}
}

// floor prints what the machine leaves reachable: tablelab as a fraction
// of the do-nothing server, and what 10× Azurite would ask of it.
func (r *report) floor() {
	fmt.Fprintf(r.w, "\n| size | line | tablelab /s | p50 | floor /s | p50 | tablelab of floor | 10× azurite-mem /s | of floor |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, size := range r.sizes {
		for _, l := range r.lines {
			a, ok1 := r.find(l.name, size, "tablelab")
			f, ok2 := r.find(l.name, size, "floor")
			if !ok1 || !ok2 || f.ops == 0 {
				continue
			}
			need, needOf := "", ""
			if l.writes {
				// A sequential write line: its target is the fsync
				// bound, not 10× Azurite.
				need, needOf = "(bound)", "n/a"
				if r.fsync > 0 {
					needOf = fmt.Sprintf("floor is %.2f of the bound", f.throughput()*r.fsync.Seconds())
				}
			} else if z, ok := r.find(l.name, size, "azurite-memory"); ok && z.ops > 0 {
				need = fmt.Sprintf("%.0f", 10*z.throughput())
				needOf = fmt.Sprintf("%.2f", 10*z.throughput()/f.throughput())
			}
			fmt.Fprintf(r.w, "| %d | %s | %.0f | %s | %.0f | %s | %.2f | %s | %s |\n", size, l.name, a.throughput(), a.pct(0.5).Round(time.Microsecond), f.throughput(), f.pct(0.5).Round(time.Microsecond), a.throughput()/f.throughput(), need, needOf)
		}
	}
}

// floorTargets prints, for the two lines held to the floor, whether this
// run met the target, so that a run says so without arithmetic.
func (r *report) floorTargets() {
	fmt.Fprintln(r.w)
	for _, size := range r.sizes {
		for _, name := range []string{pointReadC1, insertC1} {
			a, ok1 := r.find(name, size, "tablelab")
			f, ok2 := r.find(name, size, "floor")
			if !ok1 || !ok2 || f.throughput() == 0 {
				continue
			}
			fmt.Fprintln(r.w, floorVerdict(name, size, a.throughput(), f.throughput()))
		}
	}
}

// floorVerdict is one line of floorTargets.
func floorVerdict(line string, size int, ours, floor float64) string {
	frac := ours / floor
	verdict := "met"
	if frac < floorTarget {
		verdict = "short"
	}
	return fmt.Sprintf("target: %s at %d entities: tablelab %.0f/s, floor %.0f/s = %.2f of the floor (target ≥ %.2f): %s",
		line, size, ours, floor, frac, floorTarget, verdict)
}

// closing prints the restart times and the write lines against the fsync
// bound.
func (r *report) closing() {
	for _, size := range r.sizes {
		fmt.Fprintf(r.w, "tablelab restart with %d entities loaded: %s\n", size, r.reboot[size].Round(time.Millisecond))
	}
	if r.fsync <= 0 {
		return
	}
	bound := 1 / r.fsync.Seconds()
	for _, size := range r.sizes {
		if res, ok := r.find(insertC1, size, "tablelab"); ok {
			fmt.Fprintf(r.w, "sequential durable inserts over HTTP at %d entities: %.0f/s, %.2f of the fsync bound (%.0f/s)\n", size, res.throughput(), res.throughput()/bound, bound)
		}
	}
	fmt.Fprintf(r.w, "\nfsync bound: %.0f writes/s (1 KiB write + data sync = %s)\n", bound, r.fsync.Round(time.Microsecond))
}
