package dump

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/jsontext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Import reads text written by Export into s. The whole text is read and
// checked first, every entity against the rules s would hold it to, and
// nothing is written unless all of it passes: a text with anything wrong
// leaves s as it was, and the error, an *Error, says what and where.
//
// Then a table that does not exist is created, and each entity replaces
// any entity with the same keys (InsertOrReplace), so importing twice
// changes nothing but Timestamps. Entities of one partition are written
// in batches of up to 100, each durable whole or not at all; should s
// fail to make a batch durable, the batches before it stay.
func Import(s *engine.Store, r io.Reader) error {
	src, err := read(s, r)
	if err != nil {
		return err
	}
	return merge(s, src)
}

// Replace makes the tables of s those of text written by Export: every
// table of s is deleted and the text's created, as one write that a crash
// leaves done or not done (engine.Store.ReplaceTables). The text is read
// and checked whole first, as for Import; when anything is wrong, s is
// left as it was and the error, an *Error, says what and where.
func Replace(s *engine.Store, r io.Reader) error {
	src, err := read(s, r)
	if err != nil {
		return err
	}
	return s.ReplaceTables(src)
}

// An Error is what is wrong with a text that Import or Replace refused,
// and where it is.
type Error struct {
	// Line and Column are where the problem lies in the text, counted
	// from 1; a column counts characters.
	Line, Column int
	// Table is the table the problem is in, when it is in one.
	Table string
	// Entity is the position of the entity at fault in its table's
	// list, counted from 1, or 0 when the problem is not an entity's.
	Entity int
	// PartitionKey and RowKey are the entity's keys, each when it was
	// read (HasKeys says which).
	PartitionKey, RowKey string
	HasKeys              jsonwire.Keys
	// Reason says what is wrong, in a sentence without its period.
	Reason string
	// Err is the service's error behind Reason, when the store refused
	// what the text holds (a *svcerr.Error), or nil.
	Err error
}

// Error returns the place and the reason: "line 14, column 2: table
// Orders, entity 12 (PartitionKey 'x', RowKey 'y'): …".
func (e *Error) Error() string {
	b := make([]byte, 0, 128)
	b = append(b, "line "...)
	b = strconv.AppendInt(b, int64(e.Line), 10)
	b = append(b, ", column "...)
	b = strconv.AppendInt(b, int64(e.Column), 10)
	b = append(b, ": "...)
	if e.Table != "" {
		b = append(b, "table "...)
		b = append(b, e.Table...)
		if e.Entity > 0 {
			b = append(b, ", entity "...)
			b = strconv.AppendInt(b, int64(e.Entity), 10)
			switch k := e.HasKeys; {
			case k.PartitionKey && k.RowKey:
				b = append(b, " (PartitionKey "...)
				b = appendQuoted(b, e.PartitionKey)
				b = append(b, ", RowKey "...)
				b = appendQuoted(b, e.RowKey)
				b = append(b, ')')
			case k.PartitionKey:
				b = append(b, " (PartitionKey "...)
				b = appendQuoted(b, e.PartitionKey)
				b = append(b, ')')
			case k.RowKey:
				b = append(b, " (RowKey "...)
				b = appendQuoted(b, e.RowKey)
				b = append(b, ')')
			}
		}
		b = append(b, ": "...)
	}
	b = append(b, e.Reason...)
	return string(b)
}

// Unwrap returns the service's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// quoted is s as appendQuoted writes it.
func quoted(s string) string { return string(appendQuoted(nil, s)) }

// appendQuoted appends s between single quotes, shortened when long, with
// what would not print escaped as in a Go string.
func appendQuoted(b []byte, s string) []byte {
	const most = 60
	short := s
	if len(short) > most {
		short = short[:most]
		for !utf8.ValidString(short) {
			short = short[:len(short)-1]
		}
	}
	q := strconv.Quote(short)
	b = append(b, '\'')
	b = append(b, q[1:len(q)-1]...)
	if short != s {
		b = append(b, "…"...)
	}
	return append(b, '\'')
}

// read reads and checks the whole text into a new store with the rules
// of s, which it does not touch.
func read(s *engine.Store, r io.Reader) (*engine.Store, error) {
	src, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	rd := &reader{scanner: scanner{src: src}, dst: s.NewEmpty(), tables: map[string]int{}}
	// A byte order mark, as some editors save, is not text.
	if len(src) >= 3 && string(src[:3]) == "\xef\xbb\xbf" {
		rd.off = 3
	}
	if err := rd.export(); err != nil {
		return nil, err
	}
	return rd.dst, nil
}

// reader reads an export's text into dst.
type reader struct {
	scanner
	dst *engine.Store
	// tables are the tables read so far, by name as dst folds it, with
	// the offset of each one's name.
	tables map[string]int
}

// export reads the whole text: one object whose "tablelab" member names
// the format and whose "tables" member lists the tables.
func (rd *reader) export() error {
	start := rd.off
	sawFormat := false
	err := rd.object(func(member string) error {
		switch member {
		case "tablelab":
			at := rd.valueStart()
			name, err := rd.str()
			if err != nil {
				return err
			}
			if name != FormatName {
				return rd.failAt(at, "the text's format is "+quoted(name)+", which this version does not read: it reads "+quoted(FormatName))
			}
			sawFormat = true
			return nil
		case "tables":
			n := 0
			return rd.array(func() error {
				n++
				return rd.table(n)
			})
		}
		return rd.skip()
	})
	if err != nil {
		return err
	}
	if rd.space(); rd.off != len(rd.src) {
		return rd.fail("there is more text after the export's closing '}'")
	}
	if !sawFormat {
		return rd.failAt(rd.first(start), `this is not a tablelab export: it has no "tablelab":"`+FormatName+`" member`)
	}
	return nil
}

// first returns the offset of the first byte at or after off that is not
// white space.
func (rd *reader) first(off int) int { return jsontext.SkipSpace(rd.src, off) }

// valueStart returns the offset of the value that comes next.
func (rd *reader) valueStart() int { return rd.first(rd.off) }

// table reads the n-th element of "tables": {"name":…,"entities":[…]},
// the members in any order.
func (rd *reader) table(n int) error {
	at := rd.valueStart()
	if at < len(rd.src) && rd.src[at] != '{' && valueKind(rd.src[at]) != "" {
		return rd.failAt(at, "table "+strconv.Itoa(n)+" of the list is not a JSON object")
	}
	name := ""
	nameAt, entitiesAt := -1, -1
	err := rd.object(func(member string) error {
		switch member {
		case "name":
			nameAt = rd.valueStart()
			var err error
			if name, err = rd.str(); err != nil {
				return err
			}
			return rd.createTable(name, nameAt)
		case "entities":
			entitiesAt = rd.valueStart()
			if nameAt < 0 {
				// Read once the name is known.
				return rd.skip()
			}
			return rd.entities(name, entitiesAt)
		}
		return rd.skip()
	})
	if err != nil {
		return err
	}
	if nameAt < 0 {
		return rd.failAt(at, "table "+strconv.Itoa(n)+" of the list has no \"name\"")
	}
	if entitiesAt >= 0 && entitiesAt < nameAt {
		end := rd.off
		rd.off = entitiesAt
		if err := rd.entities(name, entitiesAt); err != nil {
			return err
		}
		rd.off = end
	}
	return nil
}

// createTable creates the table name, found at offset at, in dst.
func (rd *reader) createTable(name string, at int) error {
	err := rd.dst.CreateTable(name)
	switch {
	case err == nil:
		rd.tables[name] = at
		return nil
	case svcerr.Is(err, svcerr.TableAlreadyExists):
		as, _ := rd.dst.TableExists(name)
		first := rd.place(rd.tables[as])
		if as != name {
			return rd.failAt(at, "the tables "+quoted(as)+" (at "+first+") and "+quoted(name)+" differ only by case, which table names do not")
		}
		return rd.failAt(at, "the table "+quoted(name)+" is listed twice (first at "+first+")")
	}
	e := rd.failAt(at, quoted(name)+" is not a table name: a name is 3 to 63 letters and digits of ASCII, beginning with a letter, and not 'tables'").(*Error)
	e.Err = err
	return e
}

// entities reads a table's "entities" array, the scanner at it, into dst.
func (rd *reader) entities(table string, at int) error {
	table, _ = rd.dst.TableExists(table)
	n := 0
	return rd.array(func() error {
		n++
		start := rd.valueStart()
		raw, err := rd.value()
		if err != nil {
			return err
		}
		var e *engine.Entity
		var keys jsonwire.Keys
		fail := func(reason string, cause error) error {
			err := &Error{Line: rd.line(start), Column: rd.column(start), Table: table, Entity: n, HasKeys: keys, Reason: reason, Err: cause}
			if e != nil {
				err.PartitionKey, err.RowKey = e.PartitionKey, e.RowKey
			}
			return err
		}
		if raw[0] != '{' {
			return fail("an entity is a JSON object, and this is not one", nil)
		}
		e, keys, err = jsonwire.DecodeEntity(raw)
		if err != nil {
			e, keys = keysOf(raw)
			return fail(svcerr.Clause(svcerr.From(err).Message), err)
		}
		switch {
		case !keys.PartitionKey && !keys.RowKey:
			return fail("it has neither a PartitionKey nor a RowKey", nil)
		case !keys.PartitionKey:
			return fail("it has no PartitionKey", nil)
		case !keys.RowKey:
			return fail("it has no RowKey", nil)
		}
		pk, rk := e.PartitionKey, e.RowKey
		_, err = rd.dst.Write(table, engine.Op{Kind: engine.Insert, Entity: e})
		switch {
		case err == nil:
			return nil
		case svcerr.Is(err, svcerr.EntityAlreadyExists):
			return fail("an entity with the same keys comes before it in the table ("+rd.twin(at, pk, rk)+")", err)
		}
		return fail(why(e, err), err)
	})
}

// keysOf reads what it can of the keys of an entity the wire decoder
// refused, to say which entity it is.
func keysOf(raw []byte) (*engine.Entity, jsonwire.Keys) {
	var e engine.Entity
	var keys jsonwire.Keys
	sc := scanner{src: raw}
	sc.object(func(member string) error {
		switch member {
		case engine.PartitionKeyName, engine.RowKeyName:
			if sc.valueStart() < len(raw) && raw[sc.valueStart()] == '"' {
				v, err := sc.str()
				if member == engine.PartitionKeyName {
					e.PartitionKey, keys.PartitionKey = v, err == nil
				} else {
					e.RowKey, keys.RowKey = v, err == nil
				}
				return err
			}
		}
		return sc.skip()
	})
	return &e, keys
}

// twin finds the first entity with the keys pk and rk in the array at
// offset at, and says where it is.
func (rd *reader) twin(at int, pk, rk string) string {
	sc := scanner{src: rd.src, off: at}
	n, found := 0, -1
	sc.array(func() error {
		n++
		start := sc.valueStart()
		raw, err := sc.value()
		if err != nil || found >= 0 {
			return err
		}
		if e, _, err := jsonwire.DecodeEntity(raw); err == nil && e.PartitionKey == pk && e.RowKey == rk {
			found = start
			return errFound
		}
		return nil
	})
	if found < 0 {
		return "earlier"
	}
	return "entity " + strconv.Itoa(n) + ", " + rd.place(found)
}

// errFound ends a walk that found what it looked for.
var errFound = &Error{Reason: "found"}

// why explains, in plain words, why the store refused e with err.
func why(e *engine.Entity, err error) string {
	se := svcerr.From(err)
	reason := svcerr.Clause(se.Message)
	switch se.Code {
	case svcerr.OutOfRangeInput:
		for _, k := range [...]struct{ name, v string }{{engine.PartitionKeyName, e.PartitionKey}, {engine.RowKeyName, e.RowKey}} {
			if c, ok := badKeyChar(k.v); ok {
				return "its " + k.name + " holds " + c + ", which a key may not hold (nor any of / \\ # ? or a control character)"
			}
		}
		for _, p := range e.Properties {
			if p.Value.Kind() == edm.DateTime && (p.Value.Ticks() < edm.MinDateTimeTicks || p.Value.Ticks() > edm.MaxDateTimeTicks) {
				return "its property " + p.Name + " holds a date the service does not take: an Edm.DateTime lies between the years 1601 and 9999"
			}
		}
	case svcerr.PropertyValueTooLarge:
		for _, k := range [...]struct{ name, v string }{{engine.PartitionKeyName, e.PartitionKey}, {engine.RowKeyName, e.RowKey}} {
			if n := edm.UTF16Len(k.v); n > engine.MaxKeyUTF16 {
				return "its " + k.name + " is " + strconv.Itoa(n) + " UTF-16 code units long, and a key may be at most " + strconv.Itoa(engine.MaxKeyUTF16)
			}
		}
		for _, p := range e.Properties {
			switch v := p.Value; v.Kind() {
			case edm.String:
				if n := edm.UTF16Len(v.Str()); n > engine.MaxStringUTF16 {
					return "its property " + p.Name + " holds " + strconv.Itoa(n) + " UTF-16 code units of text, and a string may hold at most " + strconv.Itoa(engine.MaxStringUTF16)
				}
			case edm.Binary:
				if n := len(v.Str()); n > engine.MaxBinaryLen {
					return "its property " + p.Name + " holds " + strconv.Itoa(n) + " bytes, and an Edm.Binary may hold at most " + strconv.Itoa(engine.MaxBinaryLen)
				}
			}
		}
	case svcerr.TooManyProperties:
		return "it has " + strconv.Itoa(len(e.Properties)) + " properties, and an entity may have at most " + strconv.Itoa(engine.MaxProperties) + " besides PartitionKey, RowKey and Timestamp"
	case svcerr.EntityTooLarge:
		return "it is " + strconv.Itoa(engine.EntitySize(e)) + " bytes as the service counts them, more than the " + strconv.Itoa(engine.MaxEntitySize) + " an entity may be"
	case svcerr.PropertyNameTooLong, svcerr.PropertyNameInvalid:
		for _, p := range e.Properties {
			if engine.ValidatePropertyName(p.Name) != nil {
				return "its property name " + quoted(p.Name) + " is not one the service takes: a name is a letter or '_' followed by letters, digits and '_', at most " + strconv.Itoa(engine.MaxPropertyNameLen) + " characters long"
			}
		}
	}
	return reason
}

// badKeyChar returns, quoted, the first character of k that a key may not
// hold.
func badKeyChar(k string) (string, bool) {
	for i, r := range k {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(k[i:]); size == 1 {
				return "bytes that are not UTF-8", true
			}
		}
		if r == '/' || r == '\\' || r == '#' || r == '?' || r < 0x20 || r >= 0x7f && r <= 0x9f {
			q := strconv.QuoteRune(r)
			return q, true
		}
	}
	return "", false
}

// merge writes the tables of src into s: each created if s lacks it, and
// each entity put in place of any with its keys, in batches of one
// partition.
func merge(s, src *engine.Store) error {
	var next string
	for {
		tables, err := src.QueryTables(engine.TableQuery{NextTableName: next})
		if err != nil {
			return err
		}
		for _, name := range tables.Names {
			if err := s.CreateTable(name); err != nil && !svcerr.Is(err, svcerr.TableAlreadyExists) {
				return err
			}
			if err := mergeTable(s, src, name); err != nil {
				return err
			}
		}
		if next = tables.NextTableName; next == "" {
			return nil
		}
	}
}

func mergeTable(s, src *engine.Store, table string) error {
	var ops []engine.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		_, err := s.Batch(table, ops)
		ops = ops[:0]
		return err
	}
	var after *engine.Continuation
	for {
		page, err := src.Query(table, engine.Query{After: after})
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			if len(ops) == engine.MaxBatchOperations || len(ops) > 0 && ops[0].Entity.PartitionKey != e.PartitionKey {
				if err := flush(); err != nil {
					return err
				}
			}
			ops = append(ops, engine.Op{Kind: engine.InsertOrReplace, Entity: e})
		}
		if after = page.Next; after == nil {
			return flush()
		}
	}
}

// scanner walks the envelope of an export; the lexer checks the syntax of
// what it steps over, and each entity is decoded whole by the wire
// decoder.
type scanner struct {
	src []byte
	off int
}

// fail reports what is wrong at the scanner's offset.
func (sc *scanner) fail(what string) error { return sc.failAt(sc.off, what) }

// failAt reports what is wrong at offset off.
func (sc *scanner) failAt(off int, what string) error {
	return &Error{Line: sc.line(off), Column: sc.column(off), Reason: what}
}

// line returns the line of offset off, counted from 1.
func (sc *scanner) line(off int) int {
	n := 1
	for _, c := range sc.src[:min(off, len(sc.src))] {
		if c == '\n' {
			n++
		}
	}
	return n
}

// column returns the column of offset off in characters, counted from 1.
func (sc *scanner) column(off int) int {
	off = min(off, len(sc.src))
	start := off
	for start > 0 && sc.src[start-1] != '\n' {
		start--
	}
	return 1 + utf8.RuneCount(sc.src[start:off])
}

// place says where offset off is: "line 3, column 7".
func (sc *scanner) place(off int) string {
	return "line " + strconv.Itoa(sc.line(off)) + ", column " + strconv.Itoa(sc.column(off))
}

// syntax words an error from the lexer, which left sc.off at the error's
// offset, in the scanner's format.
func (sc *scanner) syntax(err error) error {
	e, ok := err.(*jsontext.SyntaxError)
	if !ok {
		return err
	}
	return sc.failAt(e.Offset, "the text is not valid JSON: "+e.Msg)
}

func (sc *scanner) space() {
	sc.off = jsontext.SkipSpace(sc.src, sc.off)
}

// valueStart returns the offset of the value that comes next.
func (sc *scanner) valueStart() int { return jsontext.SkipSpace(sc.src, sc.off) }

// expect consumes c, after any white space; what names it in an error.
func (sc *scanner) expect(c byte, what string) error {
	sc.space()
	if sc.off >= len(sc.src) || sc.src[sc.off] != c {
		return sc.unexpected(what)
	}
	sc.off++
	return nil
}

// unexpected reports that what was expected at the scanner's offset and
// is not there: a matter of the export's shape when a JSON value stands
// there instead, and otherwise of JSON's syntax.
func (sc *scanner) unexpected(what string) error {
	if len(sc.src) == 0 || len(sc.src) == 3 && sc.off == 3 {
		return sc.fail("the text is empty")
	}
	kind := ""
	if sc.off < len(sc.src) {
		kind = valueKind(sc.src[sc.off])
	}
	if kind == "" || what == "':'" || strings.HasPrefix(what, "','") {
		return sc.syntax(&jsontext.SyntaxError{Msg: "expected " + what, Offset: sc.off})
	}
	return sc.fail("expected " + what + " here, not " + kind)
}

// valueKind names the kind of JSON value that begins with c, or returns
// "" when no value begins so.
func valueKind(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || c >= '0' && c <= '9':
		return "a number"
	}
	return ""
}

// next reports whether the next byte, after white space, is c, and
// consumes it if so.
func (sc *scanner) next(c byte) bool {
	sc.space()
	if sc.off < len(sc.src) && sc.src[sc.off] == c {
		sc.off++
		return true
	}
	return false
}

// object reads an object, calling member for each member's name with the
// scanner at its value, which member must consume.
func (sc *scanner) object(member func(name string) error) error {
	if err := sc.expect('{', "an object"); err != nil {
		return err
	}
	if sc.next('}') {
		return nil
	}
	for {
		name, err := sc.str()
		if err != nil {
			return err
		}
		if err := sc.expect(':', "':'"); err != nil {
			return err
		}
		if err := member(name); err != nil {
			return err
		}
		if sc.next('}') {
			return nil
		}
		if err := sc.expect(',', "',' or '}'"); err != nil {
			return err
		}
	}
}

// array reads an array, calling element with the scanner at each element.
func (sc *scanner) array(element func() error) error {
	if err := sc.expect('[', "an array"); err != nil {
		return err
	}
	if sc.next(']') {
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		if sc.next(']') {
			return nil
		}
		if err := sc.expect(',', "',' or ']'"); err != nil {
			return err
		}
	}
}

// str reads a string and returns its decoded text.
func (sc *scanner) str() (string, error) {
	sc.space()
	if sc.off >= len(sc.src) || sc.src[sc.off] != '"' {
		return "", sc.unexpected("a string")
	}
	text, end, err := jsontext.AppendString(nil, sc.src, sc.off)
	if sc.off = end; err != nil {
		return "", sc.syntax(err)
	}
	return string(text), nil
}

// value returns the text of the next value, whatever it is.
func (sc *scanner) value() ([]byte, error) {
	sc.space()
	start := sc.off
	if err := sc.skip(); err != nil {
		return nil, err
	}
	return sc.src[start:sc.off], nil
}

// skip steps over one value, checking its syntax.
func (sc *scanner) skip() (err error) {
	sc.off, err = jsontext.SkipValue(sc.src, sc.off)
	return sc.syntax(err)
}
