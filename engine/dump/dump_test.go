package dump

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// keep returns a store holding one table with one entity, which a
// refused import must leave as it is.
func keep(t *testing.T) *engine.Store {
	t.Helper()
	s := engine.New(engine.Options{Now: clock()})
	mustTable(t, s, "Keep")
	put(t, s, "Keep", &engine.Entity{PartitionKey: "k", RowKey: "1", Properties: []engine.Property{{Name: "V", Value: edm.Int32Value(1)}}})
	return s
}

// TestImportErrors gives Import and Replace a text with one thing wrong
// of each kind: each is refused with the place and the reason, and the
// store, which already holds a table, is left as it was.
func TestImportErrors(t *testing.T) {
	h := `{"tablelab":"export/1","tables":[` + "\n"
	tee := h + `{"name":"Tee","entities":[` + "\n"
	one := func(props string) string {
		return tee + `{"PartitionKey":"p","RowKey":"r"` + props + `}]}]}`
	}
	long := strings.Repeat("x", engine.MaxStringUTF16)
	var many, huge []string
	for i := range engine.MaxProperties + 1 {
		many = append(many, fmt.Sprintf(`,"P%d":1`, i))
	}
	for i := range 17 {
		huge = append(huge, fmt.Sprintf(`,"S%d":"%s"`, i, long))
	}
	const entity1 = "line 3, column 1: table Tee, entity 1 (PartitionKey 'p', RowKey 'r'): "
	for _, c := range []struct{ text, want string }{
		// The text and its envelope.
		{``, "line 1, column 1: the text is empty"},
		{`[]`, "line 1, column 1: expected an object here, not an array"},
		{`{}`, `line 1, column 1: this is not a tablelab export: it has no "tablelab":"export/1" member`},
		{"{\n  \"tablelab\": \"export/2\", \"tables\": []}", "line 2, column 15: the text's format is 'export/2', which this version does not read: it reads 'export/1'"},
		{`{"tablelab":5,"tables":[]}`, "line 1, column 13: expected a string here, not a number"},
		{`{"tablelab":"export/1","tables":{}}`, "line 1, column 33: expected an array here, not an object"},
		{`{"tablelab":"export/1","tables":[]} trailing`, "line 1, column 37: there is more text after the export's closing '}'"},
		{tee + `{"PartitionKey":"p","RowKey":"r"}`, "line 3, column 34: the text is not valid JSON: expected ',' or ']'"},
		{tee + `{"PartitionKey":"p","RowKey":"r","X":"\q"}]}]}`, "line 3, column 41: the text is not valid JSON: invalid escape \\q"},
		{tee + `{"PartitionKey":"p","RowKey":"é" "X":1}]}]}`, "line 3, column 34: the text is not valid JSON: expected ',' or '}'"},
		// Tables.
		{h + `5]}`, "line 2, column 1: table 1 of the list is not a JSON object"},
		{h + `}`, "line 2, column 1: the text is not valid JSON: expected an object"},
		{h + `{"name":"Tee","entities":[]},{"entities":[{"PartitionKey":"p","RowKey":"r"}]}]}`, `line 2, column 30: table 2 of the list has no "name"`},
		{h + `{"name":"bad name!","entities":[]}]}`, "line 2, column 9: 'bad name!' is not a table name: a name is 3 to 63 letters and digits of ASCII, beginning with a letter, and not 'tables'"},
		{h + `{"name":"T1","entities":[]}]}`, "line 2, column 9: 'T1' is not a table name"},
		{h + `{"name":"Tables","entities":[]}]}`, "line 2, column 9: 'Tables' is not a table name"},
		{h + `{"name":"Tee","entities":[]},` + "\n" + `{"name":"Tee","entities":[]}]}`, "line 3, column 9: the table 'Tee' is listed twice (first at line 2, column 9)"},
		{h + `{"name":"Tee","entities":[]},` + "\n" + `{"name":"tee","entities":[]}]}`, "line 3, column 9: the tables 'Tee' (at line 2, column 9) and 'tee' differ only by case, which table names do not"},
		// Entities.
		{tee + `1]}]}`, "line 3, column 1: table Tee, entity 1: an entity is a JSON object, and this is not one"},
		{tee + `{"RowKey":"r"}]}]}`, "line 3, column 1: table Tee, entity 1 (RowKey 'r'): it has no PartitionKey"},
		{tee + `{"PartitionKey":"p","RowKey":"r"},` + "\n" + `{"PartitionKey":"p"}]}]}`, "line 4, column 1: table Tee, entity 2 (PartitionKey 'p'): it has no RowKey"},
		{tee + `{"A":1}]}]}`, "line 3, column 1: table Tee, entity 1: it has neither a PartitionKey nor a RowKey"},
		{tee + `{"PartitionKey":5,"RowKey":"r"}]}]}`, "line 3, column 1: table Tee, entity 1 (RowKey 'r'): The PartitionKey must be a string"},
		{tee + `{"PartitionKey":"p","RowKey":"r"},` + "\n" + `{"PartitionKey":"q","RowKey":"r"},` + "\n" + `{"PartitionKey":"p","RowKey":"r"}]}]}`,
			"line 5, column 1: table Tee, entity 3 (PartitionKey 'p', RowKey 'r'): an entity with the same keys comes before it in the table (entity 1, line 3, column 1)"},
		{one(`,"N@odata.type":"Edm.Int64","N":"x"`), entity1 + "Property N: The value 'x' is not a valid Edm.Int64"},
		{one(`,"G@odata.type":"Edm.Nope","G":"x"`), entity1 + "Property G: The type name 'Edm.Nope' is not a known Edm type"},
		{one(`,"D@odata.type":"Edm.DateTime","D":"1500-01-01T00:00:00Z"`), entity1 + "Property D: The value '1500-01-01T00:00:00Z' is out of the range of Edm.DateTime"},
		{one(`,"O":{"a":1}`), entity1 + "The property O has a nested object or array"},
		{one(`,"O":1,"O":2`), entity1 + "A property is specified more than one time"},
		{one(`,"1abc":1`), entity1 + "its property name '1abc' is not one the service takes: a name is a letter or '_' followed by letters, digits and '_', at most 255 characters long"},
		{one(`,"` + strings.Repeat("n", 256) + `":1`), entity1 + "its property name 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn…' is not one"},
		{one(`,"S":"` + long + `x"`), entity1 + "its property S holds 32769 UTF-16 code units of text, and a string may hold at most 32768"},
		{one(`,"B@odata.type":"Edm.Binary","B":"` + strings.Repeat("AAAA", 22000) + `"`), entity1 + "its property B holds 66000 bytes, and an Edm.Binary may hold at most 65536"},
		{one(strings.Join(many, "")), entity1 + "it has 253 properties, and an entity may have at most 252 besides PartitionKey, RowKey and Timestamp"},
		{one(strings.Join(huge, "")), entity1 + "it is 1114406 bytes as the service counts them, more than the 1048576 an entity may be"},
		{tee + `{"PartitionKey":"p","RowKey":"a/b"}]}]}`, "line 3, column 1: table Tee, entity 1 (PartitionKey 'p', RowKey 'a/b'): its RowKey holds '/', which a key may not hold (nor any of / \\ # ? or a control character)"},
		{tee + `{"PartitionKey":"p\u0007","RowKey":"r"}]}]}`, "line 3, column 1: table Tee, entity 1 (PartitionKey 'p\\a', RowKey 'r'): its PartitionKey holds '\\a', which a key may not hold"},
		{tee + `{"PartitionKey":"p","RowKey":"` + strings.Repeat("k", 600) + `"}]}]}`, "line 3, column 1: table Tee, entity 1 (PartitionKey 'p', RowKey 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk…'): its RowKey is 600 UTF-16 code units long, and a key may be at most 512"},
		// The entities of a table whose name comes after them.
		{h + `{"entities":[{"PartitionKey":"p","RowKey":"r"},` + "\n" + ` {"PartitionKey":"p","RowKey":"r#"}],"name":"Tee"}]}`, "line 3, column 2: table Tee, entity 2 (PartitionKey 'p', RowKey 'r#'): its RowKey holds '#'"},
	} {
		for _, op := range []struct {
			name string
			fn   func(*engine.Store, io.Reader) error
		}{{"Import", Import}, {"Replace", Replace}} {
			s := keep(t)
			before := contents(t, s)
			err := op.fn(s, strings.NewReader(c.text))
			var de *Error
			if !errors.As(err, &de) || !strings.HasPrefix(err.Error(), c.want) {
				short := c.text[:min(len(c.text), 100)]
				t.Errorf("%s of %q:\n got %v\nwant %s", op.name, short, err, c.want)
			}
			if contents(t, s) != before {
				t.Errorf("%s of %q changed the store", op.name, c.text[:min(len(c.text), 100)])
			}
		}
	}
}

// TestImportReadsAnyOrder takes the members of the export and of a table
// in any order, and a byte order mark before the text.
func TestImportReadsAnyOrder(t *testing.T) {
	text := "\xef\xbb\xbf" + `{"tables":[{"entities":[{"PartitionKey":"p","RowKey":"r","V":2}],"name":"Tee"}],"tablelab":"export/1"}`
	s := keep(t)
	if err := Import(s, strings.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s); got != "table Keep\n  \"k\" \"1\" V=Edm.Int32:1\ntable Tee\n  \"p\" \"r\" V=Edm.Int32:2\n" {
		t.Fatalf("imported:\n%s", got)
	}
}

// TestReplace replaces every table of a store by an export's, leaving
// nothing of the tables before: one the export also has is emptied of the
// entities it does not list.
func TestReplace(t *testing.T) {
	src := engine.New(engine.Options{Now: clock()})
	mustTable(t, src, "Keep")
	mustTable(t, src, "Typed")
	put(t, src, "Typed", everyType())
	put(t, src, "Keep", &engine.Entity{PartitionKey: "k", RowKey: "2"})
	var text bytes.Buffer
	if err := Export(src, &text); err != nil {
		t.Fatal(err)
	}
	s := keep(t)
	mustTable(t, s, "Other")
	if err := Replace(s, bytes.NewReader(text.Bytes())); err != nil {
		t.Fatal(err)
	}
	if got, want := contents(t, s), contents(t, src); got != want {
		t.Fatalf("replaced store:\n%s\nwant\n%s", got, want)
	}
	// Import, by contrast, merges.
	s = keep(t)
	if err := Import(s, bytes.NewReader(text.Bytes())); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, s); !strings.Contains(got, `"k" "1"`) || !strings.Contains(got, `"k" "2"`) {
		t.Fatalf("merged store:\n%s", got)
	}
}

// TestImportManyEntities imports an export of 100,000 entities: the text,
// the checked copy and the store all fit at once.
func TestImportManyEntities(t *testing.T) {
	const n = 100_000
	text := manyEntities(n)
	s := engine.New(engine.Options{})
	if err := Import(s, bytes.NewReader(text)); err != nil {
		t.Fatal(err)
	}
	if s.Len() != n {
		t.Fatalf("%d entities after importing %d", s.Len(), n)
	}
	e, err := s.Get("Many", "p00999", "00099999")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := e.Entity.Property("N"); v.Int() != n-1 {
		t.Fatalf("the last entity: %+v", e.Entity)
	}
}

// manyEntities returns the export of a table of n entities of a few
// properties each, in partitions of 100, as Export writes it.
func manyEntities(n int) []byte {
	b := []byte(`{"tablelab":"export/1","tables":[` + "\n" + `{"name":"Many","entities":[`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, "\n"+`{"PartitionKey":"p%05d","RowKey":"%08d","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2026-01-02T03:04:05Z","Active":%t,"N@odata.type":"Edm.Int64","N":"%d","Name":"entity number %d","Price":%d.25}`,
			i/100, i, i%2 == 0, i, i, i)
	}
	return append(b, "]}]}\n"...)
}

// BenchmarkImport and BenchmarkReplace read an export of 100,000
// entities (20 MB of text) into an empty store, the whole text checked
// first.
func BenchmarkImport(b *testing.B) { benchmarkRead(b, Import) }

func BenchmarkReplace(b *testing.B) { benchmarkRead(b, Replace) }

func benchmarkRead(b *testing.B, read func(*engine.Store, io.Reader) error) {
	text := manyEntities(100_000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		s := engine.New(engine.Options{})
		if err := read(s, bytes.NewReader(text)); err != nil {
			b.Fatal(err)
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
		s := keep(t)
		before := contents(t, s)
		if err := Import(s, strings.NewReader(text)); err != nil {
			var de *Error
			if !errors.As(err, &de) || de.Line < 1 || de.Column < 1 {
				t.Fatalf("%q: an error without its place: %v", text, err)
			}
			if contents(t, s) != before {
				t.Fatalf("%q was refused (%v) but changed the store", text, err)
			}
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
