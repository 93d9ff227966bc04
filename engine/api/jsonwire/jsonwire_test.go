package jsonwire

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestDecodeEntity(t *testing.T) {
	// A body as the JS SDK sends a fetched entity back: metadata, etag,
	// Timestamp and a null come along and are not properties.
	body := `{"odata.metadata":"x","odata.etag":"W/\"y\"","PartitionKey":"p\u00e9","RowKey":"r\"1","Timestamp":"2020-01-01T00:00:00Z",
		"S":"a\\b\n\ud83d\ude80","I":42,"D":1.5,"W":"3","W@odata.type":"Edm.Double","B":true,"L":"9007199254740993","L@odata.type":"Edm.Int64",
		"N":null,"T":null,"T@odata.type":"Edm.DateTime","G":"C9DA6455-213D-42C9-9A79-3E9149A57833","G@odata.type":"Edm.Guid","Orphan@odata.type":"Edm.Int64"}`
	e, keys, err := DecodeEntity([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if !keys.PartitionKey || !keys.RowKey || e.PartitionKey != "pé" || e.RowKey != `r"1` {
		t.Fatalf("keys %+v %q %q", keys, e.PartitionKey, e.RowKey)
	}
	want := map[string]edm.Value{
		"S": edm.StringValue("a\\b\n🚀"), "I": edm.Int32Value(42), "D": edm.DoubleValue(1.5), "W": edm.DoubleValue(3),
		"B": edm.BoolValue(true), "L": edm.Int64Value(9007199254740993),
	}
	g, _ := edm.ParseGuid("c9da6455-213d-42c9-9a79-3e9149a57833")
	want["G"] = g
	if len(e.Properties) != len(want) {
		t.Fatalf("properties %v", e.Properties)
	}
	// In the body's order: the store sorts them as it writes.
	for i, p := range e.Properties {
		if name := "SIDWBLG"[i : i+1]; p.Name != name {
			t.Fatalf("property %d is %s, want %s", i, p.Name, name)
		}
		if w := want[p.Name]; !edm.Equal(w, p.Value) || w.Kind() != p.Value.Kind() {
			t.Errorf("%s = %v (%v), want %v", p.Name, p.Value.Literal(), p.Value.Kind(), w.Literal())
		}
	}
	for body, code := range map[string]svcerr.Code{
		`{"A":1,"A":2}`:                       svcerr.DuplicatePropertiesSpecified,
		`{"A":{"b":1}}`:                       svcerr.InvalidInput,
		`{"A":[1]}`:                           svcerr.InvalidInput,
		`{"PartitionKey":1}`:                  svcerr.InvalidInput,
		`{"A":"x","A@odata.type":"Edm.Guid"}`: svcerr.InvalidInput,
		`{"A":1`:                              svcerr.InvalidInput,
		`{"A":01}`:                            svcerr.InvalidInput,
		`{"A":"\x01"}`:                        svcerr.InvalidInput,
		`{"A":"\u12"}`:                        svcerr.InvalidInput,
		`[]`:                                  svcerr.InvalidInput,
		`{} x`:                                svcerr.InvalidInput,
		`{"A":tru}`:                           svcerr.InvalidInput,
		`{"A@odata.type":5,"A":1}`:            svcerr.InvalidInput,
	} {
		if _, _, err := DecodeEntity([]byte(body)); !svcerr.Is(err, code) {
			t.Errorf("%s: %v, want %s", body, err, code)
		}
	}
	// Past 16 members repeats are found another way: a repeat at either
	// end of a long body, and none at all.
	var many []string
	for i := range 30 {
		many = append(many, fmt.Sprintf(`"P%d":%d`, i, i))
	}
	for _, c := range []struct {
		members []string
		code    svcerr.Code
	}{
		{append(append([]string{}, many...), `"P0":1`), svcerr.DuplicatePropertiesSpecified},
		{append([]string{`"P29":1`}, many...), svcerr.DuplicatePropertiesSpecified},
		{append(append([]string{}, many...), `"P0@odata.type":"Edm.Int64"`, `"P0@odata.type":"Edm.Int64"`), svcerr.DuplicatePropertiesSpecified},
	} {
		body := "{" + strings.Join(c.members, ",") + "}"
		if _, _, err := DecodeEntity([]byte(body)); !svcerr.Is(err, c.code) {
			t.Errorf("%d members: %v, want %s", len(c.members), err, c.code)
		}
	}
	if e, _, err := DecodeEntity([]byte("{" + strings.Join(many, ",") + "}")); err != nil || len(e.Properties) != 30 {
		t.Errorf("30 distinct members: %v", err)
	}
	if name, err := DecodeTableName([]byte(`{"TableName":"people"}`)); err != nil || name != "people" {
		t.Errorf("table name %q %v", name, err)
	}
}

func sample() *engine.Entity {
	when, _ := edm.ParseDateTime("2024-01-02T03:04:05.1234567Z")
	return &engine.Entity{PartitionKey: "O'Brien & Co", RowKey: "é/1", Timestamp: when.Ticks(), Properties: []engine.Property{
		{Name: "Big", Value: edm.Int64Value(math.MaxInt64)},
		{Name: "Inf", Value: edm.DoubleValue(math.Inf(1))},
		{Name: "Name", Value: edm.StringValue("Ann \"the\" <b>")},
		{Name: "Score", Value: edm.DoubleValue(2)},
	}}
}

func TestEncodeLevels(t *testing.T) {
	o := Options{BaseURL: "http://127.0.0.1:10002/devstoreaccount1", Account: "devstoreaccount1", Table: "people"}
	for _, m := range []Metadata{NoMetadata, MinimalMetadata, FullMetadata} {
		o.Metadata = m
		out := AppendEntity(nil, sample(), o)
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%v: invalid JSON %s", m, out)
		}
		_, hasMeta := got["odata.metadata"]
		_, hasID := got["odata.id"]
		_, hasAnn := got["Big@odata.type"]
		if hasMeta != (m != NoMetadata) || hasID != (m == FullMetadata) || hasAnn != (m != NoMetadata) {
			t.Errorf("level %d: %s", m, out)
		}
		if got["Score"] != 2.0 || !strings.Contains(string(out), `"Score":2.0`) || got["Big"] != "9223372036854775807" {
			t.Errorf("values at level %d: %s", m, out)
		}
		if m == FullMetadata && got["odata.id"] != "http://127.0.0.1:10002/devstoreaccount1/people(PartitionKey='O''Brien%20&%20Co',RowKey='%C3%A9%2F1')" {
			t.Errorf("odata.id %v", got["odata.id"])
		}
		// Round trip through the decoder.
		back, _, err := DecodeEntity(out)
		if err != nil {
			t.Fatalf("level %d: %v", m, err)
		}
		if m != NoMetadata && len(back.Properties) != 4 {
			t.Errorf("round trip at level %d: %v", m, back.Properties)
		}
	}
	list := AppendEntities(nil, []*engine.Entity{sample(), sample()}, Options{Metadata: MinimalMetadata, BaseURL: "b", Table: "t", Select: []string{"Name", "Nope"}})
	if !strings.Contains(string(list), `{"odata.metadata":"b/$metadata#t","value":[{"odata.etag":`) || !strings.Contains(string(list), `"Name":"Ann \"the\" <b>","Nope":null}`) {
		t.Errorf("list: %s", list)
	}
	tables := AppendTables(nil, []string{"a", "b"}, Options{Metadata: FullMetadata, BaseURL: "b", Account: "acc"})
	if !json.Valid(tables) || !strings.Contains(string(tables), `"odata.id":"b/Tables('a')"`) {
		t.Errorf("tables: %s", tables)
	}
	errBody := AppendError(nil, svcerr.New(svcerr.EntityAlreadyExists).AtIndex(3), "rid", time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC))
	if string(errBody) != `{"odata.error":{"code":"EntityAlreadyExists","message":{"lang":"en-US","value":"3:The specified entity already exists.\nRequestId:rid\nTime:2026-01-02T03:04:05.0000006Z"}}}` {
		t.Errorf("error body %s", errBody)
	}
}

func TestParseFormat(t *testing.T) {
	for _, c := range []struct {
		accept, format string
		want           Metadata
	}{
		{"", "", MinimalMetadata},
		{"application/json", "", MinimalMetadata},
		{"application/json;odata=nometadata", "", NoMetadata},
		{"application/json; odata = fullmetadata", "", FullMetadata},
		{"application/json;odata=minimalmetadata", "application/json;odata=nometadata", NoMetadata},
		{"application/xml, */*", "", MinimalMetadata},
	} {
		if got, err := ParseFormat(c.accept, c.format); err != nil || got != c.want {
			t.Errorf("%q %q: %v %v", c.accept, c.format, got, err)
		}
	}
	if _, err := ParseFormat("application/atom+xml", ""); !svcerr.Is(err, svcerr.AtomFormatNotSupported) {
		t.Errorf("atom: %v", err)
	}
}

func FuzzDecodeEntity(f *testing.F) {
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","A":1,"B":"x","C":"9","C@odata.type":"Edm.Int64"}`))
	f.Add([]byte(`{"S":"\ud83d\ude80\u0000\\","N":null,"D":-1.5e-3}`))
	f.Add([]byte(`{"A":"\ud800"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		e, _, err := DecodeEntity(body)
		var oracle map[string]any
		valid := json.Unmarshal(body, &oracle) == nil
		if err == nil && !valid {
			t.Fatalf("accepted invalid JSON %q", body)
		}
		if err != nil {
			return
		}
		// Whatever decodes encodes to valid JSON that decodes the same.
		out := AppendEntity(nil, e, Options{Metadata: MinimalMetadata, Table: "t"})
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
		back, _, err := DecodeEntity(out)
		if err != nil || len(back.Properties) != len(e.Properties) {
			t.Fatalf("%q → %q → %v", body, out, err)
		}
		for i := range back.Properties {
			a, b := e.Properties[i].Value, back.Properties[i].Value
			if a.Kind() != b.Kind() && !(a.Kind() == edm.Double && b.Kind() == edm.Double) {
				t.Fatalf("%s: %v became %v", e.Properties[i].Name, a.Kind(), b.Kind())
			}
		}
	})
}

func BenchmarkDecodeEntity(b *testing.B) {
	body := []byte(`{"PartitionKey":"Sales","RowKey":"00001234","FirstName":"Jonathan","LastName":"Smith","Email":"jonathan.smith@example.com","Age":42,"Balance":1234.5,"Joined":"2024-01-02T03:04:05.1234567Z","Joined@odata.type":"Edm.DateTime","Active":true,"Notes":"` + strings.Repeat("lorem ipsum ", 60) + `"}`)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := DecodeEntity(body); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendEntity(b *testing.B) {
	e := sample()
	o := Options{Metadata: MinimalMetadata, BaseURL: "http://127.0.0.1:10002/devstoreaccount1", Table: "people"}
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf = AppendEntity(buf[:0], e, o)
	}
}

// BenchmarkAppendPage writes a page of 1,000 entities of ~1 KiB, mostly
// text, as a store hands them out: strings marked plain when written
// ("plain") against the same strings unmarked, which the writer must
// scan for bytes to escape ("unmarked").
func BenchmarkAppendPage(b *testing.B) {
	notes := strings.Repeat("lorem ipsum dolor ", 45)
	page := func(str func(string) edm.Value) []*engine.Entity {
		es := make([]*engine.Entity, 1000)
		for i := range es {
			es[i] = &engine.Entity{PartitionKey: "p0001", RowKey: fmt.Sprintf("r%07d", i), Timestamp: 638_000_000_000_000_000 + int64(i), Properties: []engine.Property{
				{Name: "Active", Value: edm.BoolValue(true)},
				{Name: "Cat", Value: edm.Int32Value(int32(i % 50))},
				{Name: "Email", Value: str(fmt.Sprintf("customer%d@example.com", i))},
				{Name: "Name", Value: str(fmt.Sprintf("Customer %d", i))},
				{Name: "Notes", Value: str(notes)},
			}}
		}
		return es
	}
	o := Options{Metadata: NoMetadata}
	for _, c := range []struct {
		name string
		str  func(string) edm.Value
	}{{"plain", edm.PlainStringValue}, {"unmarked", edm.StringValue}} {
		es := page(c.str)
		b.Run(c.name, func(b *testing.B) {
			buf := AppendEntities(nil, es, o)
			b.SetBytes(int64(len(buf)))
			for b.Loop() {
				buf = AppendEntities(buf[:0], es, o)
			}
		})
	}
}

// The lexer is shared with edm and dump; the service's wording of its
// errors, and the offsets in them, are this package's and stay as they
// were when the decoder had a lexer of its own.
func TestDecodeSyntaxErrorMessages(t *testing.T) {
	for body, want := range map[string]string{
		`{"a":"abc`:          "unterminated string at offset 9.",
		"{\"a\":\"x\x01\"}":  "control character in a string at offset 7.",
		`{"a":"ab\`:          "unterminated escape at offset 8.",
		`{"a":"\q"}`:         `invalid escape \q at offset 8.`,
		`{"a":"\%"}`:         `invalid escape \% at offset 8.`,
		`{"a":"\u12G4"}`:     `malformed \u escape at offset 8.`,
		`{"a":"\ud83d\u12"}`: `malformed \u escape at offset 14.`,
		`{"a":-x}`:           "malformed number at offset 6.",
		`{"a":1.e5}`:         "malformed number at offset 7.",
		`{"a":1e+}`:          "malformed number at offset 8.",
		`{"a":nul}`:          "unexpected literal at offset 5.",
		`{"a":01}`:           "expected ',' or '}' at offset 6.",
		`{"a" 1}`:            "expected ':' at offset 5.",
		`{1:2}`:              "expected a member name at offset 1.",
	} {
		_, _, err := DecodeEntity([]byte(body))
		e := svcerr.From(err)
		if err == nil || e.Code != svcerr.InvalidInput || e.Message != "The request body is not valid JSON: "+want {
			t.Errorf("%q: %v, want InvalidInput: ...%s", body, err, want)
		}
	}
}
