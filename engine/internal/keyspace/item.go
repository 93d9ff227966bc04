package keyspace

import (
	"encoding/binary"
	"strings"
)

// Item is one entity in the keyspace: its encoding, which begins with its
// keys (see Encoder), the id of its table and the keys' lengths, so that a
// comparison finds the keys without decoding anything and touches no
// memory but theirs.
//
// An item holds one pointer. It held three (the keys as strings of their
// own, into the same memory), and with many entities the collector's
// marking, which follows every pointer of every item, took a large share
// of the server's CPU under a point-read load.
//
// A settled item holds only the head of its encoding — Timestamp and
// keys — and its residue, followed by where the whole encoding lies in a
// file (see SettledAt). The place rides in the string, not in fields of
// the item, so that an item stays four words: the tree's nodes are arrays
// of items, and a fifth word made every lookup measurably slower.
type Item struct {
	// Enc is the entity's encoding, or a settled item's head, residue
	// and place.
	Enc string
	// Table is the id of the entity's table.
	Table        uint32
	pkLen, rkLen uint32 // rkLen carries settledBit
}

// settledBit marks a settled item, in its rkLen: keys are far shorter
// than 2 GiB.
const settledBit = 1 << 31

// Key returns a search key: the item an entity with these keys would be,
// its encoding no more than the keys.
func Key(table uint32, pk, rk string) Item {
	b := make([]byte, 8, 8+2*binary.MaxVarintLen32+len(pk)+len(rk))
	b = appendString(b, pk)
	b = appendString(b, rk)
	return Item{Enc: string(b), Table: table, pkLen: uint32(len(pk)), rkLen: uint32(len(rk))}
}

// ItemOf returns the item of an entity whose encoding is enc and whose
// keys are pk and rk (as enc holds them).
func ItemOf(table uint32, enc, pk, rk string) Item {
	return Item{Enc: enc, Table: table, pkLen: uint32(len(pk)), rkLen: uint32(len(rk))}
}

// PK returns the item's PartitionKey: a slice of its encoding. Every
// item, search keys included, has the encoding's header, so there is no
// empty case to test on this path, which every comparison takes.
func (it Item) PK() string {
	o := 9 // eight bytes of timestamp, one of length: keys under 128 bytes
	if it.pkLen >= 1<<7 {
		o = 8 + uvarintLen(it.pkLen)
	}
	return it.Enc[o : o+int(it.pkLen)]
}

// RK returns the item's RowKey.
func (it Item) RK() string {
	o := 10 + int(it.pkLen) // timestamp, length, PartitionKey, length
	n := it.rkLen &^ settledBit
	if it.pkLen >= 1<<7 || n >= 1<<7 {
		o = 8 + uvarintLen(it.pkLen) + int(it.pkLen) + uvarintLen(n)
	}
	return it.Enc[o : o+int(n)]
}

// uvarintLen is the length of n written as a uvarint.
func uvarintLen(n uint32) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	case n < 1<<21:
		return 3
	case n < 1<<28:
		return 4
	}
	return 5
}

// Less orders the keyspace: table, then PartitionKey, then RowKey, each
// by ordinal bytes — the order the service returns query results in.
func Less(a, b Item) bool {
	if a.Table != b.Table {
		return a.Table < b.Table
	}
	// One three-way comparison per key: != followed by < would read
	// equal-length keys twice.
	if c := strings.Compare(a.PK(), b.PK()); c != 0 {
		return c < 0
	}
	return a.RK() < b.RK()
}

// HeadLen is the length of the head of an item's encoding: the
// Timestamp, then each key with its length. The properties, or a settled
// item's residue, start there.
func (it Item) HeadLen() int {
	rk := it.rkLen &^ settledBit
	return 8 + uvarintLen(it.pkLen) + int(it.pkLen) + uvarintLen(rk) + int(rk)
}

// Settled reports whether the item's whole encoding is in a file.
func (it Item) Settled() bool { return it.rkLen&settledBit != 0 }

// Size is the length of the item's whole encoding, wherever it lies.
func (it Item) Size() int64 {
	if it.Settled() {
		return int64(le32(it.Enc[len(it.Enc)-4:]))
	}
	return int64(len(it.Enc))
}

// Ticks returns the item's Timestamp, which its head holds whether it is
// settled or not. Every write has a Timestamp of its own, so it tells
// two versions of an entity apart.
func (it Item) Ticks() int64 { return Ticks(it.Enc) }

// InMemory returns it holding its whole encoding enc again.
func (it Item) InMemory(enc string) Item {
	it.Enc = enc
	it.rkLen &^= settledBit
	return it
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
