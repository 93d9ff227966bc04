package keyspace

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// The kinds of Mutation: the journal's records.
const (
	CreateTable byte = 1
	DeleteTable byte = 2
	Write       byte = 3
	Replace     byte = 4
)

// The kinds of a Change in a Write record.
const (
	changePut    byte = 1
	changeDelete byte = 2
)

// Mutation is one committed change to a store, as the journal carries it:
// a table created or deleted, the entities one write or one batch
// changed, or every table replaced. A batch is one record, so it survives
// a crash whole or not at all; so does a Replace.
type Mutation struct {
	Kind  byte
	Table uint32
	// Name is a created table's name, as created.
	Name string
	// Changes are the entities a Write changed, in the order written.
	Changes []Change
	// Tables are a Replace's: the store's tables once it is applied, all
	// those before it gone.
	Tables []TableImage
}

// TableImage is one table of a Replace record: its id, its name as
// created, and its entities, puts in key order.
type TableImage struct {
	ID      uint32
	Name    string
	Changes []Change
}

// Change is one entity a write put or removed.
type Change struct {
	// Put is set when the entity was written; otherwise it was deleted.
	Put    bool
	PK, RK string
	// Enc is the new encoding of a put.
	Enc string
	// Off is where Enc lies in the record a decoded Change came from.
	Off int
}

// AppendCreateTable appends the record of a table created.
func AppendCreateTable(b []byte, id uint32, name string) []byte {
	b = append(b, CreateTable)
	b = binary.AppendUvarint(b, uint64(id))
	return appendString(b, name)
}

// AppendDeleteTable appends the record of a table deleted.
func AppendDeleteTable(b []byte, id uint32) []byte {
	b = append(b, DeleteTable)
	return binary.AppendUvarint(b, uint64(id))
}

// AppendWrite appends the record of a write or batch to table id. A put
// carries its encoding, which holds its keys; a delete its keys.
func AppendWrite(b []byte, id uint32, changes []Change) []byte {
	n := 16
	for _, c := range changes {
		n += 12 + len(c.Enc) + len(c.PK) + len(c.RK)
	}
	b = slices.Grow(b, n)
	b = append(b, Write)
	b = binary.AppendUvarint(b, uint64(id))
	b = binary.AppendUvarint(b, uint64(len(changes)))
	for _, c := range changes {
		if c.Put {
			b = append(b, changePut)
			b = appendString(b, c.Enc)
		} else {
			b = append(b, changeDelete)
			b = appendString(b, c.PK)
			b = appendString(b, c.RK)
		}
	}
	return b
}

// AppendReplace appends the record of every table replaced by tables:
// the tables a store held before it are gone, and these hold only the
// entities listed.
func AppendReplace(b []byte, tables []TableImage) []byte {
	n := 16
	for _, t := range tables {
		n += 16 + len(t.Name)
		for _, c := range t.Changes {
			n += binary.MaxVarintLen32 + len(c.Enc)
		}
	}
	b = slices.Grow(b, n)
	b = append(b, Replace)
	b = binary.AppendUvarint(b, 0) // the table slot of the other kinds
	b = binary.AppendUvarint(b, uint64(len(tables)))
	for _, t := range tables {
		b = binary.AppendUvarint(b, uint64(t.ID))
		b = appendString(b, t.Name)
		b = binary.AppendUvarint(b, uint64(len(t.Changes)))
		for _, c := range t.Changes {
			b = appendString(b, c.Enc)
		}
	}
	return b
}

// DecodeMutation reads one journal record: the one decoder that replay
// and settling share. The strings of the Mutation share rec's memory. A
// record that is damaged in any way, a put's encoding included, is
// ErrCorrupt.
func DecodeMutation(rec []byte) (Mutation, error) {
	r := reader{s: unsafe.String(unsafe.SliceData(rec), len(rec))}
	m := Mutation{Kind: r.byte1()}
	id := r.uvarint()
	if r.err || id > 1<<32-1 {
		return Mutation{}, ErrCorrupt
	}
	m.Table = uint32(id)
	switch m.Kind {
	case CreateTable:
		m.Name = r.str()
		if id == 0 {
			return Mutation{}, ErrCorrupt
		}
	case DeleteTable:
	case Write:
		n := r.uvarint()
		if r.err || n > uint64(len(rec)) {
			return Mutation{}, ErrCorrupt
		}
		m.Changes = make([]Change, 0, n)
		for i := uint64(0); i < n && !r.err; i++ {
			var c Change
			switch r.byte1() {
			case changePut:
				var ok bool
				if c, ok = r.put(); !ok {
					return Mutation{}, ErrCorrupt
				}
			case changeDelete:
				c.PK, c.RK = r.str(), r.str()
			default:
				return Mutation{}, ErrCorrupt
			}
			m.Changes = append(m.Changes, c)
		}
	case Replace:
		n := r.uvarint()
		if r.err || id != 0 || n > uint64(len(rec)) {
			return Mutation{}, ErrCorrupt
		}
		m.Tables = make([]TableImage, 0, n)
		for i := uint64(0); i < n && !r.err; i++ {
			tid := r.uvarint()
			t := TableImage{ID: uint32(tid), Name: r.str()}
			count := r.uvarint()
			if r.err || tid == 0 || tid > 1<<32-1 || count > uint64(len(rec)) {
				return Mutation{}, ErrCorrupt
			}
			t.Changes = make([]Change, 0, count)
			for j := uint64(0); j < count; j++ {
				c, ok := r.put()
				if !ok {
					return Mutation{}, ErrCorrupt
				}
				t.Changes = append(t.Changes, c)
			}
			m.Tables = append(m.Tables, t)
		}
	default:
		return Mutation{}, ErrCorrupt
	}
	if r.err || r.off != len(r.s) {
		return Mutation{}, ErrCorrupt
	}
	return m, nil
}

// put reads a put's encoding, checking it whole.
func (r *reader) put() (Change, bool) {
	c := Change{Put: true, Enc: r.str()}
	c.Off = r.off - len(c.Enc)
	var ok bool
	_, c.PK, c.RK, ok = Header(c.Enc)
	return c, !r.err && ok && Valid(c.Enc)
}
