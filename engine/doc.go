// Package engine is tablelab's Azure Table storage engine: tables of
// entities with typed properties, the service's operations, limits and
// error codes, OData queries with a planner, continuation, ETag
// concurrency and entity group transactions. It knows nothing of HTTP,
// browsers or workers; hosts reach it through engine/api.
//
// # Keyspace
//
// Every entity of every table lives in one ordered B-tree
// (github.com/tidwall/btree), ordered by table, then PartitionKey, then
// RowKey, comparing keys as ordinal bytes — the order in which the service
// returns query results. A table is a contiguous stretch of the keyspace,
// a partition a stretch of its table, so deleting a table removes one range
// and a query walks one range. Entities are stored in a compact binary
// encoding (one allocation each) that filters read without decoding. The
// keyspace's representation — items, the encoding, journal records, what
// a settled entity keeps in memory — is internal (engine/internal/keyspace).
//
// # Plans
//
// A query's $filter is parsed once (engine/odata) and planned: the planner
// extracts the PartitionKey and RowKey bounds the filter implies and the
// query walks only that stretch, evaluating the whole filter on each entity
// it examines. Every Page carries its Plan: the class of access, as the
// table design guide names them — point (one PartitionKey and one RowKey),
// range (one partition, bounded RowKeys), partition-scan (one partition,
// anything else) and table-scan (no single partition) — and the number of
// entities examined and returned, which is what the query cost.
//
// # Errors
//
// Every failure is a *svcerr.Error carrying the service's error code (such
// as EntityAlreadyExists), its HTTP status and a message; inside a batch
// it also names the failing operation's index. A write that fails changes
// nothing: all checks run before the first change is made.
//
// # Concurrency and durability
//
// A Store is safe for concurrent use. Writes serialize on a lock; reads of
// one entity share it; scans read an O(1) copy-on-write snapshot, so they
// see one consistent state and never hold writers back. Timestamps come
// from an injected clock and are unique per write, so they double as
// ETags; hosts hand the store's clock (Store.Now) to whatever else reads
// one. An optional Journal receives each committed mutation; the write is
// acknowledged only once the journal has made it durable. The host that
// owns the journal creates the store with NewDurable, and its Recovery
// handle replays the journal, loads and writes snapshots, and tells the
// store where in the files its entities lie.
package engine
