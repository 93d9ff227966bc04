// Package bench is the load benchmark: tablelab and Azurite side by side
// in one run, on loopback, with the same workload, printing throughput,
// p50/p99 and peak RSS for each and their ratios.
//
//	go run ./build bench [-sizes 10000,100000,1000000] [-duration 3s] [-targets …,floor]
//
// tablelab runs with -data (every write durable); Azurite runs in memory
// and on disk, from the benchmark's own npm folder (build/bench/js),
// which only the benchmark installs. With the floor target (a do-nothing
// server on the same HTTP stack, package floor) it also prints tablelab
// as a fraction of what the machine allows, and whether the two lines
// held to the floor met their target.
//
//	go run ./build bench -inspector 6 -sizes 10000 -duration 3s -lines 'point read,insert c1'
//
// measures the request inspector's cost instead (inspectorCost): tablelab
// without it, with it idle and with one viewer, side by side.
//
//	go run ./build bench -sizes 10000 -targets tablelab,floor -lines 'point read c1,insert c1' -interleave 20 -baseline /tmp/old/tablelab
//
// adds an earlier build of the server (built from a checkout of it with
// go build) to the interleaved slices, to show a change's effect side by
// side with the floor, in one run; the other lines -lines names (insert
// c16, say) then rotate between the two builds alone. -spins 2us,4us adds
// floors that busy-wait that long before each answer.
package bench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// Run runs the benchmark for the module at root with the command line
// args.
func Run(root string, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizesFlag := fs.String("sizes", "10000,100000,1000000", "table sizes")
	dur := fs.Duration("duration", 3*time.Second, "time per line")
	targetsFlag := fs.String("targets", "tablelab,azurite-memory,azurite-disk,floor", "targets to run, of tablelab, tablelab-in-memory, azurite-memory, azurite-disk, floor (the do-nothing server) and ext=HOST:PORT (a tablelab already running)")
	linesFlag := fs.String("lines", "", "run only the lines whose names contain one of these comma-separated words")
	cpuProfile := fs.String("cpuprofile", "", "write the load client's CPU profile to this `file`")
	rounds := fs.Int("interleave", 0, "with the floor among the targets, also measure the two lines held to the floor in this many `rounds` of alternating slices (a tenth of -duration each), both servers up at once")
	baselineBin := fs.String("baseline", "", "with -interleave, also run the tablelab server `binary` given (an earlier build) in the interleaved slices, to compare two builds side by side in one run; the selected lines not held to the floor rotate between the two builds alone")
	spinsFlag := fs.String("spins", "", "with -interleave, also run floor servers that busy-wait these comma-separated `durations` (2us,4us) before each answer, in the interleaved slices: how a line falls as the server's time grows")
	inspector := fs.Int("inspector", 0, "measure instead the request inspector's cost: tablelab without it, with it idle and with one viewer of its event stream, up at once, in this many `rounds` of rotating slices (a tenth of -duration each) per line")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	sizes, err := parseSizes(*sizesFlag)
	if err != nil {
		return err
	}
	targets := strings.Split(*targetsFlag, ",")
	tmp, err := os.MkdirTemp("", "tablelab-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	s := setup{tmp: tmp}
	if *spinsFlag != "" {
		for _, v := range strings.Split(*spinsFlag, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil || d <= 0 {
				return fmt.Errorf("-spins: %q is not a positive duration", v)
			}
			s.spins = append(s.spins, d)
		}
	}
	if *baselineBin != "" {
		// The servers run in the scratch directory.
		if s.baseline, err = filepath.Abs(*baselineBin); err != nil {
			return err
		}
	}
	if s.bin, err = localserver.Build(root, tmp); err != nil {
		return err
	}
	if *inspector > 0 {
		for _, size := range sizes {
			if err := inspectorCost(s, os.Stdout, selectLines(*linesFlag), size, *dur/10, *inspector); err != nil {
				return err
			}
		}
		return nil
	}
	if slices.ContainsFunc(targets, func(t string) bool { return strings.HasPrefix(t, "azurite") }) {
		if s.azurite, err = installAzurite(root); err != nil {
			return err
		}
	}
	rep := &report{
		w:      os.Stdout,
		sizes:  sizes,
		lines:  selectLines(*linesFlag),
		peak:   map[string]int64{},
		reboot: map[int]time.Duration{},
		fsync:  measureFsync(tmp),
	}
	if rep.fsync > 0 {
		fmt.Printf("fsync bound here: a 1 KiB write + data sync takes %s → at most %.0f sequential durable writes/s\n", rep.fsync.Round(time.Microsecond), 1/rep.fsync.Seconds())
	}
	for _, size := range sizes {
		for _, name := range targets {
			if err := runTarget(s, rep, name, size, *dur); err != nil {
				return err
			}
		}
	}
	rep.ratios("tablelab", "azurite-memory", "azurite-mem")
	if slices.Contains(targets, "tablelab-in-memory") {
		rep.ratios("tablelab", "tablelab-in-memory", "in-memory")
	}
	if slices.Contains(targets, "floor") {
		rep.floor()
		rep.floorTargets()
		if *rounds > 0 {
			for _, size := range sizes {
				if err := interleave(s, os.Stdout, rep.lines, size, *dur/10, *rounds); err != nil {
					return err
				}
			}
		}
	}
	rep.closing()
	return nil
}

// runTarget starts one target, loads a table of size entities into it,
// runs the lines and records their rows.
func runTarget(s setup, rep *report, name string, size int, dur time.Duration) error {
	t, err := s.start(name, size)
	if err != nil {
		return err
	}
	defer t.stop()
	c := newClient()
	table := fmt.Sprintf("bench%d", size)
	runLine := func(l line) {
		r := l.run(c, t.base, table, size, dur)
		fmt.Printf("  %-30s %-15s %10.0f/s p50 %-10s p99 %-10s errors %d %s %s\n", l.name, name, r.throughput(), r.pct(0.5).Round(time.Microsecond), r.pct(0.99).Round(time.Microsecond), r.errs, r.note, r.firstErr)
		rep.rows = append(rep.rows, row{l.name, size, name, r})
	}
	if name == "floor" {
		for _, l := range rep.lines {
			if l.floor {
				runLine(l)
			}
		}
		return nil
	}
	start := time.Now()
	if err := load(c, t.base, table, size); err != nil {
		fmt.Printf("%s at %d entities: load failed: %v\n", name, size, err)
		rep.rows = append(rep.rows, row{"load", size, name, result{note: "load failed: " + firstLine(err.Error())}})
		return nil
	}
	fmt.Printf("%s: loaded %d entities in %s\n", name, size, time.Since(start).Round(time.Millisecond))
	key := peakKey(name, size)
	for _, l := range rep.lines {
		if l.writes && rep.peak[key] == 0 {
			rep.peak[key] = t.peakRSS()
		}
		runLine(l)
	}
	if rep.peak[key] == 0 {
		rep.peak[key] = t.peakRSS()
	}
	fmt.Printf("  peak RSS %s holding the loaded data (before the write lines): %d MiB; at the end: %d MiB\n", key, rep.peak[key]>>20, t.peakRSS()>>20)
	t.stop()
	if name == "tablelab" {
		// Start-up on the same directory: the time to replay it.
		rt, took, err := s.restart(t)
		if err != nil {
			return err
		}
		rep.reboot[size] = took
		fmt.Printf("  restart on %d entities (plus the lines' writes): listening after %s, peak RSS %d MiB\n", size, took.Round(time.Millisecond), rt.peakRSS()>>20)
		rt.stop()
	}
	return nil
}

func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, s := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("-sizes: %q is not a positive number", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// selectLines returns the lines whose names contain one of the
// comma-separated words, or all of them when there are none.
func selectLines(words string) []line {
	if words == "" {
		return lines
	}
	var out []line
	for _, l := range lines {
		for _, w := range strings.Split(words, ",") {
			if strings.Contains(l.name, w) {
				out = append(out, l)
				break
			}
		}
	}
	return out
}
