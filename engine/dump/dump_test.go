package dump

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
)

func clock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Millisecond); return t }
}

func mustTable(t *testing.T, s *engine.Store, name string) {
	t.Helper()
	if err := s.CreateTable(name); err != nil {
		t.Fatal(err)
	}
}

func put(t *testing.T, s *engine.Store, table string, e *engine.Entity) {
	t.Helper()
	if _, err := s.Write(table, engine.Op{Kind: engine.Insert, Entity: e}); err != nil {
		t.Fatal(err)
	}
}

// everyType is an entity with a value of each Edm type, and the text JSON
// finds hard: quotes, control characters, non-ASCII, non-finite doubles.
func everyType() *engine.Entity {
	guid, _ := edm.ParseGuid("c9da6455-213d-42c9-9a79-3e9149a57833")
	return &engine.Entity{PartitionKey: "p'1 \"été\"", RowKey: "r 1", Properties: []engine.Property{
		{Name: "S", Value: edm.StringValue("line\nbreak \"quoted\" \\ été 🚀 \u2028")},
		{Name: "I32", Value: edm.Int32Value(-7)},
		{Name: "I64", Value: edm.Int64Value(math.MinInt64)},
		{Name: "D", Value: edm.DoubleValue(2.5)},
		{Name: "Whole", Value: edm.DoubleValue(3)},
		{Name: "NaN", Value: edm.DoubleValue(math.NaN())},
		{Name: "Inf", Value: edm.DoubleValue(math.Inf(-1))},
		{Name: "B", Value: edm.BoolValue(true)},
		{Name: "T", Value: edm.DateTimeTicks(edm.TicksOf(time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)))},
		{Name: "G", Value: guid},
		{Name: "Bin", Value: edm.BinaryValue([]byte{0, 1, 0xff})},
		{Name: "Empty", Value: edm.StringValue("")},
	}}
}

// contents lists every table and entity of s, Timestamps aside.
func contents(t *testing.T, s *engine.Store) string {
	t.Helper()
	var b strings.Builder
	page, err := s.QueryTables(engine.TableQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range page.Names {
		fmt.Fprintf(&b, "table %s\n", name)
		var after *engine.Continuation
		for {
			p, err := s.Query(name, engine.Query{After: after})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entities {
				fmt.Fprintf(&b, "  %q %q", e.PartitionKey, e.RowKey)
				for _, prop := range e.Properties {
					fmt.Fprintf(&b, " %s=%s:%s", prop.Name, prop.Value.Kind(), edm.AppendJSON(nil, prop.Value))
				}
				b.WriteByte('\n')
			}
			if after = p.Next; after == nil {
				break
			}
		}
	}
	return b.String()
}

func TestRoundTrip(t *testing.T) {
	src := engine.New(engine.Options{Now: clock()})
	mustTable(t, src, "Typed")
	mustTable(t, src, "empty")
	mustTable(t, src, "Many")
	put(t, src, "Typed", everyType())
	// More than a batch of one partition, several partitions, and more
	// than a query page.
	for i := range 1234 {
		put(t, src, "Many", &engine.Entity{PartitionKey: fmt.Sprintf("p%d", i%3), RowKey: fmt.Sprintf("%05d", i),
			Properties: []engine.Property{{Name: "I", Value: edm.Int32Value(int32(i))}}})
	}
	var text bytes.Buffer
	if err := Export(src, &text); err != nil {
		t.Fatal(err)
	}
	dst := engine.New(engine.Options{Now: clock()})
	if err := Import(dst, bytes.NewReader(text.Bytes())); err != nil {
		t.Fatal(err)
	}
	want := contents(t, src)
	if got := contents(t, dst); got != want {
		t.Fatalf("imported store differs:\n%s\nwant\n%s", got[:min(len(got), 2000)], want[:min(len(want), 2000)])
	}
	// Importing again over the same tables replaces, and adds nothing.
	if err := Import(dst, bytes.NewReader(text.Bytes())); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, dst); got != want {
		t.Fatal("a second import changed the store")
	}
	if n := dst.Len(); n != 1235 {
		t.Fatalf("%d entities after two imports", n)
	}
	// And the export of the copy is the same text, Timestamps aside.
	var again bytes.Buffer
	if err := Export(dst, &again); err != nil {
		t.Fatal(err)
	}
	if stripTimestamps(again.String()) != stripTimestamps(text.String()) {
		t.Fatal("the copy exports differently")
	}
}

func stripTimestamps(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, `"Timestamp":"`)
		if i < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i])
		s = s[i+len(`"Timestamp":"`):]
		s = s[strings.IndexByte(s, '"')+1:]
	}
}

func TestExportFormat(t *testing.T) {
	s := engine.New(engine.Options{Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }})
	mustTable(t, s, "Bee")
	mustTable(t, s, "Ant")
	put(t, s, "Ant", &engine.Entity{PartitionKey: "p", RowKey: "r", Properties: []engine.Property{
		{Name: "N", Value: edm.Int64Value(5)}, {Name: "S", Value: edm.StringValue("x")}}})
	var b strings.Builder
	if err := Export(s, &b); err != nil {
		t.Fatal(err)
	}
	want := `{"tablelab":"export/1","tables":[` + "\n" +
		`{"name":"Ant","entities":[` + "\n" +
		`{"PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2026-01-02T03:04:05Z","N@odata.type":"Edm.Int64","N":"5","S":"x"}]},` + "\n" +
		`{"name":"Bee","entities":[]}]}` + "\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestImportErrors(t *testing.T) {
	for _, text := range []string{
		``,
		`[]`,
		`{}`,
		`{"tablelab":"export/2","tables":[]}`,
		`{"tables":[{"name":"Tee","entities":[]}],"tablelab":"export/1"}`,
		`{"tablelab":"export/1","tables":[{"entities":[{"PartitionKey":"p","RowKey":"r"}]}]}`,
		`{"tablelab":"export/1","tables":[{"name":"bad name!","entities":[]}]}`,
		`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[{"PartitionKey":"p"}]}]}`,
		`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Int64","N":"x"}]}]}`,
		`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[{"PartitionKey":"p","RowKey":"r"}`,
		`{"tablelab":"export/1","tables":[]} trailing`,
		`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[1]}]}`,
		`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[{"PartitionKey":"p","RowKey":"r","X":"\q"}]}]}`,
	} {
		s := engine.New(engine.Options{})
		if err := Import(s, strings.NewReader(text)); err == nil {
			t.Errorf("%s: imported", text)
		}
	}
}

func TestImportSkipsUnknownMembers(t *testing.T) {
	s := engine.New(engine.Options{})
	text := `{"comment":{"nested":[1,"]",{"x":null}]},"tablelab":"export/1","tables":[{"note":true,"name":"Tee","entities":[{"PartitionKey":"p","RowKey":"r","odata.etag":"W/\"x\"","V":1.5}]}]}`
	if err := Import(s, strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	e, err := s.Get("Tee", "p", "r")
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := e.Entity.Property("V"); !ok || v.Float() != 1.5 || len(e.Entity.Properties) != 1 {
		t.Fatalf("%+v", e.Entity.Properties)
	}
}

func FuzzImport(f *testing.F) {
	f.Add(`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[{"PartitionKey":"p","RowKey":"r","V":1}]}]}`)
	f.Add(`{"tablelab":"export/1","tables":[{"name":"Tee","entities":[]},{"name":"You"}]}`)
	f.Fuzz(func(t *testing.T, text string) {
		s := engine.New(engine.Options{})
		if Import(s, strings.NewReader(text)) != nil {
			return
		}
		// What was imported exports and imports again to the same.
		var b bytes.Buffer
		if err := Export(s, &b); err != nil {
			t.Fatal(err)
		}
		again := engine.New(engine.Options{})
		if err := Import(again, &b); err != nil {
			t.Fatalf("re-import of %q: %v", b.String(), err)
		}
		if contents(t, again) != contents(t, s) {
			t.Fatalf("%q did not survive a second round", text)
		}
	})
}
