package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"
)

// The request inspector's variants of the server, run by inspectorCost.
const (
	// inspectorIdle serves the site, so every front end carries the
	// inspector's hook, with nobody watching.
	inspectorIdle = "tablelab-inspector-idle"
	// inspectorWatched is the same with one viewer connected to the
	// inspector's event stream for the whole run, reading every event.
	inspectorWatched = "tablelab-inspector-watched"
)

// siteStub is the smallest site the server's site goes on serving from
// outside a checkout (it builds nothing there): the inspector's endpoints
// answer beside it.
func siteStub(dir string) error {
	dist := filepath.Join(dir, "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dist, "index.html"), []byte("<!doctype html><title>bench</title>\n"), 0o644)
}

// A viewer reads a server's inspector event stream, as the inspector page
// does, counting the requests it is told of.
type viewer struct {
	events atomic.Int64
	cancel context.CancelFunc
	done   chan struct{}
}

// watch connects a viewer to the site at addr and waits until the stream
// is open, so that every request after it is recorded.
func watch(addr string) (*viewer, error) {
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/_tablelab/inspect/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("the inspector's event stream: %w", err)
	}
	if resp.StatusCode != 200 {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("the inspector's event stream: %s", resp.Status)
	}
	v := &viewer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(v.done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "data: {") {
				v.events.Add(1)
			}
		}
	}()
	return v, nil
}

func (v *viewer) stop() {
	v.cancel()
	<-v.done
}

// inspectorCost measures what the request inspector costs the request
// path: three servers up at once on the same data — without the
// inspector (no site, no hook), with it idle, and with one viewer
// reading its event stream — each line run in short slices that rotate
// among them, so that a change in the machine's speed during the run
// falls on all three alike. It prints each variant's throughput and p50
// and their ratios to the server without the inspector.
func inspectorCost(s setup, w io.Writer, lines []line, size int, slice time.Duration, rounds int) error {
	names := []string{"tablelab", inspectorIdle, inspectorWatched}
	targets := make([]*target, len(names))
	for i, name := range names {
		t, err := s.start(name, size)
		if err != nil {
			return err
		}
		defer t.stop()
		targets[i] = t
	}
	v, err := watch(targets[2].site)
	if err != nil {
		return err
	}
	defer v.stop()
	sides := make([]side, len(targets))
	table := fmt.Sprintf("inspected%d", size)
	for i, t := range targets {
		sides[i] = side{name: t.name, base: t.base, c: newClient()}
		if err := load(sides[i].c, t.base, table, size); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	fmt.Fprintf(w, "\ninspector cost at %d entities: %d rounds of %s slices per server, the three rotating\n", size, rounds, slice)
	fmt.Fprintf(w, "\n| line | without /s | p50 | idle /s | p50 | idle × | watched /s | p50 | watched × |\n|---|---|---|---|---|---|---|---|---|\n")
	before := v.events.Load()
	for _, l := range lines {
		byRound, err := rotate(sides, l, table, size, slice, rounds)
		if err != nil {
			return err
		}
		sums := make([]result, len(sides))
		for j := range sides {
			sums[j] = total(byRound, j)
		}
		base := sums[0].throughput()
		cell := func(r result) string {
			return fmt.Sprintf("%.0f | %s | %.2f", r.throughput(), r.pct(0.5).Round(time.Microsecond), r.throughput()/base)
		}
		fmt.Fprintf(w, "| %s | %.0f | %s | %s | %s |\n", l.name, base, sums[0].pct(0.5).Round(time.Microsecond), cell(sums[1]), cell(sums[2]))
	}
	// Give the stream a moment to deliver the last slice's events.
	time.Sleep(200 * time.Millisecond)
	fmt.Fprintf(w, "\nthe viewer was told of %d requests while the lines ran\n", v.events.Load()-before)
	return nil
}
