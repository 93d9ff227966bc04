package engine

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/keyspace"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// fixedClock never advances: every Timestamp must still be unique.
func fixedClock() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }

func newStore(t testing.TB) *Store {
	t.Helper()
	s := New(Options{Now: fixedClock})
	if err := s.CreateTable("People"); err != nil {
		t.Fatal(err)
	}
	return s
}

func ent(pk, rk string, props ...any) *Entity {
	e := &Entity{PartitionKey: pk, RowKey: rk}
	for i := 0; i+1 < len(props); i += 2 {
		var v edm.Value
		switch x := props[i+1].(type) {
		case string:
			v = edm.StringValue(x)
		case int:
			v = edm.Int32Value(int32(x))
		case int64:
			v = edm.Int64Value(x)
		case float64:
			v = edm.DoubleValue(x)
		case bool:
			v = edm.BoolValue(x)
		case edm.Value:
			v = x
		}
		e.Properties = append(e.Properties, Property{Name: props[i].(string), Value: v})
	}
	return e
}

// getEntity returns the entity Get finds, or nil with its error.
func getEntity(s *Store, table, pk, rk string) (*Entity, error) {
	l, err := s.Get(table, pk, rk)
	return l.Entity, err
}

func wantCode(t *testing.T, err error, code svcerr.Code) {
	t.Helper()
	if !svcerr.Is(err, code) {
		t.Fatalf("got error %v, want code %s", err, code)
	}
}

func TestTableNames(t *testing.T) {
	s := New(Options{})
	for name, code := range map[string]svcerr.Code{
		"ab":                     svcerr.OutOfRangeInput,
		"1abc":                   svcerr.InvalidResourceName,
		"ab-c":                   svcerr.InvalidResourceName,
		"tables":                 svcerr.InvalidInput,
		"TABLES":                 svcerr.InvalidInput,
		"":                       svcerr.OutOfRangeInput,
		string(make([]byte, 64)): svcerr.InvalidResourceName,
	} {
		wantCode(t, s.CreateTable(name), code)
	}
	long := bytes.Repeat([]byte("a"), 64)
	wantCode(t, s.CreateTable(string(long)), svcerr.OutOfRangeInput)
	if err := s.CreateTable(string(long[:63])); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable("MyTable"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.CreateTable("mytable"), svcerr.TableAlreadyExists)
	if name, ok := s.TableExists("MYTABLE"); !ok || name != "MyTable" {
		t.Fatalf("TableExists = %q, %v", name, ok)
	}
	wantCode(t, s.DeleteTable("nosuch"), svcerr.ResourceNotFound)
}

func TestTableListingPagesAndFilter(t *testing.T) {
	s := New(Options{})
	for _, n := range []string{"delta", "Alpha", "charlie", "bravo", "echo"} {
		if err := s.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	q := TableQuery{Top: 2}
	pages := 0
	for {
		p, err := s.QueryTables(q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		got = append(got, p.Names...)
		if p.NextTableName == "" {
			break
		}
		q.NextTableName = p.NextTableName
	}
	if fmt.Sprint(got) != "[Alpha bravo charlie delta echo]" || pages != 3 {
		t.Fatalf("listing %v in %d pages", got, pages)
	}
	p, err := s.QueryTables(TableQuery{Filter: "TableName ge 'c' and TableName lt 'e'"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(p.Names) != "[charlie delta]" {
		t.Fatalf("filtered %v", p.Names)
	}
}

func TestCRUDAndETags(t *testing.T) {
	s := newStore(t)
	r1, err := s.Write("people", Op{Kind: Insert, Entity: ent("Sales", "1", "Name", "Ann", "Age", 30)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Write("People", Op{Kind: Insert, Entity: ent("Sales", "1")})
	wantCode(t, err, svcerr.EntityAlreadyExists)

	got, err := getEntity(s, "People", "Sales", "1")
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag() != r1.ETag() {
		t.Fatalf("stored etag %s, write returned %s", got.ETag(), r1.ETag())
	}
	if v, _ := got.Property("Name"); v.Str() != "Ann" {
		t.Fatalf("Name = %v", v)
	}

	// Merge keeps Age, replace drops it.
	r2, err := s.Write("People", Op{Kind: Merge, Entity: ent("Sales", "1", "Name", "Anne"), IfMatch: r1.ETag()})
	if err != nil {
		t.Fatal(err)
	}
	if r2.ETag() == r1.ETag() {
		t.Fatal("ETag did not change on merge within one clock tick")
	}
	got, _ = getEntity(s, "People", "Sales", "1")
	if v, ok := got.Property("Age"); !ok || v.Int() != 30 {
		t.Fatalf("merge lost Age: %v", got.Properties)
	}
	_, err = s.Write("People", Op{Kind: Replace, Entity: ent("Sales", "1", "X", 1), IfMatch: r1.ETag()})
	wantCode(t, err, svcerr.UpdateConditionNotSatisfied)
	_, err = s.Write("People", Op{Kind: Replace, Entity: ent("Sales", "1", "X", 1), IfMatch: "garbage"})
	wantCode(t, err, svcerr.InvalidInput)
	if _, err = s.Write("People", Op{Kind: Replace, Entity: ent("Sales", "1", "X", 1), IfMatch: "*"}); err != nil {
		t.Fatal(err)
	}
	got, _ = getEntity(s, "People", "Sales", "1")
	if len(got.Properties) != 1 || got.Properties[0].Name != "X" {
		t.Fatalf("replace left %v", got.Properties)
	}
	_, err = s.Write("People", Op{Kind: Replace, Entity: ent("Sales", "404"), IfMatch: "*"})
	wantCode(t, err, svcerr.ResourceNotFound)
	_, err = s.Write("People", Op{Kind: Merge, Entity: ent("Sales", "404"), IfMatch: "*"})
	wantCode(t, err, svcerr.ResourceNotFound)

	// Upserts create and update.
	if _, err = s.Write("People", Op{Kind: InsertOrMerge, Entity: ent("Sales", "2", "A", 1)}); err != nil {
		t.Fatal(err)
	}
	if _, err = s.Write("People", Op{Kind: InsertOrMerge, Entity: ent("Sales", "2", "B", 2)}); err != nil {
		t.Fatal(err)
	}
	if _, err = s.Write("People", Op{Kind: InsertOrReplace, Entity: ent("Sales", "3", "A", 1)}); err != nil {
		t.Fatal(err)
	}
	got, _ = getEntity(s, "People", "Sales", "2")
	if len(got.Properties) != 2 {
		t.Fatalf("insert-or-merge: %v", got.Properties)
	}

	cur, _ := getEntity(s, "People", "Sales", "2")
	_, err = s.Write("People", Op{Kind: Delete, Entity: ent("Sales", "2"), IfMatch: r1.ETag()})
	wantCode(t, err, svcerr.UpdateConditionNotSatisfied)
	if _, err = s.Write("People", Op{Kind: Delete, Entity: ent("Sales", "2"), IfMatch: cur.ETag()}); err != nil {
		t.Fatal(err)
	}
	_, err = getEntity(s, "People", "Sales", "2")
	wantCode(t, err, svcerr.ResourceNotFound)
	_, err = s.Write("People", Op{Kind: Delete, Entity: ent("Sales", "2"), IfMatch: "*"})
	wantCode(t, err, svcerr.ResourceNotFound)
	_, err = getEntity(s, "Nobody", "a", "b")
	wantCode(t, err, svcerr.TableNotFound)
	_, err = s.Write("Nobody", Op{Kind: Insert, Entity: ent("a", "b")})
	wantCode(t, err, svcerr.TableNotFound)
}

func TestETagsUniqueWithinOneTick(t *testing.T) {
	s := newStore(t)
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		r, err := s.Write("People", Op{Kind: InsertOrReplace, Entity: ent("p", "r")})
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.ETag()] {
			t.Fatalf("ETag %s repeated", r.ETag())
		}
		seen[r.ETag()] = true
	}
}

func TestLimits(t *testing.T) {
	s := newStore(t)
	big := string(bytes.Repeat([]byte("x"), MaxStringUTF16+1))
	many := ent("p", "many")
	for i := 0; i <= MaxProperties; i++ {
		many.Properties = append(many.Properties, Property{Name: fmt.Sprintf("P%03d", i), Value: edm.Int32Value(1)})
	}
	huge := ent("p", "huge")
	for i := 0; i < 20; i++ {
		huge.Properties = append(huge.Properties, Property{Name: fmt.Sprintf("S%02d", i), Value: edm.StringValue(big[:MaxStringUTF16])})
	}
	cases := []struct {
		name string
		e    *Entity
		code svcerr.Code
	}{
		{"slash in key", ent("a/b", "r"), svcerr.OutOfRangeInput},
		{"backslash", ent("a", `r\`), svcerr.OutOfRangeInput},
		{"hash", ent("a#", "r"), svcerr.OutOfRangeInput},
		{"question", ent("a", "r?"), svcerr.OutOfRangeInput},
		{"control", ent("a\x01", "r"), svcerr.OutOfRangeInput},
		{"C1 control", ent("a\u0085", "r"), svcerr.OutOfRangeInput},
		{"key too long", ent(string(bytes.Repeat([]byte("k"), 513)), "r"), svcerr.PropertyValueTooLarge},
		{"string too long", ent("p", "r", "S", big), svcerr.PropertyValueTooLarge},
		{"binary too long", ent("p", "r", "B", edm.BinaryValue(make([]byte, MaxBinaryLen+1))), svcerr.PropertyValueTooLarge},
		{"too many properties", many, svcerr.TooManyProperties},
		{"name too long", ent("p", "r", string(bytes.Repeat([]byte("n"), 256)), 1), svcerr.PropertyNameTooLong},
		{"name invalid", ent("p", "r", "a-b", 1), svcerr.PropertyNameInvalid},
		{"name starts with digit", ent("p", "r", "1a", 1), svcerr.PropertyNameInvalid},
		{"reserved name", ent("p", "r", "Timestamp", 1), svcerr.PropertyNameInvalid},
		{"duplicate", ent("p", "r", "A", 1, "A", 2), svcerr.DuplicatePropertiesSpecified},
		{"entity too large", huge, svcerr.EntityTooLarge},
		{"datetime before 1601", ent("p", "r", "D", edm.DateTimeTicks(edm.MinDateTimeTicks-1)), svcerr.OutOfRangeInput},
	}
	for _, c := range cases {
		_, err := s.Write("People", Op{Kind: Insert, Entity: c.e})
		if !svcerr.Is(err, c.code) {
			t.Errorf("%s: got %v, want %s", c.name, err, c.code)
		}
	}
	if s.Len() != 0 {
		t.Fatalf("%d entities written by failed operations", s.Len())
	}
	// The boundaries themselves are allowed.
	ok := ent(string(bytes.Repeat([]byte("k"), 512)), "", "S", big[:MaxStringUTF16], "B", edm.BinaryValue(make([]byte, MaxBinaryLen)))
	for i := 0; i < MaxProperties-2; i++ {
		ok.Properties = append(ok.Properties, Property{Name: fmt.Sprintf("P%03d", i), Value: edm.BoolValue(true)})
	}
	if _, err := s.Write("People", Op{Kind: Insert, Entity: ok}); err != nil {
		t.Fatalf("entity at the limits refused: %v", err)
	}
	// A merge can push an entity over the property limit.
	var half []any
	for i := 0; i < 200; i++ {
		half = append(half, fmt.Sprintf("A%03d", i), 1)
	}
	if _, err := s.Write("People", Op{Kind: Insert, Entity: ent("m", "m", half...)}); err != nil {
		t.Fatal(err)
	}
	var other []any
	for i := 0; i < 60; i++ {
		other = append(other, fmt.Sprintf("B%03d", i), 1)
	}
	_, err := s.Write("People", Op{Kind: Merge, Entity: ent("m", "m", other...), IfMatch: "*"})
	wantCode(t, err, svcerr.TooManyProperties)
}

func TestBatch(t *testing.T) {
	s := newStore(t)
	if _, err := s.Write("People", Op{Kind: Insert, Entity: ent("p", "03")}); err != nil {
		t.Fatal(err)
	}
	ops := func(n int) []Op {
		var out []Op
		for i := 0; i < n; i++ {
			out = append(out, Op{Kind: Insert, Entity: ent("p", fmt.Sprintf("%02d", i), "N", i)})
		}
		return out
	}
	// Index 3 collides with the existing entity: nothing is written.
	_, err := s.Batch("People", ops(10))
	wantCode(t, err, svcerr.EntityAlreadyExists)
	if e := svcerr.From(err); e.Index != 3 {
		t.Fatalf("failing index %d, want 3", e.Index)
	}
	if s.Len() != 1 {
		t.Fatalf("failed batch left %d entities", s.Len())
	}
	mixed := ops(3)
	mixed[2].Entity.PartitionKey = "q"
	_, err = s.Batch("People", mixed)
	wantCode(t, err, svcerr.CommandsInBatchActOnDifferentPartitions)
	if svcerr.From(err).Index != 2 {
		t.Fatalf("index %d", svcerr.From(err).Index)
	}
	dup := ops(3)
	dup[2].Entity.RowKey = "00"
	_, err = s.Batch("People", dup)
	wantCode(t, err, svcerr.InvalidDuplicateRow)
	_, err = s.Batch("People", ops(101))
	wantCode(t, err, svcerr.InvalidInput)

	good := ops(100)
	good[3] = Op{Kind: Delete, Entity: ent("p", "03"), IfMatch: "*"}
	rs, err := s.Batch("People", good)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 100 || rs[3].Entity != nil || rs[4].ETag() == "" {
		t.Fatalf("results %d", len(rs))
	}
	if s.Len() != 99 {
		t.Fatalf("%d entities after batch", s.Len())
	}
}

func TestBatchIsAtomicToReaders(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p, err := s.Query("People", Query{Filter: "PartitionKey eq 'b'"})
			if err != nil {
				t.Error(err)
				return
			}
			if n := len(p.Entities); n%50 != 0 {
				t.Errorf("reader saw a half-applied batch: %d entities", n)
				return
			}
		}
	}()
	for round := 0; round < 20; round++ {
		var ops []Op
		for i := 0; i < 50; i++ {
			ops = append(ops, Op{Kind: Insert, Entity: ent("b", fmt.Sprintf("%03d-%02d", round, i))})
		}
		if _, err := s.Batch("People", ops); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

func seedSales(t testing.TB, s *Store) {
	t.Helper()
	for i := 0; i < 500; i++ {
		last := "Jones"
		if i%10 == 0 {
			last = "Smith"
		}
		for _, pk := range []string{"Marketing", "Sales", "Support"} {
			if _, err := s.Write("People", Op{Kind: Insert, Entity: ent(pk, fmt.Sprint(i), "LastName", last, "Age", i%60)}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestPlans(t *testing.T) {
	s := newStore(t)
	seedSales(t, s)
	cases := []struct {
		filter             string
		class              odata.Class
		examined, returned int
	}{
		{"(PartitionKey eq 'Sales') and (RowKey eq '2')", odata.PointQuery, 1, 1},
		{"PartitionKey eq 'Sales' and RowKey ge '49' and RowKey lt '5'", odata.RangeQuery, 11, 11},
		{"PartitionKey eq 'Sales' and LastName eq 'Smith'", odata.PartitionScan, 500, 50},
		{"LastName eq 'Jones'", odata.TableScan, 1112, 1000}, // a full page of 1,000 after 1,112 examined
		{"PartitionKey eq 'Sales' and (RowKey eq '121' or RowKey eq '322')", odata.PartitionScan, 500, 2},
		{"PartitionKey eq 'Nope'", odata.PartitionScan, 0, 0},
		{"PartitionKey eq 'Sales' and PartitionKey eq 'Support'", odata.TableScan, 0, 0},
	}
	for _, c := range cases {
		p, err := s.Query("People", Query{Filter: c.filter})
		if err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		if p.Plan.Class != c.class || p.Plan.Examined != c.examined || p.Plan.Returned != c.returned || len(p.Entities) != c.returned {
			t.Errorf("%s: plan %v %d/%d (%d entities), want %v %d/%d", c.filter, p.Plan.Class, p.Plan.Examined, p.Plan.Returned, len(p.Entities), c.class, c.examined, c.returned)
		}
	}
}

func TestPaginationSurvivesWrites(t *testing.T) {
	s := newStore(t)
	seedSales(t, s) // 1500 entities
	var seen []string
	q := Query{Top: 97}
	for page := 0; ; page++ {
		p, err := s.Query("People", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entities {
			seen = append(seen, e.PartitionKey+"/"+e.RowKey)
		}
		if p.Next == nil {
			break
		}
		// Writes between pages: a new entity far ahead, and a delete of
		// an entity already returned.
		if _, err := s.Write("People", Op{Kind: Insert, Entity: ent("Zeta", fmt.Sprint(page))}); err != nil {
			t.Fatal(err)
		}
		q.After = p.Next
	}
	unique := map[string]bool{}
	for i, k := range seen {
		if unique[k] {
			t.Fatalf("%s returned twice", k)
		}
		unique[k] = true
		if i > 0 && !(seen[i-1] < k) && !keyLess(seen[i-1], k) {
			t.Fatalf("out of order: %s before %s", seen[i-1], k)
		}
	}
	if len(seen) < 1500 {
		t.Fatalf("saw %d entities, want all 1500 originals", len(seen))
	}
	if _, err := s.Query("People", Query{Top: 1001}); !svcerr.Is(err, svcerr.InvalidInput) {
		t.Fatalf("$top 1001: %v", err)
	}
}

func keyLess(a, b string) bool { return a < b }

func TestMaxExaminedEndsPage(t *testing.T) {
	s := New(Options{Now: fixedClock, MaxExamined: 100})
	if err := s.CreateTable("People"); err != nil {
		t.Fatal(err)
	}
	seedSales(t, s)
	q := Query{Filter: "LastName eq 'Nobody'"}
	pages := 0
	for {
		p, err := s.Query("People", q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(p.Entities) != 0 || p.Plan.Examined > 100 {
			t.Fatalf("page %+v", p.Plan)
		}
		if p.Next == nil {
			break
		}
		q.After = p.Next
	}
	if pages != 15 {
		t.Fatalf("%d pages, want 15 empty pages with continuation", pages)
	}
}

func TestDeleteTableRemovesEntities(t *testing.T) {
	s := newStore(t)
	seedSales(t, s)
	if err := s.CreateTable("Other"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("Other", Op{Kind: Insert, Entity: ent("a", "b")}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTable("PEOPLE"); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 1 {
		t.Fatalf("%d entities left", s.Len())
	}
	if err := s.CreateTable("People"); err != nil {
		t.Fatal(err)
	}
	p, err := s.Query("People", Query{})
	if err != nil || len(p.Entities) != 0 {
		t.Fatalf("recreated table sees %d entities (%v)", len(p.Entities), err)
	}
}

func TestKeyRange(t *testing.T) {
	s := newStore(t)
	seedSales(t, s)
	kr := &KeyRange{StartPartitionKey: "Sales", StartRowKey: "1", EndPartitionKey: "Sales", EndRowKey: "2"}
	p, err := s.Query("People", Query{Range: kr})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Entities {
		if e.PartitionKey != "Sales" || e.RowKey < "1" || e.RowKey > "2" {
			t.Fatalf("outside the range: %s/%s", e.PartitionKey, e.RowKey)
		}
	}
	if len(p.Entities) != 112 { // "1", "10".."19", "100".."199", "2"
		t.Fatalf("%d entities in range", len(p.Entities))
	}
}

// memJournal keeps records in memory, standing in for the disk log.
type memJournal struct {
	mu   sync.Mutex
	recs [][]byte
}

type doneWaiter struct{}

func (doneWaiter) Wait() error { return nil }

func (j *memJournal) Append(rec []byte) Waiter {
	j.mu.Lock()
	j.recs = append(j.recs, append([]byte(nil), rec...))
	j.mu.Unlock()
	return doneWaiter{}
}

func dump(t *testing.T, s *Store) string {
	t.Helper()
	var b bytes.Buffer
	tp, err := s.QueryTables(TableQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range tp.Names {
		fmt.Fprintf(&b, "table %s\n", name)
		q := Query{}
		for {
			p, err := s.Query(name, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entities {
				fmt.Fprintf(&b, "%s|%s|%s|%v\n", e.PartitionKey, e.RowKey, e.ETag(), e.Properties)
			}
			if p.Next == nil {
				break
			}
			q.After = p.Next
		}
	}
	return b.String()
}

func TestJournalReplayAndSnapshot(t *testing.T) {
	j := &memJournal{}
	s, sr := NewDurable(Options{Now: fixedClock, Journal: j})
	for _, n := range []string{"One", "Two", "Three"} {
		if err := s.CreateTable(n); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 300; i++ {
		if _, err := s.Write("One", Op{Kind: Insert, Entity: ent("p", fmt.Sprintf("%03d", i), "N", i, "G", edm.GuidString("c9da6455-213d-42c9-9a79-3e9149a57833"), "D", 1.5)}); err != nil {
			t.Fatal(err)
		}
	}
	var ops []Op
	for i := 0; i < 10; i++ {
		ops = append(ops, Op{Kind: InsertOrMerge, Entity: ent("p", fmt.Sprintf("%03d", i), "M", true)})
	}
	if _, err := s.Batch("One", ops); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("One", Op{Kind: Delete, Entity: ent("p", "100")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("Two", Op{Kind: Insert, Entity: ent("x", "y")}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTable("Two"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("One", Op{Kind: Insert, Entity: ent("p", "001", "Bigger", strings.Repeat("z", 300))}); err == nil {
		t.Fatal("an insert over an existing entity succeeded")
	}
	want := dump(t, s)
	checkDataBytes(t, s)

	replayed, rr := NewDurable(Options{Now: fixedClock})
	for _, rec := range j.recs {
		if err := rr.Replay(rec, Place{}); err != nil {
			t.Fatal(err)
		}
	}
	if got := dump(t, replayed); got != want {
		t.Fatalf("replay differs:\n%s\nwant\n%s", got, want)
	}
	checkDataBytes(t, replayed)

	var snap bytes.Buffer
	if _, err := sr.Checkpoint(nil).WriteTo(&snap); err != nil {
		t.Fatal(err)
	}
	loaded, lr := NewDurable(Options{Now: fixedClock})
	if err := lr.Load(bytes.NewReader(snap.Bytes()), Place{}); err != nil {
		t.Fatal(err)
	}
	if got := dump(t, loaded); got != want {
		t.Fatalf("snapshot differs")
	}
	checkDataBytes(t, loaded)
	if lr.DataBytes() != sr.DataBytes() {
		t.Fatalf("loaded store counts %d data bytes, the original %d", lr.DataBytes(), sr.DataBytes())
	}
	// Timestamps continue past the restored ones, so ETags stay unique.
	r, err := loaded.Write("One", Op{Kind: InsertOrReplace, Entity: ent("p", "000")})
	if err != nil {
		t.Fatal(err)
	}
	if r.Entity.Timestamp <= s.lastTicks {
		t.Fatal("restored store reuses Timestamps")
	}
	// A damaged record is refused, never half-applied.
	for i := range j.recs[5] {
		bad := append([]byte(nil), j.recs[5][:i]...)
		if _, r := NewDurable(Options{}); r.Replay(bad, Place{}) == nil && i > 0 {
			t.Fatalf("truncated record (%d bytes) accepted", i)
		}
	}
	if _, r := NewDurable(Options{}); r.Load(bytes.NewReader(snap.Bytes()[:snap.Len()/2]), Place{}) == nil {
		t.Fatal("truncated snapshot loaded")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := newStore(t)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				pk := fmt.Sprint("w", w)
				if _, err := s.Write("People", Op{Kind: InsertOrMerge, Entity: ent(pk, fmt.Sprint(i%50), "I", i)}); err != nil {
					t.Error(err)
					return
				}
				if _, err := s.Query("People", Query{Filter: "PartitionKey eq '" + pk + "' and I ge 10", Top: 20}); err != nil {
					t.Error(err)
					return
				}
				if _, err := getEntity(s, "People", pk, "1"); err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	if s.Len() != 200 {
		t.Fatalf("%d entities", s.Len())
	}
}

// Keys of every length class of their encoded length prefix (one and two
// bytes), empty ones included, are found, ordered and paged by.
func TestKeyLengths(t *testing.T) {
	s := newStore(t)
	var keys []string
	for _, n := range []int{0, 1, 127, 128, 200, 512} {
		keys = append(keys, strings.Repeat("k", n))
	}
	var want []string
	for _, pk := range keys {
		for _, rk := range keys {
			if _, err := s.Write("People", Op{Kind: Insert, Entity: ent(pk, rk, "Len", len(pk)*10000+len(rk))}); err != nil {
				t.Fatalf("insert %d/%d: %v", len(pk), len(rk), err)
			}
			want = append(want, fmt.Sprint(len(pk), "/", len(rk)))
		}
	}
	for _, pk := range keys {
		for _, rk := range keys {
			e, err := getEntity(s, "People", pk, rk)
			if err != nil || e.PartitionKey != pk || e.RowKey != rk {
				t.Fatalf("get %d/%d: %v", len(pk), len(rk), err)
			}
		}
	}
	var got []string
	q := Query{Top: 5}
	for {
		page, err := s.Query("People", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			got = append(got, fmt.Sprint(len(e.PartitionKey), "/", len(e.RowKey)))
		}
		if page.Next == nil {
			break
		}
		q.After = page.Next
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("scan order\n got %v\nwant %v", got, want)
	}
	// A range within one long partition.
	page, err := s.Query("People", Query{Filter: fmt.Sprintf("PartitionKey eq '%s' and RowKey ge '%s'", keys[4], keys[3])})
	if err != nil || len(page.Entities) != 3 || page.Plan.Class != odata.RangeQuery && page.Plan.Class != odata.PartitionScan {
		t.Fatalf("range in a long partition: %d entities, plan %v, %v", len(page.Entities), page.Plan, err)
	}
	for _, rk := range keys {
		if _, err := s.Write("People", Op{Kind: Delete, Entity: ent(keys[5], rk), IfMatch: "*"}); err != nil {
			t.Fatal(err)
		}
	}
	if page, _ := s.Query("People", Query{Filter: fmt.Sprintf("PartitionKey eq '%s'", keys[5])}); len(page.Entities) != 0 {
		t.Fatalf("%d entities left after deleting the partition", len(page.Entities))
	}
}

// checkDataBytes checks the store's running count of data bytes against
// the sum over its entities.
func checkDataBytes(t *testing.T, s *Store) {
	t.Helper()
	var sum int64
	s.tree.Scan(func(it keyspace.Item) bool {
		sum += it.Size()
		return true
	})
	if data := (&Recovery{s}).DataBytes(); sum == 0 || data != sum {
		t.Fatalf("the store counts %d data bytes; its entities hold %d", data, sum)
	}
}

// deletingJournal deletes a table while the write it was handed waits to
// be durable: after the store has let go of its lock, before it answers.
type deletingJournal struct {
	s     *Store
	table string
	armed bool
}

func (j *deletingJournal) Append([]byte) Waiter { return j }

func (j *deletingJournal) Wait() error {
	if j.armed {
		j.armed = false
		if err := j.s.DeleteTable(j.table); err != nil {
			return err
		}
	}
	return nil
}

// TestResultsNameTheTable checks that every result names the table as it
// was created, whatever case the caller used, and that the name is the
// one the operation saw: a table deleted before the write is answered
// cannot take it away.
func TestResultsNameTheTable(t *testing.T) {
	s := newStore(t) // "People"
	r, err := s.Write("PEOPLE", Op{Kind: Insert, Entity: ent("p", "1")})
	if err != nil || r.Table != "People" {
		t.Fatalf("write: table %q, %v", r.Table, err)
	}
	rs, err := s.Batch("people", []Op{{Kind: InsertOrMerge, Entity: ent("p", "2")}, {Kind: Delete, Entity: ent("p", "1")}})
	if err != nil || len(rs) != 2 || rs[0].Table != "People" || rs[1].Table != "People" {
		t.Fatalf("batch: %+v, %v", rs, err)
	}
	l, err := s.Get("pEOPLE", "p", "2")
	if err != nil || l.Table != "People" || l.Entity == nil || l.Plan != (Plan{Class: odata.PointQuery, Examined: 1, Returned: 1}) {
		t.Fatalf("get: %+v, %v", l, err)
	}
	l, err = s.Get("pEOPLE", "p", "1")
	wantCode(t, err, svcerr.ResourceNotFound)
	if l.Table != "People" || l.Entity != nil || l.Plan != (Plan{Class: odata.PointQuery}) {
		t.Fatalf("get of a missing entity: %+v", l)
	}
	p, err := s.Query("peoplE", Query{})
	if err != nil || p.Table != "People" || len(p.Entities) != 1 {
		t.Fatalf("query: table %q, %d entities, %v", p.Table, len(p.Entities), err)
	}

	j := &deletingJournal{table: "Orders"}
	s = New(Options{Now: fixedClock, Journal: j})
	j.s = s
	for _, kind := range []OpKind{Insert, InsertOrMerge} {
		if err := s.CreateTable("Orders"); err != nil {
			t.Fatal(err)
		}
		j.armed = true
		r, err := s.Write("orders", Op{Kind: kind, Entity: ent("p", "1")})
		if err != nil || r.Table != "Orders" {
			t.Fatalf("%v on a table deleted before the answer: table %q, %v", kind, r.Table, err)
		}
		if _, ok := s.TableExists("Orders"); ok {
			t.Fatal("the journal did not delete the table")
		}
	}
}

// TestIntRangeScan checks that a scan filtered on a range of integers,
// which the walk tests in line, answers as the filter's Match does on
// every entity: with the property of the literals' kind, of another
// numeric kind, of a kind not comparable, or missing, among entities
// whose earlier properties are of every width.
func TestIntRangeScan(t *testing.T) {
	s := newStore(t)
	values := []any{nil, 3, 9, 10, 19, 20, int64(10), int64(15), 12.5, 15.0, "15", true}
	var all []*Entity
	for i, v := range values {
		for j, pad := range []any{true, 2.5, "a", strings.Repeat("long ", 40), 7} {
			props := []any{"Aa", pad, "Ab", "x"}
			if v != nil {
				props = append(props, "N", v)
			}
			e := ent(fmt.Sprintf("p%d", j), fmt.Sprintf("r%02d", i), append(props, "Zz", 1)...)
			if _, err := s.Write("People", Op{Kind: Insert, Entity: e}); err != nil {
				t.Fatal(err)
			}
			all = append(all, e)
		}
	}
	for _, filter := range []string{"N ge 10 and N lt 20", "N ge 10L and N lt 20L", "N eq 15", "N eq 15L", "N gt 9", "N le 10", "N lt -2147483648", "N ge 10 and N lt 20 and Zz eq 1"} {
		f, err := odata.Parse(filter)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{}
		for _, e := range all {
			if f.Match(e) {
				want[e.PartitionKey+"/"+e.RowKey] = true
			}
		}
		page, err := s.Query("People", Query{Filter: filter})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, e := range page.Entities {
			got[e.PartitionKey+"/"+e.RowKey] = true
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: got %v, want %v", filter, got, want)
		}
		if page.Plan.Examined != len(all) {
			t.Errorf("%s: examined %d, want %d", filter, page.Plan.Examined, len(all))
		}
	}
}

// TestQueryMismatches checks that a query's page reports the comparisons
// that met their property only in types their literal cannot be compared
// with, counted once per entity examined, on every path a scan tests
// entities by: in line for a range of integers, through Match for the
// rest, and again in visit for the matches.
func TestQueryMismatches(t *testing.T) {
	s := newStore(t)
	for i := range 40 {
		e := ent("p", fmt.Sprintf("r%02d", i), "Age", i, "Big", int64(i), "Name", "n")
		if i%4 == 0 {
			e = ent("q", fmt.Sprintf("r%02d", i), "Age", i, "Big", int64(i))
		}
		if _, err := s.Write("People", Op{Kind: Insert, Entity: e}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		filter string
		top    int
		want   string // the mismatches' properties and counts, "" for none
	}{
		{"Age gt 'x'", 0, "Age:40"},
		{"Age lt 'x'", 0, "Age:40"}, // every entity matches: each counted once
		{"Age lt 'x'", 10, "Age:10"},
		{"Age ge 10 and Age lt 20", 0, ""}, // tested in line
		{"Big ge 10L and Big lt 20L", 0, ""},
		{"Big ge 10 and Big lt 20", 0, ""},         // an Int64 compares with an Int32 literal
		{"Age ge 10L and Age lt 20L", 0, "Age:40"}, // an Int32 never with an Int64 literal, and the range stops at the first test
		{"Name eq 5", 0, "Name:30"},
		{"PartitionKey eq 'p' and Name eq 5", 0, "Name:30"},
		{"PartitionKey eq 'p' and RowKey eq 'r01' and Age eq '1'", 0, "Age:1"},
		{"Timestamp gt '2020-01-01'", 0, "Timestamp:40"},
		{"Age eq 5 or Name eq 'n'", 0, ""},
	} {
		page, err := s.Query("People", Query{Filter: c.filter, Top: c.top})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range page.Mismatches {
			got = append(got, fmt.Sprintf("%s:%d", m.Property, m.Count))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%s (top %d): mismatches %v, want %q", c.filter, c.top, got, c.want)
		}
	}
}
