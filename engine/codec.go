package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"unsafe"

	"github.com/tablelab/tablelab/engine/edm"
)

// An entity is stored in the keyspace in one compact binary encoding, the
// same bytes the journal and snapshots carry. One allocation per entity
// keeps the heap close to the entity's wire size, and reading an entity
// back slices its strings out of the encoding without copying them.
//
// Layout, all integers little-endian:
//
//	timestamp    8 bytes, ticks
//	pk, rk       uvarint length + bytes each
//	count        uvarint number of properties
//	properties   sorted by name; each: uvarint name length, name, kind byte,
//	             then by kind: String/Binary/Guid uvarint length + bytes;
//	             Int32 4 bytes; Int64/Double/DateTime 8 bytes; Boolean 1 byte
//
// The kind byte of a String carries plainBit when the text needs no JSON
// escaping (edm.IsPlain). Checked once when the entity is written, it
// lets every response copy the text as it is: escaping was a third of
// the CPU of serving a partition. Encodings written without the bit (by
// earlier builds) read the same, only slower.

var errCorrupt = errors.New("engine: corrupt entity encoding")

// plainBit marks, in a String's kind byte, text that needs no escaping.
const plainBit = 0x80

// splitKind reads a stored kind byte: the kind, and whether it carries
// plainBit. Only a String may carry it; on anything else the encoding is
// damaged, which the kind's value (past every Kind) makes the caller see.
func splitKind(b byte) (edm.Kind, bool) {
	if b&plainBit != 0 && edm.Kind(b&^plainBit) == edm.String {
		return edm.String, true
	}
	return edm.Kind(b), false
}

// encodeEntity returns the stored form of e with the given timestamp. The
// properties must already be sorted and validated.
func encodeEntity(e *Entity, ticks int64) string {
	n := 8 + 2*binary.MaxVarintLen32 + len(e.PartitionKey) + len(e.RowKey) + binary.MaxVarintLen32
	for i := range e.Properties {
		p := &e.Properties[i]
		n += binary.MaxVarintLen32 + len(p.Name) + 1 + binary.MaxVarintLen32 + 8 + len(p.Value.Str())
	}
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint64(b, uint64(ticks))
	b = appendString(b, e.PartitionKey)
	b = appendString(b, e.RowKey)
	b = binary.AppendUvarint(b, uint64(len(e.Properties)))
	for i := range e.Properties {
		b = appendProperty(b, &e.Properties[i])
	}
	// b is never written again, so the string can share its memory (as
	// strings.Builder does), saving a copy of every entity written.
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendProperty(b []byte, p *Property) []byte {
	b = appendString(b, p.Name)
	v := p.Value
	if v.Kind() == edm.String && edm.IsPlain(v.Str()) {
		b = append(b, byte(edm.String)|plainBit)
	} else {
		b = append(b, byte(v.Kind()))
	}
	switch v.Kind() {
	case edm.String, edm.Binary, edm.Guid:
		b = appendString(b, v.Str())
	case edm.Int32:
		b = binary.LittleEndian.AppendUint32(b, uint32(v.Int()))
	case edm.Int64:
		b = binary.LittleEndian.AppendUint64(b, uint64(v.Int()))
	case edm.DateTime:
		b = binary.LittleEndian.AppendUint64(b, uint64(v.Ticks()))
	case edm.Double:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case edm.Boolean:
		if v.Bool() {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	return b
}

// reader walks an encoding. Every method checks bounds: snapshots and log
// records come from disk, and a damaged one must fail, not panic.
type reader struct {
	s   string
	off int
	err bool
}

func (r *reader) uvarint() uint64 {
	var x uint64
	var shift uint
	for i := 0; i < binary.MaxVarintLen64; i++ {
		if r.off >= len(r.s) {
			r.err = true
			return 0
		}
		c := r.s[r.off]
		r.off++
		if c < 0x80 {
			return x | uint64(c)<<shift
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	r.err = true
	return 0
}

func (r *reader) fixed(n int) string {
	if r.off+n > len(r.s) || n < 0 {
		r.err = true
		r.off = len(r.s)
		return ""
	}
	v := r.s[r.off : r.off+n]
	r.off += n
	return v
}

func (r *reader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.err = true
		return ""
	}
	return r.fixed(int(n))
}

func (r *reader) u64() uint64 {
	v := r.fixed(8)
	if len(v) < 8 {
		return 0
	}
	return uint64(v[0]) | uint64(v[1])<<8 | uint64(v[2])<<16 | uint64(v[3])<<24 |
		uint64(v[4])<<32 | uint64(v[5])<<40 | uint64(v[6])<<48 | uint64(v[7])<<56
}

func (r *reader) byte1() byte {
	v := r.fixed(1)
	if v == "" {
		return 0
	}
	return v[0]
}

func (r *reader) value(kind edm.Kind, plain bool) edm.Value {
	switch kind {
	case edm.String:
		if plain {
			return edm.PlainStringValue(r.str())
		}
		return edm.StringValue(r.str())
	case edm.Binary:
		return edm.BinaryString(r.str())
	case edm.Guid:
		return edm.GuidString(r.str())
	case edm.Int32:
		v := r.fixed(4)
		if len(v) < 4 {
			return edm.Value{}
		}
		return edm.Int32Value(int32(uint32(v[0]) | uint32(v[1])<<8 | uint32(v[2])<<16 | uint32(v[3])<<24))
	case edm.Int64:
		return edm.Int64Value(int64(r.u64()))
	case edm.DateTime:
		return edm.DateTimeTicks(int64(r.u64()))
	case edm.Double:
		return edm.DoubleValue(math.Float64frombits(r.u64()))
	case edm.Boolean:
		return edm.BoolValue(r.byte1() != 0)
	}
	r.err = true
	return edm.Value{}
}

// header reads the timestamp and keys of an encoding.
func (r *reader) header() (ticks int64, pk, rk string, count int) {
	ticks = int64(r.u64())
	pk = r.str()
	rk = r.str()
	n := r.uvarint()
	if n > uint64(len(r.s)) {
		r.err = true
		return
	}
	return ticks, pk, rk, int(n)
}

// decodeEntity rebuilds an Entity from its stored form. Its strings share
// the encoding's memory.
func decodeEntity(enc string) (*Entity, error) {
	r := reader{s: enc}
	ticks, pk, rk, n := r.header()
	if r.err {
		return nil, errCorrupt
	}
	e := &Entity{PartitionKey: pk, RowKey: rk, Timestamp: ticks}
	if n > 0 {
		e.Properties = make([]Property, n)
		for i := range e.Properties {
			name := r.str()
			kind, plain := splitKind(r.byte1())
			e.Properties[i] = Property{Name: name, Value: r.value(kind, plain)}
		}
	}
	if r.err || r.off != len(enc) {
		return nil, errCorrupt
	}
	return e, nil
}

// encodedRecord lets a filter read an entity straight from its encoding,
// so a scan decodes only the entities it returns. A scan reuses one
// encodedRecord for every entity it examines: a pointer in an interface
// costs no allocation, a string would cost one per entity.
type encodedRecord struct {
	enc string
	// props is where the property count starts, when the caller knows
	// the keys' lengths; zero means read past the keys.
	props int
	// deferred is set when the filter asked for a property whose value
	// a settled item's residue leaves in the file: the filter's answer
	// then does not count, and the whole entity must be read.
	deferred bool
}

// Property implements odata.Record. It runs once per examined entity, so
// it walks the encoding with single-byte lengths read inline and skips
// the values of the properties it passes.
func (er *encodedRecord) Property(name string) (edm.Value, bool) {
	switch name {
	case PartitionKeyName, RowKeyName, TimestampName:
		r := reader{s: er.enc}
		ticks, pk, rk, _ := r.header()
		switch name {
		case PartitionKeyName:
			return edm.StringValue(pk), !r.err
		case RowKeyName:
			return edm.StringValue(rk), !r.err
		}
		return edm.DateTimeTicks(ticks), !r.err
	}
	r := reader{s: er.enc, off: er.props}
	if r.off == 0 {
		r.off = 8
		r.skip(edm.String) // PartitionKey
		r.skip(edm.String) // RowKey
	}
	n := int(r.uvarint())
	for i := 0; i < n && !r.err; i++ {
		var l int
		if r.off < len(r.s) && r.s[r.off] < 0x80 {
			l = int(r.s[r.off])
			r.off++
		} else {
			l = int(r.uvarint())
		}
		if r.off+l+1 > len(r.s) || l < 0 {
			return edm.Value{}, false
		}
		pname := r.s[r.off : r.off+l]
		kind, plain := splitKind(r.s[r.off+l])
		r.off += l + 1
		// Names nearly always differ in their first byte, which orders
		// them without a call to compare the strings.
		c := 0
		switch {
		case l == 0 || name == "":
			c = strings.Compare(pname, name)
		case pname[0] < name[0]:
			c = -1
		case pname[0] > name[0]:
			c = 1
		default:
			c = strings.Compare(pname, name)
		}
		if c == 0 {
			if kind == deferredKind {
				er.deferred = true
				return edm.Value{}, false
			}
			v := r.value(kind, plain)
			return v, !r.err
		}
		if c > 0 {
			return edm.Value{}, false // sorted: it is not here
		}
		r.skip(kind)
	}
	return edm.Value{}, false
}

func (r *reader) skip(kind edm.Kind) {
	switch kind {
	case edm.String, edm.Binary, edm.Guid:
		n := r.uvarint()
		if n > uint64(len(r.s)-r.off) {
			r.err = true
			return
		}
		r.off += int(n)
	case edm.Int32:
		r.fixed(4)
	case edm.Boolean:
		r.fixed(1)
	case deferredKind: // a residue's: the value is elsewhere
	default:
		r.fixed(8)
	}
}
