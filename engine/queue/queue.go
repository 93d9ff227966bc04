// Package queue is the Azure Queue service's data model over an engine
// store: queues with metadata, and messages with visibility timeouts,
// expiry, dequeue counts and pop receipts.
//
// All state lives in entities of the service's own *engine.Store, so the store's durability — its journal,
// snapshots and recovery, IndexedDB in the browser — covers queues too,
// and every time comes from the store's clock (Store.Now), which tests and
// examples move at will.
//
// # Layout
//
// Table "queues" holds one entity per queue, keyed by account and name,
// carrying its metadata and a generation: a random token chosen when the
// queue is created. A queue's messages live in table "messages", in the
// partition "account:name:generation", so a queue deleted and created
// again under the same name starts empty even while the old messages are
// still being removed. That partition holds:
//
//   - "c": the insertion counter, whose ETag makes each Put a compare-and-
//     swap: a Put is one batch that advances the counter and inserts the
//     message and its id, so messages are ordered by insertion, durably.
//   - "m" + 16 hex digits: a message, in insertion order.
//   - "i" + message id: the row key of the message with that id.
//
// A dequeue rewrites a message under its ETag, so two concurrent getters
// never both take it. Deleting a queue first records the partition in
// table "deleting", removes the queue and its counter (after which no Put
// can land there), then removes the messages page by page; New finishes
// any removal a crash interrupted.
package queue

import (
	"encoding/base64"
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// The tables the service keeps its state in.
const (
	queuesTable   = "queues"
	messagesTable = "messages"
	deletingTable = "deleting"
)

// Limits of the service.
const (
	MinNameLen = 3
	MaxNameLen = 63
	// MaxMessageBytes is the largest message text, in bytes of UTF-8.
	MaxMessageBytes = 64 << 10
	// MaxMessages is the most messages one Get or Peek returns.
	MaxMessages = 32
	// MaxVisibilityTimeout is the longest a message may stay invisible.
	MaxVisibilityTimeout = 7 * 24 * time.Hour
	// DefaultTTL is how long a message lives when Put names no TTL.
	DefaultTTL = 7 * 24 * time.Hour
	// DefaultVisibilityTimeout is how long a message got with no
	// visibility timeout stays invisible.
	DefaultVisibilityTimeout = 30 * time.Second
	// MaxListResults is the most queues one List page holds.
	MaxListResults = 5000
)

// Never is the expiration time of a message that never expires (a TTL of
// -1 on the wire): the last instant the service can write.
var Never = edm.TimeOf(edm.MaxDateTimeTicks)

// Service is the queue service of one store. It is safe for concurrent
// use: every change is a write or batch of the store, conditioned on the
// ETags it read.
type Service struct {
	store *engine.Store
}

// New returns the queue service kept in store, creating its tables if
// missing and finishing the removal of any queue whose deletion a crash
// interrupted. The store is the service's own. Its keys need not be open
// (engine.Options.OpenKeys): the model's keys keep to the Table service's
// rules, as long as the message ids a caller injects do.
func New(store *engine.Store) (*Service, error) {
	if store == nil {
		return nil, svcerr.With(svcerr.InternalError, "The queue service has no store.")
	}
	for _, t := range []string{queuesTable, messagesTable, deletingTable} {
		if _, ok := store.TableExists(t); ok {
			continue
		}
		if err := store.CreateTable(t); err != nil && !svcerr.Is(err, svcerr.TableAlreadyExists) {
			return nil, err
		}
	}
	s := &Service{store: store}
	if err := s.finishDeletes(); err != nil {
		return nil, err
	}
	return s, nil
}

// Now returns the time on the service's clock, the store's.
func (s *Service) Now() time.Time { return s.store.Now() }

// Pair is one metadata name and its value.
type Pair struct{ Name, Value string }

// Queue is a queue's name and metadata.
type Queue struct {
	Name     string
	Metadata []Pair
}

// ValidateName checks a queue name against the service's rules: 3 to 63
// lowercase letters, digits and dashes, starting and ending with a letter
// or digit, with no two dashes in a row. A name of the wrong length fails
// with OutOfRangeInput, any other bad name with InvalidResourceName.
func ValidateName(name string) error {
	if len(name) < MinNameLen || len(name) > MaxNameLen {
		return svcerr.With(svcerr.OutOfRangeInput, "The specified resource name length is not within the permissible limits.")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && i > 0 && i < len(name)-1 && name[i-1] != '-':
		default:
			return svcerr.New(svcerr.InvalidResourceName)
		}
	}
	return nil
}

// queueEntity is what the "queues" table holds of a queue.
type queueEntity struct {
	name string
	gen  string
	meta []Pair
	etag string
}

// partSep joins the parts of a messages partition key. Neither an account
// name nor a queue name holds it, and the Table service's key rules allow
// it, so the model also works on a store without OpenKeys.
const partSep = ":"

// partition is the "messages" partition of the queue.
func (q *queueEntity) partition(account string) string {
	return account + partSep + q.name + partSep + q.gen
}

// lookup reads a queue, failing with QueueNotFound.
func (s *Service) lookup(account, name string) (*queueEntity, error) {
	l, err := s.store.Get(queuesTable, account, name)
	if err != nil || l.Entity == nil {
		if err == nil || svcerr.Is(err, svcerr.ResourceNotFound) {
			return nil, svcerr.New(svcerr.QueueNotFound)
		}
		return nil, err
	}
	return decodeQueue(l.Entity), nil
}

func decodeQueue(e *engine.Entity) *queueEntity {
	q := &queueEntity{name: e.RowKey, etag: e.ETag()}
	if v, ok := e.Property("Gen"); ok {
		q.gen = v.Str()
	}
	if v, ok := e.Property("Meta"); ok {
		q.meta = decodeMeta(v.Bytes())
	}
	return q
}

// Create creates a queue. It reports whether it did: creating a queue
// that exists with the same metadata (names compared without regard to
// case) succeeds and changes nothing, and with other metadata fails with
// QueueAlreadyExists.
func (s *Service) Create(account, name string, meta []Pair) (created bool, err error) {
	if err := ValidateName(name); err != nil {
		return false, err
	}
	gen := randomGen()
	q := &queueEntity{name: name, gen: gen}
	// The counter comes first: a Put never creates it, so once a deletion
	// removes it nothing more can land in the partition. A crash between
	// the two writes leaves only an unreferenced counter behind.
	if _, err := s.store.Write(messagesTable, engine.Op{Kind: engine.Insert, Entity: counterEntity(q.partition(account), 1)}); err != nil {
		return false, err
	}
	props := []engine.Property{{Name: "Gen", Value: edm.StringValue(gen)}}
	if len(meta) > 0 {
		props = append(props, engine.Property{Name: "Meta", Value: edm.BinaryValue(encodeMeta(meta))})
	}
	_, err = s.store.Write(queuesTable, engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: account, RowKey: name, Properties: props}})
	if err == nil {
		return true, nil
	}
	s.store.Write(messagesTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: q.partition(account), RowKey: counterKey}})
	if !svcerr.Is(err, svcerr.EntityAlreadyExists) {
		return false, err
	}
	old, err := s.lookup(account, name)
	if err != nil {
		return false, err
	}
	if !sameMeta(old.meta, meta) {
		return false, svcerr.New(svcerr.QueueAlreadyExists)
	}
	return false, nil
}

// sameMeta reports whether two sets of metadata are the same, names
// compared without regard to case, values exactly.
func sameMeta(a, b []Pair) bool {
	if len(a) != len(b) {
		return false
	}
outer:
	for _, p := range a {
		for _, q := range b {
			if strings.EqualFold(p.Name, q.Name) {
				if p.Value != q.Value {
					return false
				}
				continue outer
			}
		}
		return false
	}
	return true
}

// Delete deletes a queue and all its messages.
func (s *Service) Delete(account, name string) error {
	q, err := s.lookup(account, name)
	if err != nil {
		return err
	}
	part := q.partition(account)
	if _, err := s.store.Write(deletingTable, engine.Op{Kind: engine.InsertOrReplace, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: part}}); err != nil {
		return err
	}
	if _, err := s.store.Write(queuesTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: account, RowKey: name}, IfMatch: q.etag}); err != nil {
		// Someone else deleted or changed it meanwhile.
		s.store.Write(deletingTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: part}})
		if svcerr.Is(err, svcerr.ResourceNotFound) {
			return svcerr.New(svcerr.QueueNotFound)
		}
		if svcerr.Is(err, svcerr.UpdateConditionNotSatisfied) {
			return s.Delete(account, name)
		}
		return err
	}
	return s.purge(part)
}

// DeleteQueues deletes every queue of account with all its messages, or
// with account "" every queue of every account, and returns how many it
// deleted: what a reset between tests does. A queue created meanwhile
// may stay.
func (s *Service) DeleteQueues(account string) (int, error) {
	q := engine.Query{Top: engine.MaxPageSize}
	if account != "" {
		q.Filter = "PartitionKey eq " + quote(account)
	}
	var found [][2]string
	for {
		page, err := s.store.Query(queuesTable, q)
		if err != nil {
			return 0, err
		}
		for _, e := range page.Entities {
			found = append(found, [2]string{e.PartitionKey, e.RowKey})
		}
		if page.Next == nil {
			break
		}
		q.After = page.Next
	}
	n := 0
	for _, f := range found {
		switch err := s.Delete(f[0], f[1]); {
		case err == nil:
			n++
		case svcerr.Is(err, svcerr.QueueNotFound):
			// Someone else deleted it meanwhile.
		default:
			return n, err
		}
	}
	return n, nil
}

const deletingPartition = "d"

// purge removes a deleted queue's partition: the counter first, so that no
// Put can add to it, then everything else, then the record of the
// deletion.
func (s *Service) purge(part string) error {
	if _, err := s.store.Write(messagesTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: counterKey}}); err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
		return err
	}
	if err := s.deleteAll(part, ""); err != nil {
		return err
	}
	_, err := s.store.Write(deletingTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: part}})
	if err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
		return err
	}
	return nil
}

// deleteAll deletes every entity of a messages partition whose row key is
// from or after from, a batch at a time.
func (s *Service) deleteAll(part, from string) error {
	filter := "PartitionKey eq " + quote(part)
	if from != "" {
		filter += " and RowKey ge " + quote(from)
	}
	for {
		page, err := s.store.Query(messagesTable, engine.Query{Filter: filter, Top: engine.MaxBatchOperations})
		if err != nil {
			return err
		}
		if len(page.Entities) == 0 {
			return nil
		}
		ops := make([]engine.Op, len(page.Entities))
		for i, e := range page.Entities {
			ops[i] = engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: e.RowKey}}
		}
		if _, err := s.store.Batch(messagesTable, ops); err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
			return err
		}
	}
}

// finishDeletes completes the deletions recorded in table "deleting". A
// record whose queue still exists under the same generation is one whose
// deletion never took place: only the record goes.
func (s *Service) finishDeletes() error {
	for {
		page, err := s.store.Query(deletingTable, engine.Query{Filter: "PartitionKey eq " + quote(deletingPartition), Top: engine.MaxPageSize})
		if err != nil {
			return err
		}
		if len(page.Entities) == 0 {
			return nil
		}
		for _, e := range page.Entities {
			part := e.RowKey
			account, rest, _ := strings.Cut(part, partSep)
			name, gen, _ := strings.Cut(rest, partSep)
			if q, err := s.lookup(account, name); err == nil && q.gen == gen {
				if _, err := s.store.Write(deletingTable, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: deletingPartition, RowKey: part}}); err != nil {
					return err
				}
				continue
			}
			if err := s.purge(part); err != nil {
				return err
			}
		}
	}
}

// Properties returns a queue's metadata and the approximate number of its
// messages: those not expired, visible or not.
func (s *Service) Properties(account, name string) (Queue, int, error) {
	q, err := s.lookup(account, name)
	if err != nil {
		return Queue{}, 0, err
	}
	now := edm.TicksOf(s.store.Now())
	n := 0
	err = s.scan(q.partition(account), func(e *engine.Entity) bool {
		if intProp(e, "Expires") > now {
			n++
		}
		return true
	})
	return Queue{Name: q.name, Metadata: q.meta}, n, err
}

// SetMetadata replaces a queue's metadata.
func (s *Service) SetMetadata(account, name string, meta []Pair) error {
	for {
		q, err := s.lookup(account, name)
		if err != nil {
			return err
		}
		props := []engine.Property{{Name: "Gen", Value: edm.StringValue(q.gen)}}
		if len(meta) > 0 {
			props = append(props, engine.Property{Name: "Meta", Value: edm.BinaryValue(encodeMeta(meta))})
		}
		_, err = s.store.Write(queuesTable, engine.Op{Kind: engine.Replace, IfMatch: q.etag, Entity: &engine.Entity{PartitionKey: account, RowKey: name, Properties: props}})
		switch {
		case err == nil:
			return nil
		case svcerr.Is(err, svcerr.UpdateConditionNotSatisfied):
			continue // changed meanwhile: write over the newer state
		case svcerr.Is(err, svcerr.ResourceNotFound):
			return svcerr.New(svcerr.QueueNotFound)
		default:
			return err
		}
	}
}

// ListOptions select the queues List returns.
type ListOptions struct {
	// Prefix, when set, keeps only the queues whose names start with it.
	Prefix string
	// Marker resumes a listing: the NextMarker of the previous page.
	Marker string
	// MaxResults is the page size, 1 to 5000; zero means 5000.
	MaxResults int
	// Metadata asks for each queue's metadata.
	Metadata bool
}

// ListPage is one page of a queue listing.
type ListPage struct {
	Queues []Queue
	// NextMarker is where the next page starts, or "" on the last page.
	NextMarker string
}

// List returns queues of an account in name order, a page at a time.
func (s *Service) List(account string, o ListOptions) (ListPage, error) {
	max := o.MaxResults
	if max <= 0 || max > MaxListResults {
		max = MaxListResults
	}
	start := o.Prefix
	if m := markerName(account, o.Marker); m > start {
		start = m
	}
	filter := "PartitionKey eq " + quote(account)
	if start != "" {
		filter += " and RowKey ge " + quote(start)
	}
	var out ListPage
	q := engine.Query{Filter: filter, Top: engine.MaxPageSize}
	for {
		page, err := s.store.Query(queuesTable, q)
		if err != nil {
			return ListPage{}, err
		}
		for _, e := range page.Entities {
			if !strings.HasPrefix(e.RowKey, o.Prefix) {
				return out, nil
			}
			if len(out.Queues) == max {
				out.NextMarker = "/" + account + "/" + e.RowKey
				return out, nil
			}
			item := Queue{Name: e.RowKey}
			if o.Metadata {
				item.Metadata = decodeQueue(e).meta
			}
			out.Queues = append(out.Queues, item)
		}
		if page.Next == nil {
			return out, nil
		}
		q.After = page.Next
	}
}

// markerName reads a listing marker: "/account/name", as the service
// writes them, or a bare name.
func markerName(account, marker string) string {
	if rest, ok := strings.CutPrefix(marker, "/"+account+"/"); ok {
		return rest
	}
	return marker
}

// scan calls fn with each message entity of a partition, in insertion
// order, until fn returns false.
func (s *Service) scan(part string, fn func(*engine.Entity) bool) error {
	q := engine.Query{Filter: "PartitionKey eq " + quote(part) + " and RowKey ge 'm' and RowKey lt 'n'", Top: engine.MaxPageSize}
	for {
		page, err := s.store.Query(messagesTable, q)
		if err != nil {
			return err
		}
		for _, e := range page.Entities {
			if !fn(e) {
				return nil
			}
		}
		if page.Next == nil {
			return nil
		}
		q.After = page.Next
	}
}

// quote writes s as an OData string literal.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// encodeMeta packs metadata into one Binary property: each name and value
// preceded by its length.
func encodeMeta(m []Pair) []byte {
	var b []byte
	for _, p := range m {
		b = binary.AppendUvarint(b, uint64(len(p.Name)))
		b = append(b, p.Name...)
		b = binary.AppendUvarint(b, uint64(len(p.Value)))
		b = append(b, p.Value...)
	}
	return b
}

func decodeMeta(b []byte) []Pair {
	var m []Pair
	next := func() (string, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return "", false
		}
		s := string(b[k : k+int(n)])
		b = b[k+int(n):]
		return s, true
	}
	for len(b) > 0 {
		name, ok := next()
		if !ok {
			break
		}
		value, ok := next()
		if !ok {
			break
		}
		m = append(m, Pair{name, value})
	}
	return m
}

// randomGen returns a queue generation: unique enough that a queue
// created again under a deleted one's name never shares its partition.
func randomGen() string {
	return strconv.FormatUint(rand.Uint64(), 16)
}

// RandomID returns a random UUID, the form of the service's message ids.
// Ids must be unique, not secret, so they come from the runtime's seeded
// generator rather than crypto/rand, which the browser build cannot afford.
func RandomID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return edm.FormatUUID(b)
}

// randomReceipt returns a random pop receipt, opaque base64 as the
// service's are.
func randomReceipt() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return base64.StdEncoding.EncodeToString(b[:])
}

// WellFormedReceipt reports whether r could be a pop receipt the service
// issued: one to 64 characters of base64 or a UUID (letters, digits and
// "+/=-_"). Random receipts are base64, the browser's are UUIDs and the
// counters tests inject ("r1") fit too; what fails is what no id source
// makes, such as an empty receipt or one whose "+" a careless client sent
// unescaped, so that it arrived as a space. Front ends check it to name
// the popreceipt parameter in their error, as the service does.
func WellFormedReceipt(r string) bool {
	if r == "" || len(r) > 64 {
		return false
	}
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '+' || c == '/' || c == '=' || c == '-' || c == '_':
		default:
			return false
		}
	}
	return true
}
