package api

import (
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Locating a request before any store serves it: a host that spreads one
// account's tables over several stores (the Worker puts each partition in
// a Durable Object of its own) must know which store a request is for,
// and must read continuation tokens to resume a query in the right one.

// Kind is what a Table service request addresses.
type Kind uint8

// The kinds of resource a request path names.
const (
	KindService  Kind = Kind(resService)  // the account: ?restype=service
	KindTables   Kind = Kind(resTables)   // Tables, Tables()
	KindTable    Kind = Kind(resTable)    // Tables('name')
	KindBatch    Kind = Kind(resBatch)    // $batch
	KindEntities Kind = Kind(resEntities) // name, name()
	KindEntity   Kind = Kind(resEntity)   // name(PartitionKey='…',RowKey='…')
)

// Target is what Locate reads of a request: its account, the resource,
// and for an entity its keys.
type Target struct {
	Account      string
	Kind         Kind
	Table        string
	PartitionKey string
	RowKey       string
	query        query
}

// Param returns the decoded value of the first query parameter named
// name, or "".
func (t *Target) Param(name string) string { return t.query.Get(name) }

// Locate parses r's path and query as the server routes them, with the
// server's errors for a malformed one.
func Locate(r *Request) (Target, error) {
	rt, err := parseRoute(r)
	if err != nil {
		return Target{}, err
	}
	return Target{Account: rt.account, Kind: Kind(rt.kind), Table: rt.table, PartitionKey: rt.pk, RowKey: rt.rk, query: rt.query}, nil
}

// LocateIn parses target, the URL of one operation of a $batch sent to
// host (usually absolute, so naming its own host), as the server reads it.
func LocateIn(host, scheme, target string) (Target, error) {
	if i := strings.Index(target, "://"); i >= 0 {
		rest := target[i+3:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return Target{}, svcerr.New(svcerr.InvalidURI)
		}
		host, target = rest[:slash], rest[slash:]
	}
	return Locate(&Request{Target: target, Host: host, Scheme: scheme})
}

// ContinuationKey reads a continuation token (NextPartitionKey or
// NextRowKey) as the key it resumes at.
func ContinuationKey(token string) (string, error) { return decodeToken(token) }

// ContinuationToken is the token that resumes a query at key.
func ContinuationToken(key string) string { return encodeToken(key) }
