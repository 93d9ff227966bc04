package keyspace

import (
	"encoding/binary"
	"errors"
	"math"
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
// lets every response copy the text as it is: escaping had been a large
// share of the CPU of serving a partition. Encodings written without the bit (by
// earlier builds) read the same, only slower.

// ErrCorrupt is the failure to read a damaged encoding or record.
var ErrCorrupt = errors.New("engine: corrupt entity encoding")

// plainBit marks, in a String's kind byte, text that needs no escaping.
const plainBit = 0x80

// The names of the system properties, which a filter may read from an
// encoding's head.
const (
	partitionKeyName = "PartitionKey"
	rowKeyName       = "RowKey"
	timestampName    = "Timestamp"
)

// splitKind reads a stored kind byte: the kind, and whether it carries
// plainBit. Only a String may carry it; on anything else the encoding is
// damaged, which the kind's value (past every Kind) makes the caller see.
func splitKind(b byte) (edm.Kind, bool) {
	if b&plainBit != 0 && edm.Kind(b&^plainBit) == edm.String {
		return edm.String, true
	}
	return edm.Kind(b), false
}

// Encoder writes the encoding of one entity, allocated once.
type Encoder struct{ b []byte }

// NewEncoder starts the encoding of an entity with the given Timestamp,
// keys and number of properties. text is the total length of the
// properties' names and string values, so that the encoding is allocated
// once.
func NewEncoder(ticks int64, pk, rk string, count, text int) Encoder {
	n := 8 + 3*binary.MaxVarintLen32 + len(pk) + len(rk) + count*(2*binary.MaxVarintLen32+1+8) + text
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint64(b, uint64(ticks))
	b = appendString(b, pk)
	b = appendString(b, rk)
	b = binary.AppendUvarint(b, uint64(count))
	return Encoder{b: b}
}

// Property appends one property. Properties come sorted by name, and as
// many as NewEncoder was told.
func (e *Encoder) Property(name string, v edm.Value) {
	b := appendString(e.b, name)
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
	e.b = b
}

// Finish returns the encoding. The Encoder must not be used again.
func (e *Encoder) Finish() string {
	// b is never written again, so the string can share its memory (as
	// strings.Builder does), saving a copy of every entity written.
	return unsafe.String(unsafe.SliceData(e.b), len(e.b))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// Decoder reads an entity back from its encoding: Header, then Property
// as many times as Header counted, then End. The strings it returns share
// the encoding's memory.
type Decoder struct{ r reader }

// NewDecoder returns a Decoder of enc.
func NewDecoder(enc string) Decoder { return Decoder{r: reader{s: enc}} }

// Header reads the Timestamp, the keys and the number of properties. It
// reports false when the encoding is damaged.
func (d *Decoder) Header() (ticks int64, pk, rk string, count int, ok bool) {
	ticks, pk, rk, count = d.r.header()
	return ticks, pk, rk, count, !d.r.err
}

// Property reads the next property.
func (d *Decoder) Property() (name string, v edm.Value) {
	name = d.r.str()
	kind, plain := splitKind(d.r.byte1())
	return name, d.r.value(kind, plain)
}

// End reports ErrCorrupt when anything read was damaged or the encoding
// goes on past the last property.
func (d *Decoder) End() error {
	if d.r.err || d.r.off != len(d.r.s) {
		return ErrCorrupt
	}
	return nil
}

// Header returns the Timestamp and keys of an encoding.
func Header(enc string) (ticks int64, pk, rk string, ok bool) {
	r := reader{s: enc}
	ticks, pk, rk, _ = r.header()
	return ticks, pk, rk, !r.err
}

// Ticks returns the Timestamp of an encoding, or of a settled item's
// head.
func Ticks(enc string) int64 {
	r := reader{s: enc}
	return int64(r.u64())
}

// Restamp returns a copy of enc with the Timestamp ticks: the same
// entity, written again.
func Restamp(enc string, ticks int64) string {
	b := make([]byte, 0, len(enc))
	b = binary.LittleEndian.AppendUint64(b, uint64(ticks))
	b = append(b, enc[8:]...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// Valid reports whether enc is a whole encoding: a head, then properties
// of Edm kinds only (no residue's deferred ones), then nothing.
func Valid(enc string) bool {
	r := reader{s: enc}
	_, _, _, n := r.header()
	for i := 0; i < n && !r.err; i++ {
		r.str()
		kind, _ := splitKind(r.byte1())
		switch kind {
		case edm.String, edm.Binary, edm.Guid, edm.Int32, edm.Int64, edm.DateTime, edm.Double, edm.Boolean:
		default:
			return false
		}
		r.skip(kind)
	}
	return !r.err && r.off == len(enc)
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

// Record lets a filter read an entity straight from its encoding, so a
// scan decodes only the entities it returns. A scan reuses one Record for
// every entity it examines: a pointer in an interface costs no
// allocation, a string would cost one per entity.
type Record struct {
	Enc string
	// Props is where the property count starts, when the caller knows
	// the keys' lengths (Item.HeadLen); zero means read past the keys.
	Props int
	// Deferred is set when the filter asked for a property whose value
	// a settled item's residue leaves in the file: the filter's answer
	// then does not count, and the whole entity must be read.
	Deferred bool

	// Where the last property found begins in Enc (its name, then its
	// kind and value), for a filter that reads one property twice (a
	// range: N ge 10 and N lt 20); lastLen is its name's length, zero
	// for none. Offsets rather than the name and value: a scan resets
	// the Record for every entity it examines, and while the collector
	// marks, each pointer written to it costs a write barrier, which
	// WebAssembly's single thread pays inline.
	lastAt, lastLen int
}

// Reset points the Record at another entity. A Record whose Enc is
// changed otherwise may answer a repeated question about the previous
// entity.
func (er *Record) Reset(enc string, props int) {
	// Field by field: assigning a whole Record would clear it first,
	// with a write barrier over all of it while the collector marks.
	er.Enc, er.Props, er.Deferred, er.lastLen = enc, props, false, 0
}

// Property implements odata.Record. It runs once per examined entity, so
// it walks the encoding with single-byte lengths read inline and skips
// the values of the properties it passes.
func (er *Record) Property(name string) (edm.Value, bool) {
	switch name {
	case partitionKeyName, rowKeyName, timestampName:
		r := reader{s: er.Enc}
		ticks, pk, rk, _ := r.header()
		switch name {
		case partitionKeyName:
			return edm.StringValue(pk), !r.err
		case rowKeyName:
			return edm.StringValue(rk), !r.err
		}
		return edm.DateTimeTicks(ticks), !r.err
	}
	if l := er.lastLen; l == len(name) && l > 0 && er.Enc[er.lastAt:er.lastAt+l] == name {
		r := reader{s: er.Enc, off: er.lastAt + l}
		kind, plain := splitKind(r.byte1())
		return r.value(kind, plain), true
	}
	// The walk keeps its place in locals, not in a reader, and calls
	// nothing on the common path: in WebAssembly a call, and a variable
	// whose address a call takes, cost more than the reading itself.
	s, off := er.Enc, er.Props
	if off == 0 {
		r := reader{s: s, off: 8}
		r.skip(edm.String) // PartitionKey
		r.skip(edm.String) // RowKey
		if r.err {
			return edm.Value{}, false
		}
		off = r.off
	}
	var n int
	if off < len(s) && s[off] < 0x80 {
		n = int(s[off])
		off++
	} else {
		r := reader{s: s, off: off}
		n = int(r.uvarint())
		if r.err || n < 0 {
			return edm.Value{}, false
		}
		off = r.off
	}
	for ; n > 0; n-- {
		if off >= len(s) {
			return edm.Value{}, false
		}
		l := int(s[off])
		if l < 0x80 {
			off++
		} else {
			r := reader{s: s, off: off}
			l = int(r.uvarint())
			if r.err {
				return edm.Value{}, false
			}
			off = r.off
		}
		if l < 0 || l >= len(s)-off {
			return edm.Value{}, false
		}
		at := off
		pname := s[at : at+l]
		kind, plain := splitKind(s[at+l])
		off += l + 1
		// Names compare byte by byte here; they are short, and most
		// differ in their first byte.
		m := min(l, len(name))
		j := 0
		for j < m && pname[j] == name[j] {
			j++
		}
		c := 0
		switch {
		case j < m && pname[j] < name[j], j == m && l < len(name):
			c = -1
		case j < m, l > len(name):
			c = 1
		}
		if c == 0 {
			if kind == deferredKind {
				er.Deferred = true
				return edm.Value{}, false
			}
			er.lastAt, er.lastLen = at, l
			if kind == edm.Int32 && off+4 <= len(s) {
				// The commonest kind a filter compares, read in line.
				return edm.Int32Value(int32(uint32(s[off]) | uint32(s[off+1])<<8 | uint32(s[off+2])<<16 | uint32(s[off+3])<<24)), true
			}
			r := reader{s: s, off: off}
			v := r.value(kind, plain)
			if r.err {
				er.lastLen = 0
				return edm.Value{}, false
			}
			return v, true
		}
		if c > 0 {
			return edm.Value{}, false // sorted: it is not here
		}
		// Past the end, the next round's bounds check fails.
		switch kind {
		case edm.Int32:
			off += 4
		case edm.Int64, edm.Double, edm.DateTime:
			off += 8
		case edm.Boolean:
			off++
		default:
			if kind == edm.String && off < len(s) && s[off] < 0x80 {
				off += 1 + int(s[off])
				continue
			}
			r := reader{s: s, off: off}
			r.skip(kind)
			if r.err {
				return edm.Value{}, false
			}
			off = r.off
		}
	}
	return edm.Value{}, false
}
