package engine

import (
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/keyspace"
)

// Property is one named, typed value of an entity.
type Property struct {
	Name  string
	Value edm.Value
}

// Entity is one row of a table: its two keys, the server-set Timestamp and
// up to 252 properties of its own.
//
// An entity the Store returns is shared with the store and with every
// snapshot that holds it: treat it as read-only. Writes take a new Entity.
type Entity struct {
	PartitionKey string
	RowKey       string
	// Timestamp is the time of the entity's last write in 100 ns ticks
	// since 0001-01-01 UTC (see edm.TicksOf). The store sets it; any value
	// a caller puts here is ignored. It is unique across all writes of a
	// Store, so it also serves as the entity's ETag.
	Timestamp int64
	// Properties are the entity's own properties, sorted by name once
	// stored. They never include PartitionKey, RowKey or Timestamp.
	Properties []Property
}

// The names of the system properties every entity has.
const (
	PartitionKeyName = "PartitionKey"
	RowKeyName       = "RowKey"
	TimestampName    = "Timestamp"
)

// Property returns the named property's value. The system properties
// PartitionKey, RowKey (Edm.String) and Timestamp (Edm.DateTime) are
// included, which makes an Entity an odata.Record for filter evaluation.
func (e *Entity) Property(name string) (edm.Value, bool) {
	switch name {
	case PartitionKeyName:
		return edm.StringValue(e.PartitionKey), true
	case RowKeyName:
		return edm.StringValue(e.RowKey), true
	case TimestampName:
		if e.Timestamp != 0 {
			return edm.DateTimeTicks(e.Timestamp), true
		}
		return edm.Value{}, false
	}
	props := e.Properties
	// Sorted by name: a binary search, written out to avoid a closure on
	// the filter-evaluation path.
	lo, hi := 0, len(props)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if props[m].Name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(props) && props[lo].Name == name {
		return props[lo].Value, true
	}
	return edm.Value{}, false
}

// ETag returns the entity's ETag as the service writes it:
// W/"datetime'<Timestamp, URL-encoded>'".
func (e *Entity) ETag() string { return ETagOf(e.Timestamp) }

// ETagOf formats the ETag of a write made at the given ticks.
func ETagOf(ticks int64) string {
	// The time is formatted on the stack, and its two colons
	// URL-encoded as it is copied out.
	var buf [64]byte
	var tbuf [32]byte
	ts := edm.AppendDateTime(tbuf[:0], ticks)
	b := append(buf[:0], `W/"datetime'`...)
	for i := 0; i < len(ts); i++ {
		if ts[i] == ':' {
			b = append(b, "%3A"...)
		} else {
			b = append(b, ts[i])
		}
	}
	return string(append(b, `'"`...))
}

// sortProperties orders props by name, the order Property relies on.
// They are often in order already (a merge's, an entity read back), and
// a check costs less than a sort. Out of order, each property from the
// first misplaced one on is inserted at its place, found by binary search:
// comparisons are inline, where a sort's go through a func, dear in
// WebAssembly, and the browser build links no sort for them. An entity of
// more than MaxProperties is left as it is, for validateEntity to refuse,
// so that the moves stay bounded whatever a request holds.
func sortProperties(props []Property) {
	i := 1
	for i < len(props) && props[i].Name >= props[i-1].Name {
		i++
	}
	if i == len(props) || len(props) > MaxProperties {
		return
	}
	for ; i < len(props); i++ {
		p := props[i]
		lo, hi := 0, i
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if props[m].Name <= p.Name {
				lo = m + 1
			} else {
				hi = m
			}
		}
		copy(props[lo+1:i+1], props[lo:i])
		props[lo] = p
	}
}

// encodeEntity returns the stored form of e with the given timestamp. The
// properties must already be sorted and validated.
func encodeEntity(e *Entity, ticks int64) string {
	text := 0
	for i := range e.Properties {
		text += len(e.Properties[i].Name) + len(e.Properties[i].Value.Str())
	}
	enc := keyspace.NewEncoder(ticks, e.PartitionKey, e.RowKey, len(e.Properties), text)
	for i := range e.Properties {
		enc.Property(e.Properties[i].Name, e.Properties[i].Value)
	}
	return enc.Finish()
}

// decodeEntity rebuilds an Entity from its stored form. Its strings share
// the encoding's memory.
func decodeEntity(enc string) (*Entity, error) {
	e := &Entity{}
	if err := decodeInto(e, enc, nil); err != nil {
		return nil, err
	}
	return e, nil
}

// decodeInto rebuilds an entity from its stored form in e, its
// properties in props when it has room for them (a page's shared array).
func decodeInto(e *Entity, enc string, props []Property) error {
	d := keyspace.NewDecoder(enc)
	ticks, pk, rk, n, ok := d.Header()
	if !ok {
		return keyspace.ErrCorrupt
	}
	*e = Entity{PartitionKey: pk, RowKey: rk, Timestamp: ticks}
	if n > 0 {
		if cap(props) < n {
			props = make([]Property, n)
		}
		e.Properties = props[:n:n]
		for i := range e.Properties {
			e.Properties[i].Name, e.Properties[i].Value = d.Property()
		}
	}
	return d.End()
}
