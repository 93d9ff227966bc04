// Package faults injects into chosen requests the failures a storage
// client meets in production — latency, the errors the service answers
// under strain (500 InternalError, 503 ServerBusy, 500 OperationTimedOut)
// and connections cut off — so that an application's retry policy can be
// tested against a local server.
//
// A Rule chooses requests by service, operation and resource, and fires
// with a probability. The draws come from one generator seeded by the
// caller, in the order requests arrive: the same requests made one after
// another meet the same faults on every run.
package faults

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// The faults a rule may answer with, besides latency alone.
const (
	InternalError     = "InternalError"
	ServerBusy        = "ServerBusy"
	OperationTimedOut = "OperationTimedOut"
	// Drop closes the connection without an answer.
	Drop = "drop"
)

// Header marks an answer a fault changed: the error, "after" when the
// operation was done first, and the latency added.
const Header = "X-Tablelab-Fault"

// A Rule says which requests meet a fault, how often, and which.
type Rule struct {
	// Service is "table", "queue" or "blob"; empty matches all three.
	Service string
	// Operation is the REST operation's name (InsertEntity,
	// QueryEntities, EntityGroupTransaction, PutMessage, GetBlob, …; see
	// Operation) or an HTTP method; empty matches every operation.
	Operation string
	// Resource is the table, queue or container the request's path
	// names; empty matches every request, those that name none too.
	Resource string
	// P is the probability, above 0 and at most 1, that a matching
	// request meets the fault.
	P float64
	// Error is the answer: InternalError, ServerBusy, OperationTimedOut
	// or Drop; empty adds Latency alone.
	Error string
	// Latency is added before the request is served.
	Latency time.Duration
	// After does the operation before Error replaces its answer, as when
	// the service commits a write and the answer is lost: a client that
	// retries then meets its own write.
	After bool
}

// check reports what is wrong with r.
func (r Rule) check() error {
	switch r.Service {
	case "", "table", "queue", "blob":
	default:
		return errors.New("faults: service " + strconv.Quote(r.Service) + " is not table, queue or blob")
	}
	switch r.Error {
	case "", InternalError, ServerBusy, OperationTimedOut, Drop:
	default:
		return errors.New("faults: error " + strconv.Quote(r.Error) + " is not InternalError, ServerBusy, OperationTimedOut or drop")
	}
	if !(r.P > 0 && r.P <= 1) {
		return errors.New("faults: probability " + strconv.FormatFloat(r.P, 'g', -1, 64) + " is not above 0 and at most 1")
	}
	if r.Error == "" && r.Latency <= 0 {
		return errors.New("faults: a rule needs an error, a latency or both")
	}
	if r.Latency < 0 {
		return errors.New("faults: a negative latency")
	}
	if r.After && r.Error == "" {
		return errors.New("faults: after needs an error")
	}
	return nil
}

// matches reports whether a request for resource of service, the
// operation op sent with method, is one r chooses.
func (r *Rule) matches(service, method, op, resource string) bool {
	return (r.Service == "" || r.Service == service) &&
		(r.Operation == "" || strings.EqualFold(r.Operation, op) || strings.EqualFold(r.Operation, method)) &&
		(r.Resource == "" || r.Resource == resource)
}

// Options configure an Injector.
type Options struct {
	// Seed seeds the draws.
	Seed uint64
	// Sleep waits out a latency; nil means time.Sleep.
	Sleep func(time.Duration)
}

// An Injector decides, for each request of the services it wraps, which
// faults it meets.
type Injector struct {
	rules []Rule
	sleep func(time.Duration)

	mu  sync.Mutex
	rng *rand.Rand
}

// New returns an injector of rules.
func New(rules []Rule, o Options) (*Injector, error) {
	for i, r := range rules {
		if err := r.check(); err != nil {
			return nil, errors.New(err.Error() + " (rule " + strconv.Itoa(i+1) + ")")
		}
	}
	in := &Injector{rules: rules, sleep: o.Sleep, rng: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))}
	if in.sleep == nil {
		in.sleep = time.Sleep
	}
	return in, nil
}

// Wrap returns next, the core of service ("table", "queue" or "blob"),
// with the injector's faults.
func (in *Injector) Wrap(service string, next api.Service) api.Service {
	return &faulty{in: in, service: service, next: next}
}

// decide draws, for each rule a request matches, whether it fires, and
// returns the latency the firing rules add and the first error among
// them.
func (in *Injector) decide(service, method, op, resource string) (delay time.Duration, fault *Rule) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range in.rules {
		r := &in.rules[i]
		if !r.matches(service, method, op, resource) {
			continue
		}
		if in.rng.Float64() >= r.P {
			continue
		}
		delay += r.Latency
		if fault == nil && r.Error != "" {
			fault = r
		}
	}
	return delay, fault
}

// faulty is one service's core with an injector's faults.
type faulty struct {
	in      *Injector
	service string
	next    api.Service
}

// Serve answers req as the core does, after any latency the rules add,
// unless a rule's error replaces the answer.
func (f *faulty) Serve(req *api.Request) *api.Response {
	op, resource := Operation(f.service, req)
	delay, fault := f.in.decide(f.service, req.Method, op, resource)
	if delay > 0 {
		f.in.sleep(delay)
	}
	if fault == nil {
		resp := f.next.Serve(req)
		if delay > 0 {
			resp.Header.Set(Header, "latency "+delay.String())
		}
		return resp
	}
	if fault.After {
		if done := f.next.Serve(req); done.BodyStream != nil {
			done.BodyStream.Close()
		}
	}
	var resp *api.Response
	switch fault.Error {
	case ServerBusy:
		resp = f.next.Error(req, svcerr.New(svcerr.ServerBusy))
		resp.Reason = "Server Busy"
	case OperationTimedOut:
		resp = f.next.Error(req, svcerr.New(svcerr.OperationTimedOut))
		resp.Reason = "Operation Timeout"
	case Drop:
		resp = f.next.Error(req, svcerr.With(svcerr.InternalError, "The connection was dropped (an injected fault)."))
		resp.Drop = true
	default:
		resp = f.next.Error(req, svcerr.New(svcerr.InternalError))
	}
	mark := fault.Error
	if fault.After {
		mark += " after"
	}
	if delay > 0 {
		mark += ", latency " + delay.String()
	}
	resp.Header.Set(Header, mark)
	return resp
}

// Error answers as the core does.
func (f *faulty) Error(req *api.Request, err error) *api.Response { return f.next.Error(req, err) }

// file is the JSON form ReadFile reads.
type file struct {
	Seed  *uint64    `json:"seed"`
	Rules []fileRule `json:"rules"`
}

type fileRule struct {
	Service  string   `json:"service"`
	Op       string   `json:"op"`
	Resource string   `json:"resource"`
	P        *float64 `json:"p"`
	Error    string   `json:"error"`
	Latency  string   `json:"latency"`
	When     string   `json:"when"`
}

// ReadFile reads rules, and a seed when it gives one, from the JSON file
// name:
//
//	{"seed": 7, "rules": [
//	  {"service": "table", "op": "InsertEntity", "resource": "orders", "p": 0.3, "error": "ServerBusy"},
//	  {"op": "QueryEntities", "latency": "200ms"}]}
//
// A rule's p is 1 when left out; "when": "after" sets After.
func ReadFile(name string) (rules []Rule, seed *uint64, err error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, err
	}
	var f file
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&f); err != nil {
		return nil, nil, errors.New("faults: " + name + ": " + err.Error())
	}
	for i, fr := range f.Rules {
		r, err := fr.rule()
		if err == nil {
			err = r.check()
		}
		if err != nil {
			return nil, nil, errors.New(name + ": rule " + strconv.Itoa(i+1) + ": " + err.Error())
		}
		rules = append(rules, r)
	}
	return rules, f.Seed, nil
}

func (fr fileRule) rule() (Rule, error) {
	r := Rule{Service: fr.Service, Operation: fr.Op, Resource: fr.Resource, P: 1, Error: fr.Error}
	if fr.P != nil {
		r.P = *fr.P
	}
	if fr.Latency != "" {
		d, err := time.ParseDuration(fr.Latency)
		if err != nil {
			return r, errors.New("faults: latency " + strconv.Quote(fr.Latency) + " is not a duration such as 200ms")
		}
		r.Latency = d
	}
	switch fr.When {
	case "", "before":
	case "after":
		r.After = true
	default:
		return r, errors.New("faults: when " + strconv.Quote(fr.When) + " is not before or after")
	}
	return r, nil
}

// ParseRule reads a rule written as name=value pairs separated by
// commas, with the names of a File's rule: service, op, resource, p,
// error, latency and when, such as
// "service=table,op=InsertEntity,p=0.3,error=ServerBusy".
func ParseRule(spec string) (Rule, error) {
	var fr fileRule
	for pair := range strings.SplitSeq(spec, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			return Rule{}, errors.New("faults: " + strconv.Quote(pair) + " is not name=value")
		}
		switch name {
		case "service":
			fr.Service = value
		case "op":
			fr.Op = value
		case "resource":
			fr.Resource = value
		case "p":
			p, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return Rule{}, errors.New("faults: p " + strconv.Quote(value) + " is not a number")
			}
			fr.P = &p
		case "error":
			fr.Error = value
		case "latency":
			fr.Latency = value
		case "when":
			fr.When = value
		default:
			return Rule{}, errors.New("faults: " + strconv.Quote(name) + " is not service, op, resource, p, error, latency or when")
		}
	}
	r, err := fr.rule()
	if err == nil {
		err = r.check()
	}
	return r, err
}
