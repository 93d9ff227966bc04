package queue

import (
	"time"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Row keys of a messages partition (see the package comment).
const (
	counterKey    = "c"
	messagePrefix = "m"
	idPrefix      = "i"
)

// Message is a queue message as an operation returns it.
type Message struct {
	ID   string
	Text string
	// Inserted is when the message was put; Expires when it stops
	// existing (Never for a message without expiry).
	Inserted, Expires time.Time
	// NextVisible is when the message can next be got.
	NextVisible time.Time
	// PopReceipt is what deletes or updates the message, valid until the
	// message is got or updated again.
	PopReceipt string
	// DequeueCount is how many times the message has been got.
	DequeueCount int64
}

// PutOptions are the options of Put.
type PutOptions struct {
	// VisibilityTimeout is how long the new message stays invisible;
	// zero makes it visible at once.
	VisibilityTimeout time.Duration
	// TTL is how long the message lives: zero means DefaultTTL, a
	// negative TTL never expires.
	TTL time.Duration
	// NewID returns the message id and pop receipt; nil means random.
	// The receipts it returns must be 1 to 64 characters of base64 or a
	// UUID, or Update and DeleteMessage refuse them as malformed.
	NewID func() string
}

// GetOptions are the options of Get.
type GetOptions struct {
	// Count is the most messages to get, 1 to 32; zero means 1.
	Count int
	// VisibilityTimeout is how long the messages got stay invisible; zero
	// means DefaultVisibilityTimeout.
	VisibilityTimeout time.Duration
	// NewID returns pop receipts, as PutOptions.NewID does; nil means
	// random.
	NewID func() string
}

// UpdateOptions are the options of Update.
type UpdateOptions struct {
	// Text, when not nil, replaces the message's text.
	Text *string
	// VisibilityTimeout is how long from now the message stays invisible.
	VisibilityTimeout time.Duration
	// NewID returns the new pop receipt, as PutOptions.NewID does; nil
	// means random.
	NewID func() string
}

// CheckText checks a message text against the service's limit of 64 KiB
// of UTF-8, failing with RequestBodyTooLarge as the service does.
func CheckText(text string) error {
	if len(text) > MaxMessageBytes {
		return svcerr.With(svcerr.RequestBodyTooLarge, "The request body is too large and exceeds the maximum permissible limit.")
	}
	if !utf8.ValidString(text) {
		return svcerr.New(svcerr.InvalidXMLDocument)
	}
	return nil
}

func seqKey(n int64) string {
	const digits = "0123456789abcdef"
	var b [17]byte
	b[0] = messagePrefix[0]
	for i := 16; i >= 1; i-- {
		b[i] = digits[n&15]
		n >>= 4
	}
	return string(b[:])
}

func counterEntity(part string, next int64) *engine.Entity {
	return &engine.Entity{PartitionKey: part, RowKey: counterKey, Properties: []engine.Property{{Name: "Next", Value: edm.Int64Value(next)}}}
}

// intProp and strProp read one property of a stored queue or message.
// They are not inlined: with a copy at each of their call sites the
// browser build weighs more than the call costs (docs/benchmarks.md).
//
//go:noinline
func intProp(e *engine.Entity, name string) int64 {
	v, _ := e.Property(name)
	return v.Int()
}

//go:noinline
func strProp(e *engine.Entity, name string) string {
	v, _ := e.Property(name)
	return v.Str()
}

// messageEntity is a message as stored.
func messageEntity(part, key string, m *Message) *engine.Entity {
	return &engine.Entity{PartitionKey: part, RowKey: key, Properties: []engine.Property{
		{Name: "ID", Value: edm.StringValue(m.ID)},
		{Name: "Text", Value: edm.BinaryString(m.Text)},
		{Name: "Inserted", Value: edm.Int64Value(edm.TicksOf(m.Inserted))},
		{Name: "Expires", Value: edm.Int64Value(edm.TicksOf(m.Expires))},
		{Name: "Visible", Value: edm.Int64Value(edm.TicksOf(m.NextVisible))},
		{Name: "Receipt", Value: edm.StringValue(m.PopReceipt)},
		{Name: "Dequeues", Value: edm.Int64Value(m.DequeueCount)},
	}}
}

func decodeMessage(e *engine.Entity) *Message {
	text, _ := e.Property("Text")
	return &Message{
		ID:           strProp(e, "ID"),
		Text:         string(text.Bytes()),
		Inserted:     edm.TimeOf(intProp(e, "Inserted")),
		Expires:      edm.TimeOf(intProp(e, "Expires")),
		NextVisible:  edm.TimeOf(intProp(e, "Visible")),
		PopReceipt:   strProp(e, "Receipt"),
		DequeueCount: intProp(e, "Dequeues"),
	}
}

func idSource(f func() string, fallback func() string) func() string {
	if f != nil {
		return f
	}
	return fallback
}

// Put adds a message to a queue.
func (s *Service) Put(account, queue, text string, o PutOptions) (Message, error) {
	if err := CheckText(text); err != nil {
		return Message{}, err
	}
	q, err := s.lookup(account, queue)
	if err != nil {
		return Message{}, err
	}
	part := q.partition(account)
	now := s.store.Now()
	m := Message{
		ID:          idSource(o.NewID, RandomID)(),
		Text:        text,
		Inserted:    now,
		NextVisible: now.Add(o.VisibilityTimeout),
		Expires:     expiry(now, o.TTL),
	}
	m.PopReceipt = idSource(o.NewID, randomReceipt)()
	for {
		l, err := s.store.Get(messagesTable, part, counterKey)
		if err != nil || l.Entity == nil {
			// The counter goes first when a queue is deleted.
			return Message{}, svcerr.New(svcerr.QueueNotFound)
		}
		next := intProp(l.Entity, "Next")
		key := seqKey(next)
		_, err = s.store.Batch(messagesTable, []engine.Op{
			{Kind: engine.Replace, Entity: counterEntity(part, next+1), IfMatch: l.Entity.ETag()},
			{Kind: engine.Insert, Entity: messageEntity(part, key, &m)},
			{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: part, RowKey: idPrefix + m.ID, Properties: []engine.Property{{Name: "Key", Value: edm.StringValue(key)}}}},
		})
		if err == nil {
			return m, nil
		}
		e := svcerr.From(err)
		switch {
		case e.Index == 0 && (e.Code == svcerr.UpdateConditionNotSatisfied || e.Code == svcerr.ResourceNotFound):
			continue // another Put took this number, or a deletion began
		case e.Index == 2 && e.Code == svcerr.EntityAlreadyExists:
			return Message{}, svcerr.With(svcerr.InternalError, "The message id "+m.ID+" is already in use.")
		}
		e.Index = -1
		return Message{}, e
	}
}

// expiry returns when a message put at now with the given TTL expires.
func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl == 0 {
		ttl = DefaultTTL
	}
	if ttl < 0 || Never.Sub(now) <= ttl {
		return Never
	}
	return now.Add(ttl)
}

// visible reports whether a stored message can be got at now (ticks).
func visible(e *engine.Entity, now int64) bool {
	return intProp(e, "Visible") <= now && intProp(e, "Expires") > now
}

// Peek returns up to count visible messages without changing them. Their
// PopReceipt and NextVisible are left empty, as the service leaves them out.
func (s *Service) Peek(account, queue string, count int) ([]Message, error) {
	if count < 1 || count > MaxMessages {
		return nil, svcerr.New(svcerr.OutOfRangeQueryParameterValue)
	}
	q, err := s.lookup(account, queue)
	if err != nil {
		return nil, err
	}
	now := edm.TicksOf(s.store.Now())
	var out []Message
	err = s.scan(q.partition(account), func(e *engine.Entity) bool {
		if visible(e, now) {
			m := decodeMessage(e)
			m.PopReceipt, m.NextVisible = "", time.Time{}
			out = append(out, *m)
		}
		return len(out) < count
	})
	return out, err
}

// Get dequeues up to count visible messages: each gets a new pop receipt,
// stays invisible for the visibility timeout, and counts one more dequeue.
// Expired messages met on the way are removed.
func (s *Service) Get(account, queue string, o GetOptions) ([]Message, error) {
	count := o.Count
	if count == 0 {
		count = 1
	}
	if count < 1 || count > MaxMessages {
		return nil, svcerr.New(svcerr.OutOfRangeQueryParameterValue)
	}
	vt := o.VisibilityTimeout
	if vt == 0 {
		vt = DefaultVisibilityTimeout
	}
	q, err := s.lookup(account, queue)
	if err != nil {
		return nil, err
	}
	part := q.partition(account)
	nowTime := s.store.Now()
	now := edm.TicksOf(nowTime)
	newID := idSource(o.NewID, randomReceipt)
	var (
		taken   []*engine.Entity
		expired []*engine.Entity
	)
	err = s.scan(part, func(e *engine.Entity) bool {
		switch {
		case intProp(e, "Expires") <= now:
			if len(expired) < engine.MaxBatchOperations/2 {
				expired = append(expired, e)
			}
		case intProp(e, "Visible") <= now:
			taken = append(taken, e)
		}
		return len(taken) < count
	})
	if err != nil {
		return nil, err
	}
	s.removeExpired(part, expired)
	ops := make([]engine.Op, 0, len(taken))
	msgs := make([]*Message, 0, len(taken))
	for _, e := range taken {
		m := decodeMessage(e)
		m.PopReceipt = newID()
		m.NextVisible = nowTime.Add(vt)
		m.DequeueCount++
		ops = append(ops, engine.Op{Kind: engine.Replace, Entity: messageEntity(part, e.RowKey, m), IfMatch: e.ETag()})
		msgs = append(msgs, m)
	}
	// One batch takes them all. A message another getter (or a deleter)
	// changed meanwhile fails its condition; it is dropped and the rest
	// tried again.
	for len(ops) > 0 {
		_, err := s.store.Batch(messagesTable, ops)
		if err == nil {
			break
		}
		e := svcerr.From(err)
		if e.Index < 0 || e.Index >= len(ops) || (e.Code != svcerr.UpdateConditionNotSatisfied && e.Code != svcerr.ResourceNotFound) {
			e.Index = -1
			return nil, e
		}
		ops = append(ops[:e.Index], ops[e.Index+1:]...)
		msgs = append(msgs[:e.Index], msgs[e.Index+1:]...)
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = *m
	}
	return out, nil
}

// removeExpired deletes expired messages and their ids, best effort: one
// that changed meanwhile is left for another time.
func (s *Service) removeExpired(part string, expired []*engine.Entity) {
	if len(expired) == 0 {
		return
	}
	ops := make([]engine.Op, 0, 2*len(expired))
	for _, e := range expired {
		ops = append(ops,
			engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: e.RowKey}, IfMatch: e.ETag()},
			engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: idPrefix + strProp(e, "ID")}})
	}
	s.store.Batch(messagesTable, ops)
}

// find returns the stored message with the given id, failing with
// MessageNotFound when there is none or it has expired.
func (s *Service) find(part, id string, now int64) (*engine.Entity, error) {
	l, err := s.store.Get(messagesTable, part, idPrefix+id)
	if err != nil || l.Entity == nil {
		return nil, notFound(err)
	}
	l, err = s.store.Get(messagesTable, part, strProp(l.Entity, "Key"))
	if err != nil || l.Entity == nil {
		return nil, notFound(err)
	}
	if intProp(l.Entity, "Expires") <= now {
		return nil, svcerr.New(svcerr.MessageNotFound)
	}
	return l.Entity, nil
}

func notFound(err error) error {
	if err == nil || svcerr.Is(err, svcerr.ResourceNotFound) {
		return svcerr.New(svcerr.MessageNotFound)
	}
	return err
}

// Update changes a message's visibility, and its text when o.Text is set,
// given the pop receipt of its last Get, Put or Update. It returns the
// message with its new pop receipt and next-visible time.
//
// A pop receipt that is not the message's latest fails with
// MessageNotFound, as a message that does not exist does: the service
// finds a message by its id and receipt together, so a receipt gone stale
// (the message got again, or updated, since) finds nothing. A string that
// cannot be a receipt at all (see WellFormedReceipt) fails first, with
// InvalidQueryParameterValue, as the service refuses a malformed
// popreceipt parameter. Neither case is PopReceiptMismatch, which the
// service is not seen to answer for either.
func (s *Service) Update(account, queue, id, popReceipt string, o UpdateOptions) (Message, error) {
	if !WellFormedReceipt(popReceipt) {
		return Message{}, svcerr.New(svcerr.InvalidQueryParameterValue)
	}
	if o.Text != nil {
		if err := CheckText(*o.Text); err != nil {
			return Message{}, err
		}
	}
	q, err := s.lookup(account, queue)
	if err != nil {
		return Message{}, err
	}
	part := q.partition(account)
	nowTime := s.store.Now()
	e, err := s.find(part, id, edm.TicksOf(nowTime))
	if err != nil {
		return Message{}, err
	}
	m := decodeMessage(e)
	if m.PopReceipt != popReceipt {
		return Message{}, svcerr.New(svcerr.MessageNotFound)
	}
	m.NextVisible = nowTime.Add(o.VisibilityTimeout)
	if m.NextVisible.After(m.Expires) {
		return Message{}, svcerr.With(svcerr.InvalidQueryParameterValue, "The visibility timeout would make the message visible after it expires.")
	}
	m.PopReceipt = idSource(o.NewID, randomReceipt)()
	if o.Text != nil {
		m.Text = *o.Text
	}
	_, err = s.store.Write(messagesTable, engine.Op{Kind: engine.Replace, Entity: messageEntity(part, e.RowKey, m), IfMatch: e.ETag()})
	switch {
	case err == nil:
		return *m, nil
	case svcerr.Is(err, svcerr.UpdateConditionNotSatisfied):
		// Got or updated meanwhile: the receipt given is stale now.
		return Message{}, svcerr.New(svcerr.MessageNotFound)
	default:
		return Message{}, notFound(err)
	}
}

// DeleteMessage deletes a message given the pop receipt of its last Get,
// Put or Update, with the errors of Update.
func (s *Service) DeleteMessage(account, queue, id, popReceipt string) error {
	if !WellFormedReceipt(popReceipt) {
		return svcerr.New(svcerr.InvalidQueryParameterValue)
	}
	q, err := s.lookup(account, queue)
	if err != nil {
		return err
	}
	part := q.partition(account)
	e, err := s.find(part, id, edm.TicksOf(s.store.Now()))
	if err != nil {
		return err
	}
	if strProp(e, "Receipt") != popReceipt {
		return svcerr.New(svcerr.MessageNotFound)
	}
	_, err = s.store.Batch(messagesTable, []engine.Op{
		{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: e.RowKey}, IfMatch: e.ETag()},
		{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: part, RowKey: idPrefix + id}},
	})
	if err != nil {
		if svcerr.Is(err, svcerr.UpdateConditionNotSatisfied) {
			return svcerr.New(svcerr.MessageNotFound)
		}
		return notFound(err)
	}
	return nil
}

// Clear deletes every message of a queue.
func (s *Service) Clear(account, queue string) error {
	q, err := s.lookup(account, queue)
	if err != nil {
		return err
	}
	// Every row key but the counter's sorts from "d" on.
	return s.deleteAll(q.partition(account), "d")
}
