package engine

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/edm"
)

// The benchmarks compare the engine with a bare tidwall/btree doing the
// same key work in the same run, because this machine is shared and
// noisy: the ratio is the figure that means something. docs/benchmarks.md
// records them with the command that produced them.

const benchEntities = 1_000_000

// benchBlock is how many operations run before the benchmark switches
// between the bare tree and the engine.
const benchBlock = 1000

type bareItem struct{ pk, rk string }

func bareLess(a, b bareItem) bool {
	if a.pk != b.pk {
		return a.pk < b.pk
	}
	return a.rk < b.rk
}

func benchKey(i int) (string, string) {
	return fmt.Sprintf("p%05d", i%50_000), fmt.Sprintf("r%08d", i)
}

var (
	benchOnce  sync.Once
	benchStore *Store
	benchBare  *btree.BTreeG[bareItem]
)

// benchFixture builds, once per test binary, a store and a bare tree with
// the same million keys.
func benchFixture() (*Store, *btree.BTreeG[bareItem]) {
	benchOnce.Do(func() {
		benchStore = New(Options{})
		if err := benchStore.CreateTable("Bench"); err != nil {
			panic(err)
		}
		benchBare = btree.NewBTreeGOptions(bareLess, btree.Options{NoLocks: true})
		for i := 0; i < benchEntities; i++ {
			pk, rk := benchKey(i)
			benchBare.Set(bareItem{pk, rk})
			e := &Entity{PartitionKey: pk, RowKey: rk, Properties: []Property{
				{Name: "N", Value: edm.Int32Value(int32(i))},
			}}
			if _, err := benchStore.Write("Bench", Op{Kind: Insert, Entity: e}); err != nil {
				panic(err)
			}
		}
	})
	return benchStore, benchBare
}

func BenchmarkPointRead(b *testing.B) {
	s, bare := benchFixture()
	keys := make([][2]string, 1<<16)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		keys[i][0], keys[i][1] = benchKey(r.IntN(benchEntities))
	}
	b.ResetTimer()
	// Blocks of the two alternate, so that drift in the machine's speed
	// falls on both alike.
	var bareTime, engineTime time.Duration
	for done := 0; done < b.N; done += benchBlock {
		n := min(benchBlock, b.N-done)
		start := time.Now()
		for i := done; i < done+n; i++ {
			k := keys[i&(len(keys)-1)]
			if _, ok := bare.Get(bareItem{k[0], k[1]}); !ok {
				b.Fatal("missing")
			}
		}
		bareTime += time.Since(start)
		start = time.Now()
		for i := done; i < done+n; i++ {
			k := keys[i&(len(keys)-1)]
			if _, err := s.Get("Bench", k[0], k[1]); err != nil {
				b.Fatal(err)
			}
		}
		engineTime += time.Since(start)
	}
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(engineTime.Nanoseconds())/float64(b.N), "engine-ns/op")
	b.ReportMetric(float64(bareTime)/float64(engineTime), "ratio-of-bare")
}

// kiloEntity returns an entity of about 1 KiB on the wire.
func kiloEntity(pk, rk string, i int) *Entity {
	text := strings.Repeat("abcdefghij", 9)
	return &Entity{PartitionKey: pk, RowKey: rk, Properties: []Property{
		{Name: "FirstName", Value: edm.StringValue("Jonathan")},
		{Name: "LastName", Value: edm.StringValue("Smith-Jones")},
		{Name: "Email", Value: edm.StringValue("jonathan.smith@example.com")},
		{Name: "Age", Value: edm.Int32Value(int32(i % 90))},
		{Name: "Balance", Value: edm.DoubleValue(1234.5)},
		{Name: "Joined", Value: edm.DateTimeTicks(edm.MinDateTimeTicks + int64(i)*edm.TicksPerSecond*3600)},
		{Name: "Active", Value: edm.BoolValue(true)},
		{Name: "Notes1", Value: edm.StringValue(text)},
		{Name: "Notes2", Value: edm.StringValue(text)},
		{Name: "Notes3", Value: edm.StringValue(text)},
		{Name: "Notes4", Value: edm.StringValue(text)},
		{Name: "Notes5", Value: edm.StringValue(text)},
		{Name: "Notes6", Value: edm.StringValue(text)},
		{Name: "Notes7", Value: edm.StringValue(text[:60])},
	}}
}

// wireSize is the size of e as the JSON body an SDK sends.
func wireSize(e *Entity) int {
	n := len(`{"PartitionKey":"","RowKey":""}`) + len(e.PartitionKey) + len(e.RowKey)
	for _, p := range e.Properties {
		n += len(`,"":`) + len(p.Name)
		v := edm.AppendJSON(nil, p.Value)
		n += len(v)
		if p.Value.NeedsAnnotation() {
			n += len(`,"@odata.type":""`) + len(p.Name) + len(p.Value.Kind().String())
		}
	}
	return n
}

func BenchmarkInsert(b *testing.B) {
	s, bare := benchFixture()
	b.ResetTimer()
	// Keys not yet in either tree, in random order as real inserts come.
	r := rand.New(rand.NewPCG(3, 4))
	keys := make([][2]string, b.N)
	ents := make([]*Entity, b.N)
	for i := range keys {
		keys[i][0], keys[i][1] = fmt.Sprintf("p%05d", r.IntN(50_000)), fmt.Sprintf("n%08d-%d", r.IntN(1e8), i)
		ents[i] = kiloEntity(keys[i][0], keys[i][1], i)
	}
	b.ResetTimer()
	var bareTime, engineTime time.Duration
	for done := 0; done < b.N; done += benchBlock {
		n := min(benchBlock, b.N-done)
		start := time.Now()
		for i := done; i < done+n; i++ {
			bare.Set(bareItem{keys[i][0], keys[i][1]})
		}
		bareTime += time.Since(start)
		start = time.Now()
		for i := done; i < done+n; i++ {
			if _, err := s.Write("Bench", Op{Kind: Insert, Entity: ents[i]}); err != nil {
				b.Fatal(err)
			}
		}
		engineTime += time.Since(start)
	}
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		bare.Delete(bareItem{keys[i][0], keys[i][1]})
		s.Write("Bench", Op{Kind: Delete, Entity: &Entity{PartitionKey: keys[i][0], RowKey: keys[i][1]}})
	}
	b.ReportMetric(float64(bareTime.Nanoseconds())/float64(b.N), "bare-ns/op")
	b.ReportMetric(float64(engineTime.Nanoseconds())/float64(b.N), "engine-ns/op")
	b.ReportMetric(float64(bareTime)/float64(engineTime), "ratio-of-bare")
}

func BenchmarkPartitionScan(b *testing.B) {
	s := New(Options{})
	if err := s.CreateTable("Scan"); err != nil {
		b.Fatal(err)
	}
	const n = 200_000
	for i := 0; i < n; i++ {
		last := "Jones"
		if i%500 == 0 {
			last = "Smith"
		}
		e := &Entity{PartitionKey: "Sales", RowKey: fmt.Sprintf("%08d", i), Properties: []Property{
			{Name: "Age", Value: edm.Int32Value(int32(i % 90))},
			{Name: "City", Value: edm.StringValue("Lisbon")},
			{Name: "FirstName", Value: edm.StringValue("Ann")},
			{Name: "LastName", Value: edm.StringValue(last)},
			{Name: "Zip", Value: edm.StringValue("1000-001")},
		}}
		if _, err := s.Write("Scan", Op{Kind: Insert, Entity: e}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	examined := 0
	for i := 0; i < b.N; i++ {
		p, err := s.Query("Scan", Query{Filter: "PartitionKey eq 'Sales' and LastName eq 'Smith'"})
		if err != nil {
			b.Fatal(err)
		}
		if p.Plan.Returned != n/500 {
			b.Fatalf("returned %d", p.Plan.Returned)
		}
		examined += p.Plan.Examined
	}
	b.ReportMetric(float64(examined)/b.Elapsed().Seconds(), "examined/s")
}

// BenchmarkFilteredScan scans a whole table with the three shapes of
// filter a scan evaluates differently: an integer range, tested in line
// by the walk; one comparison of a string, through Match; and two
// comparisons joined by and.
func BenchmarkFilteredScan(b *testing.B) {
	s := New(Options{})
	if err := s.CreateTable("Scan"); err != nil {
		b.Fatal(err)
	}
	const n = 20_000
	for i := 0; i < n; i++ {
		city := "Lisbon"
		if i%100 == 0 {
			city = "Porto"
		}
		e := &Entity{PartitionKey: fmt.Sprintf("p%03d", i%500), RowKey: fmt.Sprintf("%08d", i), Properties: []Property{
			{Name: "Age", Value: edm.Int32Value(int32(i % 90))},
			{Name: "City", Value: edm.StringValue(city)},
			{Name: "FirstName", Value: edm.StringValue("Ann")},
			{Name: "N", Value: edm.Int64Value(int64(i))},
		}}
		if _, err := s.Write("Scan", Op{Kind: Insert, Entity: e}); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, filter string
		returned     int
	}{
		{"int-range", "N ge 100L and N lt 110L", 10},
		{"string", "City eq 'Porto'", n / 100},
		{"and", "Age gt 40 and City eq 'Porto'", 88},
	} {
		b.Run(c.name, func(b *testing.B) {
			examined := 0
			for i := 0; i < b.N; i++ {
				p, err := s.Query("Scan", Query{Filter: c.filter})
				if err != nil {
					b.Fatal(err)
				}
				if p.Plan.Returned != c.returned || p.Plan.Examined != n {
					b.Fatalf("returned %d, examined %d", p.Plan.Returned, p.Plan.Examined)
				}
				examined += p.Plan.Examined
			}
			b.ReportMetric(float64(examined)/b.Elapsed().Seconds(), "examined/s")
		})
	}
}

func BenchmarkHeapPerEntity(b *testing.B) {
	const n = 100_000
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		s := New(Options{})
		if err := s.CreateTable("Heap"); err != nil {
			b.Fatal(err)
		}
		wire := 0
		for j := 0; j < n; j++ {
			e := kiloEntity(fmt.Sprintf("p%04d", j%1000), fmt.Sprintf("r%08d", j), j)
			wire += wireSize(e)
			if _, err := s.Write("Heap", Op{Kind: Insert, Entity: e}); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap := float64(after.HeapAlloc-before.HeapAlloc) / n
		b.ReportMetric(heap, "heap-B/entity")
		b.ReportMetric(float64(wire)/n, "wire-B/entity")
		b.ReportMetric(heap/(float64(wire)/n), "heap/wire")
		runtime.KeepAlive(s)
	}
}
