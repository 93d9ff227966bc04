package bench

import (
	"fmt"
	"io"
	"slices"
	"time"
)

// interleave measures the lines held to the floor with both servers up
// at once, in short slices that alternate tablelab, floor, floor,
// tablelab, … so that a change in the machine's speed during the run
// (other tenants of its two shared cores) falls on both alike. Run one
// after the other, as the plain run does, the floor's own rate swung by
// half between runs, more than the 20% the target allows.
func interleave(s setup, w io.Writer, lines []line, size int, slice time.Duration, rounds int) error {
	tl, err := s.start("tablelab", size)
	if err != nil {
		return err
	}
	defer tl.stop()
	fl, err := s.start("floor", size)
	if err != nil {
		return err
	}
	defer fl.stop()
	c := newClient()
	// A table of its own: the data directory may hold the plain run's.
	table := fmt.Sprintf("interleaved%d", size)
	if err := load(c, tl.base, table, size); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ninterleaved: %d rounds of %s slices per server, tablelab and the floor alternating\n", rounds, slice)
	for _, l := range lines {
		if l.name != pointReadC1 && l.name != insertC1 {
			continue
		}
		var ours, floor result
		var ratios []float64
		for i := 0; i < rounds; i++ {
			run := func(base string) result { return l.run(c, base, table, size, slice) }
			var a, f result
			if i%2 == 0 {
				a, f = run(tl.base), run(fl.base)
			} else {
				f, a = run(fl.base), run(tl.base)
			}
			if a.errs > 0 || f.errs > 0 {
				return fmt.Errorf("%s: errors in an interleaved slice: %s%s", l.name, a.firstErr, f.firstErr)
			}
			ours.ops, ours.elapsed = ours.ops+a.ops, ours.elapsed+a.elapsed
			floor.ops, floor.elapsed = floor.ops+f.ops, floor.elapsed+f.elapsed
			if f.throughput() > 0 {
				ratios = append(ratios, a.throughput()/f.throughput())
			}
		}
		slices.Sort(ratios)
		fmt.Fprintln(w, floorVerdict(l.name+" (interleaved)", size, ours.throughput(), floor.throughput()))
		if len(ratios) > 0 {
			fmt.Fprintf(w, "  per round: min %.2f, median %.2f, max %.2f of the floor\n", ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
		}
	}
	return nil
}
