package engine

// Journal makes a store durable. The store hands it one record per
// committed mutation — a table created or deleted, or the entities one
// write or one batch changed — and does not acknowledge the mutation until
// the journal says it is durable. A batch is one record, so it survives a
// crash whole or not at all. Recovery.Replay reads the records back.
type Journal interface {
	// Append is called with the store's write lock held, in commit order.
	// It must not wait for the disk; the Waiter it returns does. rec is
	// only valid during the call: the store builds the next record in
	// the same memory.
	Append(rec []byte) Waiter
}

// Waiter blocks until a journal record is durable.
type Waiter interface {
	Wait() error
}

// Values lets a durable store keep entities on disk instead of in memory.
//
// Every entity a durable store holds is already in a file: the journal
// record that wrote it, or the snapshot that compacted the journal. Once
// that record is durable the store can drop the entity's encoding from
// memory, keep its head (Timestamp and keys, which the keyspace orders by)
// and where the rest lies, and read it back when asked. The operating
// system's page cache then holds the data, which it can share, page out
// and refill; the store's heap holds only keys.
type Values interface {
	// ReadAt reads len(p) bytes from a file at off, as io.ReaderAt does.
	ReadAt(p []byte, file uint32, off int64) (int, error)
	// Pin keeps every file the store points into now readable, even
	// when the files are later replaced, until release is called. The
	// store pins for as long as it reads a copy of its keyspace.
	Pin() (release func())
}

// Place is where a journal record or a snapshot's first byte lies in a
// file Values can read. The zero Place is nowhere: what is replayed from
// it stays in memory.
type Place struct {
	File uint32
	Off  int64
}
