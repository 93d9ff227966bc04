// Package jsonwire is the JSON format of the Azure Table REST protocol:
// entity bodies in, and entities, tables, query results and errors out,
// at the three metadata levels (nometadata, minimalmetadata,
// fullmetadata). It imports nothing of net/http, for the browser build.
package jsonwire

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/jsontext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Keys says which keys an entity body carried.
type Keys struct {
	PartitionKey, RowKey bool
}

// field is one member of the body's object.
type field struct {
	name     string // set once the whole object is read (see decoder.object)
	at       [2]int // the decoded name's span in the arena
	raw      []byte // the JSON value as written
	str      [2]int // for strings: the decoded text's span in the arena
	isString bool
	isNull   bool
}

// DecodeEntity reads an entity from a request body: one flat JSON object.
// PartitionKey and RowKey, when present, must be strings. Timestamp, every
// odata.* member and the annotations are not properties; "Prop@odata.type"
// gives Prop its type, and an annotation whose property is absent is
// ignored, as the service does. A null value leaves the property out.
// The properties come in the body's order: the store sorts them as it
// writes the entity (engine.Store.Write).
//
// All the entity's strings, names included, share one allocation, the
// decoder's arena, and the members are listed in an array on the stack:
// allocation is paid inline in WebAssembly, where the collector has no
// second core to run on.
func DecodeEntity(body []byte) (*engine.Entity, Keys, error) {
	d := decoder{src: body}
	var buf [16]field // most entities have fewer members
	fields, err := d.object(buf[:0])
	if err != nil {
		return nil, Keys{}, err
	}
	text := func(f *field) string { return d.text(f.str) }

	// A body of a few members is checked for repeats pairwise, which
	// costs less than building a set.
	var seen map[string]bool
	if len(fields) > 16 {
		seen = make(map[string]bool, len(fields))
	}
	// Made at the first annotation: most bodies have none.
	var types map[string]string
	n := 0
	for i := range fields {
		f := &fields[i]
		if repeated(fields, i, seen) {
			return nil, Keys{}, svcerr.New(svcerr.DuplicatePropertiesSpecified)
		}
		if prop, ok := strings.CutSuffix(f.name, "@odata.type"); ok {
			if !f.isString {
				return nil, Keys{}, svcerr.With(svcerr.InvalidInput, "The annotation "+f.name+" must be a string.")
			}
			if types == nil {
				types = map[string]string{}
			}
			types[prop] = text(f)
			continue
		}
		if !strings.HasPrefix(f.name, "odata.") && !strings.Contains(f.name, "@") && f.name != engine.TimestampName {
			n++
		}
	}
	e := &engine.Entity{Properties: make([]engine.Property, 0, n)}
	var keys Keys
	for i := range fields {
		f := &fields[i]
		name := f.name
		if strings.HasPrefix(name, "odata.") || strings.Contains(name, "@") || name == engine.TimestampName {
			continue
		}
		if name == engine.PartitionKeyName || name == engine.RowKeyName {
			if !f.isString {
				return nil, Keys{}, svcerr.With(svcerr.InvalidInput, "The "+name+" must be a string.")
			}
			if name == engine.PartitionKeyName {
				e.PartitionKey, keys.PartitionKey = text(f), true
			} else {
				e.RowKey, keys.RowKey = text(f), true
			}
			continue
		}
		if f.isNull {
			continue
		}
		var v edm.Value
		typ := types[name]
		switch {
		case f.isString && (typ == "" || typ == "Edm.String"):
			v = edm.StringValue(text(f))
		case f.isString:
			// Typed strings (Int64, DateTime, Guid, Binary, Double…) are
			// parsed from the decoded text.
			v, err = edm.DecodeJSON(quoteForEdm(text(f)), typ)
		default:
			v, err = edm.DecodeJSON(f.raw, typ)
		}
		if err != nil {
			e := svcerr.From(err)
			return nil, Keys{}, svcerr.With(e.Code, "Property "+name+": "+e.Message)
		}
		e.Properties = append(e.Properties, engine.Property{Name: name, Value: v})
	}
	return e, keys, nil
}

// repeated reports whether fields[i] has the name of an earlier field:
// from seen, which it keeps, when there is one, or by comparing.
func repeated(fields []field, i int, seen map[string]bool) bool {
	name := fields[i].name
	if seen != nil {
		if seen[name] {
			return true
		}
		seen[name] = true
		return false
	}
	for j := range i {
		if fields[j].name == name {
			return true
		}
	}
	return false
}

// quoteForEdm re-quotes a decoded typed string for edm.DecodeJSON. Typed
// strings hold digits, dates, Guids or base64, none of which need
// escaping, so a plain quote suffices; anything else fails the type's
// parser as it should.
func quoteForEdm(s string) []byte {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' || s[i] < 0x20 {
			b = append(b, '?') // cannot be valid in any typed value
			continue
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// DecodeTableName reads a create-table body: {"TableName":"name"}.
func DecodeTableName(body []byte) (string, error) {
	d := decoder{src: body}
	var buf [4]field
	fields, err := d.object(buf[:0])
	if err != nil {
		return "", err
	}
	for i := range fields {
		f := &fields[i]
		if f.name == "TableName" {
			if !f.isString {
				return "", svcerr.With(svcerr.InvalidInput, "TableName must be a string.")
			}
			return d.text(f.str), nil
		}
	}
	return "", svcerr.New(svcerr.PropertiesNeedValue)
}

// decoder scans one flat JSON object. It is written out by hand because
// encoding/json's map decoding would hide duplicate members, and because
// every decoded string goes into one arena.
type decoder struct {
	src   []byte
	pos   int
	arena []byte
}

// text returns the decoded text at span in the arena. Once the object is
// read nothing writes to the arena again, so its strings share its
// memory without a copy.
func (d *decoder) text(span [2]int) string {
	return unsafe.String(unsafe.SliceData(d.arena[span[0]:]), span[1]-span[0])
}

func (d *decoder) fail(what string) error {
	return svcerr.With(svcerr.InvalidInput, "The request body is not valid JSON: "+what+" at offset "+strconv.Itoa(d.pos)+".")
}

// syntax words an error from the lexer, which left d.pos at the error's
// offset, in the service's format.
func (d *decoder) syntax(err error) error {
	if e, ok := err.(*jsontext.SyntaxError); ok {
		return d.fail(e.Msg)
	}
	return err
}

func (d *decoder) space() {
	d.pos = jsontext.SkipSpace(d.src, d.pos)
}

// object reads the object's members into fields, with their names set.
func (d *decoder) object(fields []field) ([]field, error) {
	d.arena = make([]byte, 0, len(d.src))
	d.space()
	if d.pos >= len(d.src) || d.src[d.pos] != '{' {
		return nil, d.fail("expected an object")
	}
	d.pos++
	d.space()
	if d.pos < len(d.src) && d.src[d.pos] == '}' {
		d.pos++
	} else {
		for {
			d.space()
			if d.pos >= len(d.src) || d.src[d.pos] != '"' {
				return nil, d.fail("expected a member name")
			}
			at := [2]int{len(d.arena), 0}
			if err := d.str(); err != nil {
				return nil, err
			}
			at[1] = len(d.arena)
			d.space()
			if d.pos >= len(d.src) || d.src[d.pos] != ':' {
				return nil, d.fail("expected ':'")
			}
			d.pos++
			d.space()
			f, err := d.value(at)
			if err != nil {
				return nil, err
			}
			fields = append(fields, f)
			d.space()
			if d.pos >= len(d.src) {
				return nil, d.fail("unexpected end")
			}
			if d.src[d.pos] == ',' {
				d.pos++
				continue
			}
			if d.src[d.pos] == '}' {
				d.pos++
				break
			}
			return nil, d.fail("expected ',' or '}'")
		}
	}
	d.space()
	if d.pos != len(d.src) {
		return nil, d.fail("unexpected data after the object")
	}
	// The arena may have moved as it grew (a byte of invalid UTF-8
	// decodes to three), so names are read from it only now.
	for i := range fields {
		fields[i].name = d.text(fields[i].at)
	}
	return fields, nil
}

func (d *decoder) value(at [2]int) (field, error) {
	f := field{at: at}
	if d.pos >= len(d.src) {
		return f, d.fail("expected a value")
	}
	start := d.pos
	switch c := d.src[d.pos]; {
	case c == '"':
		f.isString = true
		f.str[0] = len(d.arena)
		if err := d.str(); err != nil {
			return f, err
		}
		f.str[1] = len(d.arena)
	case c == 't':
		if err := d.word("true"); err != nil {
			return f, err
		}
	case c == 'f':
		if err := d.word("false"); err != nil {
			return f, err
		}
	case c == 'n':
		if err := d.word("null"); err != nil {
			return f, err
		}
		f.isNull = true
	case c == '-' || c >= '0' && c <= '9':
		if err := d.number(); err != nil {
			return f, err
		}
	case c == '{' || c == '[':
		return f, svcerr.With(svcerr.InvalidInput, "The property "+string(d.arena[at[0]:at[1]])+" has a nested object or array; property values must be strings, numbers or booleans.")
	default:
		return f, d.fail("unexpected character " + strconv.Quote(string(rune(c))))
	}
	f.raw = d.src[start:d.pos]
	return f, nil
}

func (d *decoder) word(w string) (err error) {
	d.pos, err = jsontext.Literal(d.src, d.pos, w)
	return d.syntax(err)
}

func (d *decoder) number() (err error) {
	d.pos, err = jsontext.Number(d.src, d.pos)
	return d.syntax(err)
}

// str decodes the string at d.pos into the arena.
func (d *decoder) str() (err error) {
	d.arena, d.pos, err = jsontext.AppendString(d.arena, d.src, d.pos)
	return d.syntax(err)
}
