package dump

import (
	"errors"
	"io"
	"strconv"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/internal/jsontext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// maxBatch is the most operations the engine takes in one batch.
const maxBatch = 100

// Import reads text written by Export into s. A table that does not exist
// is created; each entity replaces any entity with the same keys
// (InsertOrReplace), so importing twice changes nothing but Timestamps.
// Entities of one partition that follow each other are written in batches
// of up to 100: an import of many entities is then a few large writes,
// and each batch is durable whole or not at all. On an error, what was
// written before it stays.
func Import(s *engine.Store, r io.Reader) error {
	src, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	sc := scanner{src: src}
	sawFormat := false
	err = sc.object(func(member string) error {
		switch member {
		case "tablelab":
			name, err := sc.str()
			if err != nil {
				return err
			}
			if name != FormatName {
				return errors.New("dump: the text's format is " + name + ", not " + FormatName)
			}
			sawFormat = true
			return nil
		case "tables":
			if !sawFormat {
				return sc.fail(`"tables" before "tablelab"`)
			}
			return sc.array(func() error { return importTable(s, &sc) })
		}
		return sc.skip()
	})
	if err == nil {
		if sc.space(); sc.off != len(sc.src) {
			err = sc.fail("text after the end")
		}
	}
	if err == nil && !sawFormat {
		err = errors.New(`dump: not an export (no "tablelab":"` + FormatName + `" member)`)
	}
	return err
}

// importTable reads one element of "tables": {"name":…,"entities":[…]}.
// The name must come before the entities.
func importTable(s *engine.Store, sc *scanner) error {
	var table string
	var ops []engine.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		_, err := s.Batch(table, ops)
		ops = ops[:0]
		return err
	}
	err := sc.object(func(member string) error {
		switch member {
		case "name":
			name, err := sc.str()
			if err != nil {
				return err
			}
			if err := s.CreateTable(name); err != nil && svcerr.From(err).Code != svcerr.TableAlreadyExists {
				return err
			}
			table = name
			return nil
		case "entities":
			if table == "" {
				return sc.fail(`"entities" before the table's "name"`)
			}
			return sc.array(func() error {
				raw, err := sc.value()
				if err != nil {
					return err
				}
				e, keys, err := jsonwire.DecodeEntity(raw)
				if err != nil {
					return err
				}
				if !keys.PartitionKey || !keys.RowKey {
					return sc.fail("an entity without PartitionKey or RowKey")
				}
				if len(ops) == maxBatch || len(ops) > 0 && ops[0].Entity.PartitionKey != e.PartitionKey {
					if err := flush(); err != nil {
						return err
					}
				}
				ops = append(ops, engine.Op{Kind: engine.InsertOrReplace, Entity: e})
				return nil
			})
		}
		return sc.skip()
	})
	if err != nil {
		return err
	}
	return flush()
}

// scanner walks the envelope of an export; the lexer checks the syntax of
// what it steps over, and each entity is decoded whole by the wire
// decoder.
type scanner struct {
	src []byte
	off int
}

func (sc *scanner) fail(what string) error {
	return errors.New("dump: " + what + " at byte " + strconv.Itoa(sc.off))
}

// syntax words an error from the lexer, which left sc.off at the error's
// offset, in the scanner's format.
func (sc *scanner) syntax(err error) error {
	e, ok := err.(*jsontext.SyntaxError)
	if !ok {
		return err
	}
	return sc.fail(e.Msg)
}

func (sc *scanner) space() {
	sc.off = jsontext.SkipSpace(sc.src, sc.off)
}

// expect consumes c, after any white space.
func (sc *scanner) expect(c byte) error {
	sc.space()
	if sc.off >= len(sc.src) || sc.src[sc.off] != c {
		return sc.fail("expected '" + string(rune(c)) + "'")
	}
	sc.off++
	return nil
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
	if err := sc.expect('{'); err != nil {
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
		if err := sc.expect(':'); err != nil {
			return err
		}
		if err := member(name); err != nil {
			return err
		}
		if sc.next('}') {
			return nil
		}
		if err := sc.expect(','); err != nil {
			return err
		}
	}
}

// array reads an array, calling element with the scanner at each element.
func (sc *scanner) array(element func() error) error {
	if err := sc.expect('['); err != nil {
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
		if err := sc.expect(','); err != nil {
			return err
		}
	}
}

// str reads a string and returns its decoded text.
func (sc *scanner) str() (string, error) {
	sc.space()
	if sc.off >= len(sc.src) || sc.src[sc.off] != '"' {
		return "", sc.fail("expected a string")
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
