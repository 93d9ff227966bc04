package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/floor"
)

// interleave measures the lines held to the floor with both servers up
// at once, in short slices that alternate tablelab, floor, floor,
// tablelab, … so that a change in the machine's speed during the run
// (other tenants of its two shared cores) falls on both alike. Run one
// after the other, as the plain run does, the floor's own rate swung by
// half between runs, more than the 20% the target allows. With a
// baseline (s.baseline: another build of the server) it rotates among
// the three, and says how this build compares with that one, and rotates
// the other lines given between the two builds alone; with
// s.spins, floors that busy-wait that long per request join the
// rotation, and show how fast a line falls below the floor as the
// server's time per request grows.
func interleave(s setup, w io.Writer, lines []line, size int, slice time.Duration, rounds int) error {
	names := []string{"tablelab"}
	if s.baseline != "" {
		names = append(names, baseline)
	}
	// Directories of their own: the plain run's tablelab left its data,
	// and more of it (its write lines'), in the one it used. Every server
	// here starts empty and is loaded alike.
	s.tmp = filepath.Join(s.tmp, fmt.Sprintf("interleaved-%d", size))
	if err := os.MkdirAll(s.tmp, 0o755); err != nil {
		return err
	}
	var sides []side
	table := fmt.Sprintf("interleaved%d", size)
	for _, name := range names {
		t, err := s.start(name, size)
		if err != nil {
			return err
		}
		defer t.stop()
		sd := side{name: name, base: t.base, c: newClient()}
		if err := load(sd.c, t.base, table, size); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		sides = append(sides, sd)
	}
	floorSrv, err := s.start("floor", size)
	if err != nil {
		return err
	}
	defer floorSrv.stop()
	floorAt := len(sides)
	sides = append(sides, side{name: "floor", base: floorSrv.base, c: newClient(), served: floorServed(floorSrv.base)})
	names = append(names, "the floor")
	for _, d := range s.spins {
		t, err := s.start(spinFloor(d), size)
		if err != nil {
			return err
		}
		defer t.stop()
		sides = append(sides, side{name: spinFloor(d), base: t.base, c: newClient(), served: floorServed(t.base)})
		names = append(names, "a floor busy "+d.String()+" a request")
	}
	fmt.Fprintf(w, "\ninterleaved: %d rounds of %s slices per server, %s rotating\n", rounds, slice, strings.Join(names, ", "))
	for _, l := range lines {
		if l.name != pointReadC1 && l.name != insertC1 {
			if floorAt == 2 {
				// Not held to the floor, but a change may move it: this
				// build and the baseline alone.
				if err := compareBuilds(w, sides[:2], l, table, size, slice, rounds); err != nil {
					return err
				}
			}
			continue
		}
		byRound, err := rotate(sides, l, table, size, slice, rounds)
		if err != nil {
			return err
		}
		ours, fl := total(byRound, 0), total(byRound, floorAt)
		ratios := roundRatios(byRound, 0, floorAt)
		fmt.Fprintln(w, floorVerdict(l.name+" (interleaved)", size, ours.throughput(), fl.throughput()))
		fmt.Fprintf(w, "  p50: tablelab %s, floor %s\n", ours.pct(0.5).Round(time.Microsecond), fl.pct(0.5).Round(time.Microsecond))
		if len(ratios) > 0 {
			fmt.Fprintf(w, "  per round: min %.2f, median %.2f, max %.2f of the floor\n", ratios[0], ratios[len(ratios)/2], ratios[len(ratios)-1])
		}
		// The others by the total and by the median round: a slice the
		// machine stalls moves a total, hardly a median.
		if floorAt == 2 {
			b := total(byRound, 1)
			fmt.Fprintf(w, "  the baseline: %.0f/s = %.2f of the floor (median round %.2f), p50 %s; this build / the baseline: %.2f (median round %.2f)\n",
				b.throughput(), b.throughput()/fl.throughput(), median(roundRatios(byRound, 1, floorAt)), b.pct(0.5).Round(time.Microsecond),
				ours.throughput()/b.throughput(), median(roundRatios(byRound, 0, 1)))
		}
		for j, d := range s.spins {
			b := total(byRound, floorAt+1+j)
			fmt.Fprintf(w, "  a floor busy %s a request: %.0f/s = %.2f of the floor (median round %.2f), p50 %s\n",
				d, b.throughput(), b.throughput()/fl.throughput(), median(roundRatios(byRound, floorAt+1+j, floorAt)), b.pct(0.5).Round(time.Microsecond))
		}
	}
	return nil
}

// compareBuilds rotates line l between this build and the baseline, the
// two sides given, and says how they compare: how a change to the server
// moves a line that the floor does not bound (insert c16, whose writers
// share syncs).
func compareBuilds(w io.Writer, sides []side, l line, table string, size int, slice time.Duration, rounds int) error {
	byRound, err := rotate(sides, l, table, size, slice, rounds)
	if err != nil {
		return err
	}
	ours, b := total(byRound, 0), total(byRound, 1)
	fmt.Fprintf(w, "%s (interleaved) at %d entities: tablelab %.0f/s, p50 %s; the baseline %.0f/s, p50 %s; this build / the baseline: %.2f (median round %.2f)\n",
		l.name, size, ours.throughput(), ours.pct(0.5).Round(time.Microsecond), b.throughput(), b.pct(0.5).Round(time.Microsecond),
		ours.throughput()/b.throughput(), median(roundRatios(byRound, 0, 1)))
	return nil
}

// A side is one server under rotating load, with a client of its own.
type side struct {
	name, base string
	c          *client
	// served, when not nil, asks the server how many requests it has
	// answered, so that rotate can check that each slice's requests
	// reached the server they were sent to, and no other.
	served func() (int64, error)
}

// rotate runs line l against each of sides for a slice at a time, rounds
// times over: in round i the side (i+k)%n runs k-th, so that each takes
// every place in the order equally, and a change in the machine's speed
// falls on all alike. It returns the results by round, then side.
//
// After every slice it asks each side that counts its requests how many
// it has answered: the side the slice ran against must have answered
// exactly the slice's requests, every other side none.
func rotate(sides []side, l line, table string, size int, slice time.Duration, rounds int) ([][]result, error) {
	count := func() ([]int64, error) {
		n := make([]int64, len(sides))
		for j, s := range sides {
			if s.served == nil {
				continue
			}
			var err error
			if n[j], err = s.served(); err != nil {
				return nil, fmt.Errorf("%s: %w", s.name, err)
			}
		}
		return n, nil
	}
	before, err := count()
	if err != nil {
		return nil, err
	}
	out := make([][]result, rounds)
	for i := range out {
		out[i] = make([]result, len(sides))
		for k := range sides {
			j := (i + k) % len(sides)
			r := l.run(sides[j].c, sides[j].base, table, size, slice)
			if r.errs > 0 {
				return nil, fmt.Errorf("%s on %s: %d errors: %s", l.name, sides[j].name, r.errs, r.firstErr)
			}
			out[i][j] = r
			after, err := count()
			if err != nil {
				return nil, err
			}
			for m, s := range sides {
				want := int64(0)
				if m == j {
					want = int64(r.ops)
				}
				if s.served != nil && after[m]-before[m] != want {
					return nil, fmt.Errorf("%s: %s answered %d requests during a slice that sent %d to it (the slice was %s's): requests went to the wrong server", l.name, s.name, after[m]-before[m], want, sides[j].name)
				}
			}
			before = after
		}
	}
	return out, nil
}

// roundRatios returns side j's throughput over side k's in each round,
// in increasing order.
func roundRatios(byRound [][]result, j, k int) []float64 {
	var out []float64
	for _, r := range byRound {
		if t := r[k].throughput(); t > 0 {
			out = append(out, r[j].throughput()/t)
		}
	}
	slices.Sort(out)
	return out
}

// median returns the middle of sorted values, 0 for none.
func median(sorted []float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[len(sorted)/2]
}

// total sums side j's results over the rounds.
func total(byRound [][]result, j int) result {
	var t result
	for _, r := range byRound {
		t.ops += r[j].ops
		t.entities += r[j].entities
		t.elapsed += r[j].elapsed
		t.lats = append(t.lats, r[j].lats...)
	}
	return t
}

// floorServed asks the floor server at base how many requests it has
// answered, with a client of its own.
func floorServed(base string) func() (int64, error) {
	c := newClient()
	return func() (int64, error) { return served(c, base) }
}

// served asks the floor server at base how many requests it has
// answered (floor.ServedPath).
func served(c *client, base string) (int64, error) {
	u := strings.TrimSuffix(base, "/devstoreaccount1") + floor.ServedPath
	code, body, _, err := c.do("GET", u, nil, nil)
	if err != nil {
		return 0, err
	}
	if code != 200 {
		return 0, fmt.Errorf("%s: status %d", floor.ServedPath, code)
	}
	return strconv.ParseInt(string(body), 10, 64)
}
