// Package blob is the model of the Azure Blob service: containers and block
// blobs, their properties and metadata, staged blocks and committed block
// lists, kept as entities of an engine.Store of the service's own (made with
// OpenKeys, so that a blob's name is a key).
//
// # Layout
//
// The store holds three tables:
//
//   - containers, one partition "c": "c/<name>" for each container, and
//     "g/<gen>" for each deleted container whose blobs are still to be
//     removed.
//   - blobs, one partition per container generation (a random id given to
//     each container when it is created, so that a container deleted and
//     created again never sees its predecessor's blobs): "b/<name>" for a
//     committed blob, "s/<name>" for the stage of its uncommitted blocks,
//     "k/<stage>/<block id>" for each staged block, "l/<list>/<page>" for
//     the pages of a block list too long to keep in the blob's entity,
//     "p/<data>" for each upload under way and "g/<id>" for what a commit
//     left to remove.
//   - data, one partition per data id: the bytes of one upload (a Put Blob
//     body or a block) in chunk entities of up to 960 KiB each.
//
// # Crash safety
//
// An upload first records itself ("p/<data>"), then writes its chunks
// under a fresh data id no blob refers to yet, and only then commits, in
// one batch of the container's partition: the blob or block entity, the
// removal of the upload's record, and a garbage record ("g/<id>") naming
// what the commit replaced. A crash before the commit leaves only chunks
// no reader can reach; a crash after it leaves a garbage record. New
// removes both kinds of leftovers when it opens a store, and every
// request collects its own garbage as soon as it has committed.
//
// Uncommitted blocks that no Put Block List ever commits stay staged, as
// in the service until it discards them after a week; DiscardStaged
// removes stages older than a given age.
package blob

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Limits of this implementation. The service accepts blocks of up to 4000
// MiB and blobs of up to 190.7 TiB; a local emulator keeps to sizes a
// disk and a test can hold.
const (
	// MaxBlockSize is the largest body of one Put Block.
	MaxBlockSize = 100 << 20
	// MaxPutBlobSize is the largest body of one Put Blob (the service's
	// limit is 5000 MiB).
	MaxPutBlobSize = 5000 << 20
	// MaxBlobSize is the largest committed block blob.
	MaxBlobSize = 5000 << 20
	// MaxBlocks is the most blocks a block list may commit.
	MaxBlocks = 50_000
	// MaxUncommitted is the most uncommitted blocks a blob may have.
	MaxUncommitted = 100_000
	// MaxBlockIDLen is the longest block id, decoded.
	MaxBlockIDLen = 64
	// MaxNameLen is the longest blob name, in characters.
	MaxNameLen = 1024
	// ChunkSize is how much of a body one data entity holds: 15 Binary
	// properties of 64 KiB, within the engine's 1 MiB entity limit.
	ChunkSize = chunkParts * engine.MaxBinaryLen
	// StagedLifetime is how long the service keeps uncommitted blocks.
	StagedLifetime = 7 * 24 * time.Hour
)

const chunkParts = 15

// The store's tables.
const (
	containersTable = "containers"
	blobsTable      = "blobs"
	dataTable       = "data"
	containersPK    = "c"
)

// Service is the Blob service over one store. It is safe for concurrent
// use: uploads stream their data concurrently, commits serialize.
type Service struct {
	store *engine.Store
	// mu serializes commits: the reads that decide a commit and the
	// batch that makes it.
	mu sync.Mutex
}

// New returns the Blob service kept in store, creating its tables if they
// are missing, and removes what a crash may have left behind: uploads that
// never committed and the garbage of commits not yet collected. The store
// must have been made with OpenKeys.
func New(store *engine.Store) (*Service, error) {
	for _, t := range []string{containersTable, blobsTable, dataTable} {
		if _, ok := store.TableExists(t); ok {
			continue
		}
		if err := store.CreateTable(t); err != nil {
			return nil, err
		}
	}
	s := &Service{store: store}
	if err := s.recover(); err != nil {
		return nil, err
	}
	return s, nil
}

// Now returns the time on the store's clock.
func (s *Service) Now() time.Time { return s.store.Now() }

// Pair is one metadata name and value.
type Pair struct{ Name, Value string }

// newID returns a fresh id of 16 hex digits. Ids name data, stages, lists
// and container generations; 64 random bits make a collision within one
// store vanishingly unlikely, and each use is checked where it matters.
func newID() string {
	const digits = "0123456789abcdef"
	var b [16]byte
	n := rand.Uint64()
	for i := range b {
		b[i] = digits[n&15]
		n >>= 4
	}
	return string(b[:])
}

const idLen = 16

// ETagOf returns the ETag of an entity's write, in the service's form.
func etagOf(ticks int64) string {
	return `"0x` + strings.ToUpper(strconv.FormatUint(uint64(ticks), 16)) + `"`
}

func prop(e *engine.Entity, name string) (edm.Value, bool) {
	for i := range e.Properties {
		if e.Properties[i].Name == name {
			return e.Properties[i].Value, true
		}
	}
	return edm.Value{}, false
}

// propStr and propInt are not inlined: with a copy of prop's loop at each
// of their call sites the browser build weighs more than the call costs
// (docs/benchmarks.md).
//
//go:noinline
func propStr(e *engine.Entity, name string) string {
	v, _ := prop(e, name)
	return v.Str()
}

//go:noinline
func propInt(e *engine.Entity, name string) int64 {
	v, _ := prop(e, name)
	return v.Int()
}

// get reads one entity, nil when it does not exist.
func (s *Service) get(table, pk, rk string) (*engine.Entity, error) {
	l, err := s.store.Get(table, pk, rk)
	if err != nil {
		if svcerr.Is(err, svcerr.ResourceNotFound) {
			return nil, nil
		}
		return nil, err
	}
	return l.Entity, nil
}

// literal quotes s as an OData string literal.
func literal(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// maxRune follows a prefix in an exclusive upper bound: every key that
// starts with the prefix sorts below prefix+maxRune, except keys with
// U+10FFFF itself there, which no name uses.
const maxRune = "\U0010FFFF"

// scan calls fn for the entities of one partition whose RowKeys start with
// prefix, in key order from after (inclusive; "" for the start), a page at
// a time, until fn returns false.
func (s *Service) scan(table, pk, prefix, from string, fn func(*engine.Entity) (bool, error)) error {
	q := engine.Query{
		Filter: "PartitionKey eq " + literal(pk) + " and RowKey ge " + literal(prefix) +
			" and RowKey lt " + literal(prefix+maxRune),
	}
	if from != "" {
		q.After = &engine.Continuation{PartitionKey: pk, RowKey: from}
	}
	for {
		page, err := s.store.Query(table, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			more, err := fn(e)
			if err != nil || !more {
				return err
			}
		}
		if page.Next == nil {
			return nil
		}
		q.After = page.Next
	}
}

// deleteKeys deletes entities of one partition by RowKey, in batches.
func (s *Service) deleteKeys(table, pk string, rks []string) error {
	for len(rks) > 0 {
		n := min(len(rks), engine.MaxBatchOperations)
		ops := make([]engine.Op, n)
		for i, rk := range rks[:n] {
			ops[i] = engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: pk, RowKey: rk}}
		}
		if _, err := s.store.Batch(table, ops); err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
			return err
		}
		rks = rks[n:]
	}
	return nil
}

// Conditions are a request's If-Match, If-None-Match, If-Modified-Since
// and If-Unmodified-Since headers. The zero value holds no condition.
type Conditions struct {
	IfMatch, IfNoneMatch               string
	IfModifiedSince, IfUnmodifiedSince time.Time
}

// ErrNotModified is what a read whose If-None-Match or If-Modified-Since
// condition fails returns: the service answers 304 Not Modified.
var ErrNotModified = svcerr.With(svcerr.ConditionNotMet, "Not modified.")

func etagMatches(list, etag string) bool {
	for _, t := range strings.Split(list, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || t == etag || strings.Trim(t, `"`) == strings.Trim(etag, `"`) {
			return true
		}
	}
	return false
}

// check evaluates the conditions on a resource with the given ETag and
// modification time; exists is false when the resource does not exist.
// A read fails with ErrNotModified where the service answers 304, a write
// with ConditionNotMet.
func (c *Conditions) check(exists bool, etag string, modified time.Time, read bool) error {
	if c == nil {
		return nil
	}
	// HTTP dates carry whole seconds.
	modified = modified.Truncate(time.Second)
	if c.IfMatch != "" && (!exists || !etagMatches(c.IfMatch, etag)) {
		return svcerr.New(svcerr.ConditionNotMet)
	}
	if exists && !c.IfUnmodifiedSince.IsZero() && modified.After(c.IfUnmodifiedSince) {
		return svcerr.New(svcerr.ConditionNotMet)
	}
	notModified := exists && c.IfNoneMatch != "" && etagMatches(c.IfNoneMatch, etag) ||
		exists && !c.IfModifiedSince.IsZero() && !modified.After(c.IfModifiedSince)
	if notModified {
		if read {
			return ErrNotModified
		}
		if c.IfNoneMatch == "*" {
			return svcerr.New(svcerr.BlobAlreadyExists)
		}
		return svcerr.New(svcerr.ConditionNotMet)
	}
	return nil
}

// encodeMeta packs metadata into one Binary value: each name and value
// preceded by its length.
func encodeMeta(m []Pair) []byte {
	var b []byte
	for _, p := range m {
		b = appendString(b, p.Name)
		b = appendString(b, p.Value)
	}
	return b
}

func decodeMeta(b []byte) []Pair {
	var m []Pair
	for len(b) > 0 {
		var name, value string
		var ok bool
		if name, b, ok = readString(b); !ok {
			break
		}
		if value, b, ok = readString(b); !ok {
			break
		}
		m = append(m, Pair{name, value})
	}
	return m
}
