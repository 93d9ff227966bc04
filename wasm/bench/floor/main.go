// Command floor measures the Go runtime's own cost under WebAssembly: small
// kernels of plain Go (string comparison, IndexByte, calls, map lookups,
// sorting, copying, parsing, the clock, allocation) with none of tablelab
// in them. Built natively and for GOOS=js (run under Node), as wasm/bench
// is, the two give the ratio below which the engine cannot be brought by
// changing its own code: native Go reaches much of this through assembly
// that the wasm port lacks. `go run ./build wasm -bench -floor` prints it
// beside the workload.
//
// It prints one line per kernel, as wasm/bench does: name, operations,
// nanoseconds of the process's CPU time per operation, with decimals, as
// the cheapest kernels are too quick for whole nanoseconds. Every kernel
// runs the same number of operations natively and as wasm.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/tablelab/tablelab/wasm/bench/cpuclock"
)

func main() {
	scale := flag.Float64("scale", 1, "fraction of each kernel's operations to run (the test tier runs a small one)")
	flag.Parse()
	if *scale <= 0 {
		fmt.Fprintln(os.Stderr, "floor: -scale must be positive")
		os.Exit(2)
	}
	// A first pass lets V8 compile the hot functions again, optimised,
	// before the measured one; that compiling is on the process's CPU
	// time too.
	run(io.Discard, *scale/10)
	run(os.Stdout, *scale)
}

// A kernel is one measured loop: run does ops operations.
type kernel struct {
	name string
	ops  int
	run  func(ops int)
}

// sink is where the kernels leave their results, so that the compiler
// cannot drop the work that made them.
var sink int

// run measures every kernel, at scale times its operations, and prints
// its line to out.
func run(out io.Writer, scale float64) {
	for _, k := range kernels() {
		ops := max(int(float64(k.ops)*scale), 1)
		start := cpuclock.Now()
		k.run(ops)
		elapsed := cpuclock.Now() - start
		fmt.Fprintf(out, "%s\t%d\t%.3f\n", k.name, ops, float64(elapsed.Nanoseconds())/float64(ops))
	}
}

// kernels returns the kernels with their data made. The operation counts
// make each kernel long enough for the CPU clock to measure well natively
// and short enough, as wasm, for rounds of them all to stay quick.
func kernels() []kernel {
	eq16a, eq16b := differInLast(16)
	eq64a, eq64b := differInLast(64)
	hay := bytes.Repeat([]byte{'a'}, 256)
	hay[255] = 'z'
	keys, probes := mapKeys(1000)
	m := make(map[string]int, len(keys))
	for i, k := range keys {
		m[k] = i
	}
	unsorted := shuffled(1000)
	src, dst := make([]byte, 4096), make([]byte, 4096)
	floats := []string{"12345.678", "0.1", "-3.25e10", "42", "6.02214076e23", "1e-7", "99.5", "-0.001"}
	ifaces := []adder{one{}, two{}}
	return []kernel{
		{"integer loop (the control)", 50_000_000, func(ops int) {
			x := uint64(sink) | 1
			for range ops {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
			sink += int(x)
		}},
		{"plain call (not inlined)", 20_000_000, func(ops int) {
			x := sink
			for i := range ops {
				x = add(x, i)
			}
			sink += x
		}},
		{"interface method call", 20_000_000, func(ops int) {
			// One dynamic type throughout, as at most of the engine's
			// interface calls: alternating two would measure the branch
			// predictor, not the call.
			a, x := ifaces[sink&1], sink
			for i := range ops {
				x = a.add(x, i)
			}
			sink += x
		}},
		{"string == (16 B, differ in last)", 20_000_000, func(ops int) {
			n := 0
			for i := range ops {
				if eq16a[i&3] != eq16b[i&3] {
					n++
				}
			}
			sink += n
		}},
		{"string == (64 B, differ in last)", 20_000_000, func(ops int) {
			n := 0
			for i := range ops {
				if eq64a[i&3] != eq64b[i&3] {
					n++
				}
			}
			sink += n
		}},
		{"bytes.IndexByte (256 B)", 5_000_000, func(ops int) {
			n := 0
			for i := range ops {
				n += bytes.IndexByte(hay[i&1:], 'z')
			}
			sink += n
		}},
		{"copy (4 KiB)", 1_000_000, func(ops int) {
			n := 0
			for i := range ops {
				src[i&4095] = byte(i)
				copy(dst, src)
				n += int(dst[i&4095])
			}
			sink += n
		}},
		{"map[string]int lookup (16 B keys, 1,000)", 5_000_000, func(ops int) {
			n := 0
			for i := range ops {
				n += m[probes[i%len(probes)]]
			}
			sink += n
		}},
		{"slices.Sort (1,000 short strings)", 500, func(ops int) {
			work := make([]string, len(unsorted))
			for range ops {
				copy(work, unsorted)
				slices.Sort(work)
			}
			sink += len(work[0])
		}},
		{"strconv.ParseFloat", 3_000_000, func(ops int) {
			f := 0.0
			for i := range ops {
				v, err := strconv.ParseFloat(floats[i&7], 64)
				if err != nil {
					panic(err)
				}
				f += v
			}
			sink += int(f)
		}},
		{"strconv.AppendInt", 5_000_000, func(ops int) {
			var buf [24]byte
			n := 0
			for i := range ops {
				n += len(strconv.AppendInt(buf[:0], int64(i)*7919-1e9, 10))
			}
			sink += n
		}},
		{"time.Now", 2_000_000, func(ops int) {
			var t int64
			for range ops {
				t += time.Now().UnixNano()
			}
			sink += int(t)
		}},
		{"append-grow []byte (256 appends)", 300_000, func(ops int) {
			n := 0
			for i := range ops {
				var b []byte
				for j := range 256 {
					b = append(b, byte(i+j))
				}
				n += int(b[255])
			}
			sink += n
		}},
		{"new 32 B struct with a pointer", 5_000_000, func(ops int) {
			// Each node is kept until the ring comes round again, so that
			// the collector has live pointers to trace and garbage to free.
			ring := make([]*node, 1024)
			var prev *node
			for i := range ops {
				n := &node{next: prev, a: int64(i)}
				ring[i&1023] = n
				prev = n
				if i&1023 == 1023 {
					prev = nil
				}
			}
			sink += int(ring[0].a)
		}},
	}
}

// node is 32 bytes with a pointer, like the engine's small records.
type node struct {
	next    *node
	a, b, c int64
}

type adder interface{ add(x, y int) int }

type one struct{}
type two struct{}

//go:noinline
func (one) add(x, y int) int { return x + y + 1 }

//go:noinline
func (two) add(x, y int) int { return x + y + 2 }

//go:noinline
func add(x, y int) int { return x + y }

// differInLast makes four pairs of n-byte strings, each pair equal but for
// its last byte, apart in memory so that no comparison is cut short by the
// two being the same bytes.
func differInLast(n int) (a, b [4]string) {
	for i := range a {
		s := bytes.Repeat([]byte{'k' + byte(i)}, n)
		a[i] = string(s)
		s[n-1] = 'Z'
		b[i] = string(s)
	}
	return a, b
}

// mapKeys makes n distinct 16-byte keys, and for each a copy of its own
// to look it up with, as a lookup with a key just parsed from a request.
func mapKeys(n int) (keys, probes []string) {
	for i := range n {
		k := fmt.Sprintf("pk%06d-rk%05d", i*7919%1000003, i)
		keys = append(keys, k)
		probes = append(probes, string([]byte(k)))
	}
	return keys, probes
}

// shuffled makes n short strings in a fixed pseudo-random order.
func shuffled(n int) []string {
	s := make([]string, n)
	x := uint32(2463534242)
	for i := range s {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		s[i] = "k" + strconv.FormatUint(uint64(x%1_000_000), 36)
	}
	return s
}
