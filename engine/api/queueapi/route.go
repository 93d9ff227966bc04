package queueapi

import (
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// resourceKind is what a request path addresses.
type resourceKind uint8

const (
	resService  resourceKind = iota + 1 // the account: list queues, service properties
	resQueue                            // /queue
	resMessages                         // /queue/messages
	resMessage                          // /queue/messages/id
)

// route is a parsed request target.
type route struct {
	account string
	query   urltext.Values
	// base is the URL the account's resources hang off:
	// http://127.0.0.1:10001/devstoreaccount1.
	base    string
	kind    resourceKind
	queue   string
	message string
}

// parseRoute splits a request target into account and resource.
func parseRoute(r *api.Request) (*route, error) {
	account, rest, base, q, err := api.AddressQuery(r)
	if err != nil {
		return nil, err
	}
	rt := &route{account: account, query: q, base: base}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" {
		rt.kind = resService
		return rt, nil
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if segs[i], err = urltext.PathUnescape(s); err != nil || segs[i] == "" {
			return nil, svcerr.New(svcerr.InvalidURI)
		}
	}
	rt.queue = segs[0]
	switch {
	case len(segs) == 1:
		rt.kind = resQueue
	case len(segs) == 2 && segs[1] == "messages":
		rt.kind = resMessages
	case len(segs) == 3 && segs[1] == "messages":
		rt.kind, rt.message = resMessage, segs[2]
	default:
		return nil, svcerr.New(svcerr.InvalidURI)
	}
	return rt, nil
}
