package testrun

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// A Clock tells the time and ticks: the system's in the test command, one
// a test moves by hand in the tests of the heartbeat.
type Clock interface {
	Now() time.Time
	// Every returns a channel that receives every d, and the func that
	// stops it.
	Every(d time.Duration) (<-chan time.Time, func())
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Every(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// startHeartbeat prints a line on console at every tick of clock while a
// tier runs, naming the tier, how long it has run and the last line it
// logged, so that a long tier is never silent for longer than every. The
// returned func stops it; no line is printed once it has returned.
func startHeartbeat(console io.Writer, tier string, clock Clock, every time.Duration, log *lastLine) (stop func()) {
	ticks, stopTicks := clock.Every(every)
	start := clock.Now()
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		for {
			select {
			case <-done:
				return
			case now := <-ticks:
				// The tick's own time: the line says how long the tier
				// had run when it ticked, however late it is written.
				line := fmt.Sprintf("... %s: running for %s", tier, roundTime(now.Sub(start)))
				if last := log.last(); last != "" {
					line += "; last: " + last
				}
				fmt.Fprintln(console, line)
			}
		}
	}()
	return func() {
		stopTicks()
		close(done)
		<-exited
	}
}

// roundTime writes d to the second, or to the tenth under ten seconds.
func roundTime(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// lastLine passes what a tier writes on to its log and keeps the last
// line that holds anything, cut to a console's width, for the heartbeat.
// Tools write to it from several goroutines.
type lastLine struct {
	mu      sync.Mutex
	w       io.Writer
	partial []byte // the line being written
	line    string
}

func (l *lastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	if i := bytes.LastIndexByte(l.partial, '\n'); i >= 0 {
		for _, s := range strings.Split(string(l.partial[:i]), "\n") {
			if s = strings.TrimSpace(s); telling(s) {
				l.line = s
			}
		}
		l.partial = append(l.partial[:0], l.partial[i+1:]...)
	}
	return l.w.Write(p)
}

// telling reports whether a line says where a tier is: not blank, and
// not the frame or timing of node's TAP diagnostics, which follow every
// test's own line.
func telling(line string) bool {
	switch {
	case line == "", line == "...", line == "---":
		return false
	case strings.HasPrefix(line, "duration_ms:"), strings.HasPrefix(line, "type:"):
		return false
	}
	return true
}

// last returns the last line written, at most 100 characters.
func (l *lastLine) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := []rune(l.line); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return l.line
}
