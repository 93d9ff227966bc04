package bench

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/build/floor"
)

// startFloor runs a floor server on a free loopback port for the test
// and returns it with its base URL, as the benchmark's targets have.
func startFloor(t *testing.T) (*floor.Server, string) {
	t.Helper()
	s, err := floor.New(t.TempDir(), 1<<20, PointReadBody())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Close() })
	return s, "http://" + ln.Addr().String() + "/devstoreaccount1"
}

// One client sending to two servers in turn must reach each with exactly
// the requests sent to it: a kept-alive connection goes back only to
// requests for its own host. (With one pool for every host, the second
// server's requests went over the first server's connection.)
func TestClientSendsEachRequestToItsHost(t *testing.T) {
	a, baseA := startFloor(t)
	b, baseB := startFloor(t)
	c := newClient()
	sent := map[string]int64{}
	for i := 0; i < 40; i++ {
		base := baseA
		if i%3 == 0 {
			base = baseB
		}
		code, _, _, err := c.do("GET", base+"/t(PartitionKey='p',RowKey='r')", nil, nil)
		if err != nil || code != 200 {
			t.Fatalf("request %d: %d %v", i, code, err)
		}
		sent[base]++
	}
	if got, want := a.Served(), sent[baseA]; got != want {
		t.Errorf("server A answered %d requests, was sent %d", got, want)
	}
	if got, want := b.Served(), sent[baseB]; got != want {
		t.Errorf("server B answered %d requests, was sent %d", got, want)
	}
	// And the floor says so over HTTP, without counting the question.
	for _, base := range []string{baseA, baseB} {
		for range 2 {
			n, err := served(c, base)
			if err != nil || n != sent[base] {
				t.Errorf("%s says it answered %d (%v), want %d", floor.ServedPath, n, err, sent[base])
			}
		}
	}
}

// rotate checks, after every slice, that each server answered the
// requests the slice sent to it and no others.
func TestRotateFindsRequestsAtTheWrongServer(t *testing.T) {
	_, baseA := startFloor(t)
	_, baseB := startFloor(t)
	lineNamed := func(name string) line {
		for _, l := range lines {
			if l.name == name {
				return l
			}
		}
		t.Fatalf("no line %q", name)
		return line{}
	}
	for _, name := range []string{pointReadC1, insertC1} {
		l := lineNamed(name)
		// One client for both, as the interleaved run once had: its
		// pool must keep the two servers' connections apart.
		c := newClient()
		sides := []side{
			{name: "a", base: baseA, c: c, served: floorServed(baseA)},
			{name: "b", base: baseB, c: c, served: floorServed(baseB)},
		}
		byRound, err := rotate(sides, l, "t", 1000, 20*time.Millisecond, 4)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for j := range sides {
			if r := total(byRound, j); r.ops == 0 || len(r.lats) != r.ops {
				t.Errorf("%s on %s: %d requests, %d latencies", name, sides[j].name, r.ops, len(r.lats))
			}
		}
		// Side b's requests going to server a, as one pool for every host
		// sent them, must be found in the first slice.
		sides[1].base, sides[1].c = baseA, newClient()
		if _, err := rotate(sides, l, "t", 1000, 20*time.Millisecond, 2); err == nil || !strings.Contains(err.Error(), "wrong server") {
			t.Errorf("%s: requests at the wrong server: got %v, want an error saying so", name, err)
		}
	}
}

// compareBuilds rotates a line the floor does not bound between two
// servers and reports each one's rate and their ratio; rotate's count
// check still finds requests sent to the wrong one.
func TestCompareBuildsRotatesBothServers(t *testing.T) {
	a, baseA := startFloor(t)
	b, baseB := startFloor(t)
	var l line
	for _, x := range lines {
		if x.name == "insert c16" {
			l = x
		}
	}
	sides := []side{
		{name: "tablelab", base: baseA, c: newClient(), served: floorServed(baseA)},
		{name: baseline, base: baseB, c: newClient(), served: floorServed(baseB)},
	}
	var out strings.Builder
	if err := compareBuilds(&out, sides, l, "t", 1000, 20*time.Millisecond, 2); err != nil {
		t.Fatal(err)
	}
	if a.Served() == 0 || b.Served() == 0 {
		t.Fatalf("served %d and %d: each side must get its slices", a.Served(), b.Served())
	}
	if got := out.String(); !strings.HasPrefix(got, "insert c16 (interleaved) at 1000 entities: tablelab ") || !strings.Contains(got, "this build / the baseline: ") {
		t.Errorf("report %q", got)
	}
}
