// Package throttle holds the storage services to their scalability
// targets as the service does: a request that would take a partition, or
// the account, past its target for the current second is answered 503
// ServerBusy in the service's own error format, so that an application's
// retry path runs locally as it would against Azure.
//
// What counts is what the partition heat model counts: each entity a
// request writes (a batch counts each of its operations) and each entity
// a read examines, against the table partition it lies in; a table scan,
// which reads many partitions, counts against the account alone. A queue
// counts messages (put one, get or peek as many as asked for), a blob
// counts requests. The account counts all of these together, across the
// three services, and one for each request that touches no entity.
//
// The second is the one the clock given to NewLimiter says (the engine's
// own), so a test that moves the store's clock moves the limiter's too.
package throttle

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/batchwire"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Targets are operations a second; zero leaves that level unlimited.
type Targets struct {
	Partition int // entities of one table partition
	Account   int // operations of one account, all services together
	Queue     int // messages of one queue
	Blob      int // requests for one blob
}

// Azure are the targets the service publishes for a standard account:
// 2,000 entities a second per table partition and messages per queue,
// 20,000 operations a second per account, 500 requests a second per blob.
var Azure = Targets{Partition: 2000, Account: 20000, Queue: 2000, Blob: 500}

// ParseTargets reads targets written as "azure", or as name=value pairs
// separated by commas that change Azure's (partition, account, queue,
// blob), such as "partition=100,account=1000".
func ParseTargets(spec string) (Targets, error) {
	t := Azure
	if spec == "azure" {
		return t, nil
	}
	for pair := range strings.SplitSeq(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		n, err := strconv.Atoi(value)
		if !ok || err != nil || n < 0 {
			return t, errors.New("throttle: " + strconv.Quote(pair) + " is not name=operations a second (a whole number, 0 for no limit)")
		}
		switch name {
		case "partition":
			t.Partition = n
		case "account":
			t.Account = n
		case "queue":
			t.Queue = n
		case "blob":
			t.Blob = n
		default:
			return t, errors.New("throttle: " + strconv.Quote(name) + " is not a target: partition, account, queue or blob")
		}
	}
	return t, nil
}

// The messages the service sends with ServerBusy: the first when a
// partition (a table's, a queue, a blob) is over its target, the second
// when the account is.
const (
	PartitionBusy = "The server is busy."
	AccountBusy   = "Operations per second is over the account limit."
)

// Reason is the status line's phrase of a throttled answer.
const Reason = "Server Busy"

// Service names the storage service a wrapped core speaks.
type Service uint8

// The three services.
const (
	Table Service = iota
	Queue
	Blob
)

// A Limiter counts the operations of the current second, per partition
// and per account, for every service wrapped with it.
type Limiter struct {
	targets Targets
	now     func() time.Time

	mu       sync.Mutex
	second   int64
	parts    map[string]int
	accounts map[string]int
}

// NewLimiter returns a limiter of targets on the clock now.
func NewLimiter(targets Targets, now func() time.Time) *Limiter {
	return &Limiter{targets: targets, now: now, parts: map[string]int{}, accounts: map[string]int{}}
}

// Wrap returns next, the core of service s, held to the limiter's
// targets.
func (l *Limiter) Wrap(s Service, next api.Service) api.Service {
	return &limited{l: l, s: s, next: next}
}

// cost is what one request counts against.
type cost struct {
	account string
	part    string // empty: the account alone
	limit   int    // the partition's target
	n       int    // operations known before the request is served
	read    bool   // the examined count of the answer says the rest
}

// admit counts c in the current second, or says which target it would
// pass. A second's first request on a partition or account is admitted
// whatever it costs: a batch larger than a lowered target still lands.
func (l *Limiter) admit(c cost) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	if c.part != "" && c.limit > 0 {
		if used := l.parts[c.part]; used > 0 && used+c.n > c.limit {
			return svcerr.With(svcerr.ServerBusy, PartitionBusy)
		}
	}
	if max := l.targets.Account; max > 0 {
		if used := l.accounts[c.account]; used > 0 && used+c.n > max {
			return svcerr.With(svcerr.ServerBusy, AccountBusy)
		}
	}
	l.add(c, c.n)
	return nil
}

// charge counts n more operations of c, done by a request already
// admitted.
func (l *Limiter) charge(c cost, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.roll()
	l.add(c, n)
}

func (l *Limiter) add(c cost, n int) {
	if c.part != "" {
		l.parts[c.part] += n
	}
	l.accounts[c.account] += n
}

// roll starts a new second's counts when the clock has left the last.
func (l *Limiter) roll() {
	if s := l.now().Unix(); s != l.second {
		l.second = s
		clear(l.parts)
		clear(l.accounts)
	}
}

// limited is one service's core behind a limiter.
type limited struct {
	l    *Limiter
	s    Service
	next api.Service
}

// Serve answers req as the core does, unless the request would pass a
// target: then 503 ServerBusy, and nothing is done.
func (w *limited) Serve(req *api.Request) *api.Response {
	var c cost
	var ok bool
	switch w.s {
	case Table:
		c, ok = tableCost(req, w.l.targets.Partition)
	case Queue:
		c, ok = queueCost(req, w.l.targets.Queue)
	default:
		c, ok = blobCost(req, w.l.targets.Blob)
	}
	if !ok {
		// A request the core cannot route: its answer is an error that
		// says why, and touches nothing.
		return w.next.Serve(req)
	}
	if err := w.l.admit(c); err != nil {
		resp := w.next.Error(req, err)
		resp.Reason = Reason
		return resp
	}
	resp := w.next.Serve(req)
	if c.read {
		if n, err := strconv.Atoi(resp.Header.Get("X-Tablelab-Examined")); err == nil && n > c.n {
			w.l.charge(c, n-c.n)
		}
	}
	return resp
}

// Error answers as the core does.
func (w *limited) Error(req *api.Request, err error) *api.Response { return w.next.Error(req, err) }

// tableCost reads what a Table service request counts against.
func tableCost(req *api.Request, limit int) (cost, bool) {
	t, err := api.Locate(req)
	if err != nil {
		return cost{}, false
	}
	account, _ := auth.Primary(t.Account)
	c := cost{account: account, n: 1, limit: limit}
	method := req.Method
	if x := req.Header.Get("X-HTTP-Method"); method == "POST" && x != "" {
		method = x
	}
	switch {
	case t.Kind == api.KindEntity:
		c.part = partition(account, t.Table, t.PartitionKey)
		c.read = method == "GET"
	case t.Kind == api.KindEntities && t.Param("comp") == "" && method == "GET":
		c.read = true
		if f, err := odata.Parse(t.Param("$filter")); err == nil && t.Param("$filter") != "" {
			if pk := f.Plan().PartitionKey; pk.Point() {
				c.part = partition(account, t.Table, pk.Lo)
			}
		}
	case t.Kind == api.KindEntities && t.Param("comp") == "" && method == "POST":
		if e, _, err := jsonwire.DecodeEntity(req.Body); err == nil {
			c.part = partition(account, t.Table, e.PartitionKey)
		}
	case t.Kind == api.KindBatch:
		c.part, c.n, c.read = batchCost(req, account)
	}
	return c, true
}

// batchCost reads a batch's partition, the first operation's (the
// service refuses a batch over two), and how many operations it holds.
func batchCost(req *api.Request, account string) (part string, n int, read bool) {
	b, err := batchwire.Parse(req.Header.Get("Content-Type"), req.Body)
	if err != nil || len(b.Requests) == 0 {
		return "", 1, false
	}
	first := b.Requests[0]
	t, err := api.LocateIn(req.Host, req.Scheme, first.URL)
	if err != nil {
		return "", len(b.Requests), false
	}
	pk, ok := t.PartitionKey, t.Kind == api.KindEntity
	if !ok {
		if e, _, err := jsonwire.DecodeEntity(first.Body); err == nil {
			pk, ok = e.PartitionKey, true
		}
	}
	if !ok {
		return "", len(b.Requests), b.Query
	}
	return partition(account, t.Table, pk), len(b.Requests), b.Query
}

// partition names a table partition of an account among every service's
// partitions. Table names are the same whatever their case.
func partition(account, table, pk string) string {
	return "t\x00" + account + "\x00" + strings.ToLower(table) + "\x00" + pk
}

// queueCost reads what a Queue service request counts against: a
// request on a queue's messages counts the messages it puts or asks for.
func queueCost(req *api.Request, limit int) (cost, bool) {
	account, rest, _, q, err := api.AddressQuery(req)
	if err != nil {
		return cost{}, false
	}
	account, _ = auth.Primary(account)
	c := cost{account: account, n: 1, limit: limit}
	name, sub, _ := strings.Cut(rest, "/")
	if name == "" {
		return c, true
	}
	c.part = "q\x00" + account + "\x00" + name
	if sub == "messages" && req.Method == "GET" {
		if n, err := strconv.Atoi(q.Get("numofmessages")); err == nil && n > 1 && n <= 32 {
			c.n = n
		}
	}
	return c, true
}

// blobCost reads what a Blob service request counts against: one
// operation against the blob it names, if it names one.
func blobCost(req *api.Request, limit int) (cost, bool) {
	account, rest, _, err := api.Address(req)
	if err != nil {
		return cost{}, false
	}
	account, _ = auth.Primary(account)
	c := cost{account: account, n: 1, limit: limit}
	if container, blob, _ := strings.Cut(rest, "/"); container != "" && blob != "" {
		c.part = "b\x00" + account + "\x00" + rest
	}
	return c, true
}
