// Package dump writes a store's tables as JSON text and reads them back,
// so that data moves between hosts: out of the browser's playground and
// into `go run .`, or the other way.
//
// The format is one JSON object:
//
//	{"tablelab":"export/1","tables":[
//	 {"name":"Orders","entities":[
//	  {"PartitionKey":"p1","RowKey":"r1","Timestamp@odata.type":"Edm.DateTime","Timestamp":"…",
//	   "Total@odata.type":"Edm.Int64","Total":"12", …},
//	  …]},
//	 …]}
//
// Each entity is written as the Table service's JSON wire format writes it,
// with an "@odata.type" annotation on every value a bare JSON value cannot
// type (Int64, DateTime, Guid, Binary and the non-finite Doubles), so any
// client that reads entities reads these. Tables come in name order and
// entities in key order. Import merges the same text into a store, and
// Replace puts its tables in place of the store's; both read and check
// the whole text before they write anything. Timestamps are informative
// only, since every write the store makes gets a new one.
//
// The package uses only the engine's public API and the wire format's
// entity decoder, and no encoding/json, which would add a quarter to the
// browser build.
package dump

import (
	"bufio"
	"io"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
)

// FormatName identifies the format in the text's "tablelab" member.
const FormatName = "export/1"

// Export writes every table of s and its entities to w. It reads each
// table a page at a time, so a concurrent writer may or may not be seen,
// as with any query; each page is consistent.
func Export(s *engine.Store, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"tablelab":"` + FormatName + `","tables":[`)
	var b []byte
	first := true
	var next string
	for {
		tables, err := s.QueryTables(engine.TableQuery{NextTableName: next})
		if err != nil {
			return err
		}
		for _, name := range tables.Names {
			if !first {
				bw.WriteByte(',')
			}
			first = false
			b = append(b[:0], "\n{\"name\":"...)
			b = edm.AppendQuoted(b, name)
			b = append(b, `,"entities":[`...)
			bw.Write(b)
			if err := exportTable(s, name, bw); err != nil {
				return err
			}
			bw.WriteString("]}")
		}
		if next = tables.NextTableName; next == "" {
			break
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func exportTable(s *engine.Store, table string, bw *bufio.Writer) error {
	var after *engine.Continuation
	var b []byte
	first := true
	for {
		page, err := s.Query(table, engine.Query{After: after})
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			b = b[:0]
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, '\n')
			b = appendEntity(b, e)
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
		if after = page.Next; after == nil {
			return nil
		}
	}
}

// appendEntity appends e as one JSON object in the wire format, the keys
// and Timestamp first.
func appendEntity(b []byte, e *engine.Entity) []byte {
	b = append(b, `{"PartitionKey":`...)
	b = edm.AppendQuoted(b, e.PartitionKey)
	b = append(b, `,"RowKey":`...)
	b = edm.AppendQuoted(b, e.RowKey)
	b = append(b, `,"Timestamp@odata.type":"Edm.DateTime","Timestamp":`...)
	b = edm.AppendJSON(b, edm.DateTimeTicks(e.Timestamp))
	for _, p := range e.Properties {
		if p.Value.NeedsAnnotation() {
			b = append(b, ',')
			b = edm.AppendQuoted(b, p.Name+"@odata.type")
			b = append(b, ':')
			b = edm.AppendQuoted(b, p.Value.Kind().String())
		}
		b = append(b, ',')
		b = edm.AppendQuoted(b, p.Name)
		b = append(b, ':')
		b = edm.AppendJSON(b, p.Value)
	}
	return append(b, '}')
}
