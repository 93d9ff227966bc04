package api

import (
	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/batchwire"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// batchOp is one parsed operation of a change set.
type batchOp struct {
	op        engine.Op
	table     string
	contentID string
	noContent bool // an insert that asked for no content back
}

// batch answers an entity group transaction. Errors in the envelope
// itself are ordinary error responses; an operation that fails is
// answered, as the service does, with 202 and one part carrying the error
// and the operation's index, and nothing is applied.
func (c *call) batch() error {
	if err := c.checkCosmosBatch(); err != nil {
		return err
	}
	b, err := batchwire.Parse(c.req.Header.Get("Content-Type"), c.req.Body)
	if err != nil {
		return err
	}
	if b.Query {
		return c.batchQuery(b.Requests[0])
	}
	ops := make([]batchOp, len(b.Requests))
	var table string
	for i, sub := range b.Requests {
		op, err := c.parseBatchOp(sub)
		if err == nil && i > 0 && !c.s.sameTable(op.table, table) {
			err = svcerr.With(svcerr.InvalidInput, "All operations of a batch must be on the same table.")
		}
		if err != nil {
			return c.batchFailure(b, i, err)
		}
		if i == 0 {
			table = op.table
		}
		ops[i] = op
	}
	engineOps := make([]engine.Op, len(ops))
	for i := range ops {
		engineOps[i] = ops[i].op
	}
	results, err := c.s.store.Batch(table, engineOps)
	if err != nil {
		e := svcerr.From(err)
		i := e.Index
		if i < 0 {
			i = 0
		}
		return c.batchFailure(b, i, e)
	}
	name := results[0].Table // a batch has at least one operation
	parts := make([]batchwire.Response, len(ops))
	// The parts' header fields share one array, partFields to a part:
	// appended to from nothing, each part's took three allocations.
	const partFields = 7
	fields := make([]batchwire.Field, partFields*len(ops))
	for i, op := range ops {
		p := batchwire.Response{Status: 204, ContentID: op.contentID, Header: fields[i*partFields : i*partFields : (i+1)*partFields]}
		p.Header = append(p.Header, batchwire.Field{Name: "X-Content-Type-Options", Value: "nosniff"},
			batchwire.Field{Name: "Cache-Control", Value: "no-cache"})
		e := op.op.Entity
		switch op.op.Kind {
		case engine.Insert:
			loc := c.rt.base + "/" + jsonwire.EntityPath(name, e.PartitionKey, e.RowKey)
			if op.noContent {
				p.Header = append(p.Header, batchwire.Field{Name: "Preference-Applied", Value: "return-no-content"})
			}
			p.Header = append(p.Header, batchwire.Field{Name: "DataServiceVersion", Value: "3.0;"},
				batchwire.Field{Name: "Location", Value: loc})
			if op.noContent {
				p.Header = append(p.Header, batchwire.Field{Name: "DataServiceId", Value: loc})
			}
			p.Header = append(p.Header, batchwire.Field{Name: "ETag", Value: results[i].ETag()})
			if !op.noContent {
				p.Status = 201
				p.Header = append(p.Header, batchwire.Field{Name: "Content-Type", Value: c.format.ContentType()})
				p.Body = jsonwire.AppendEntity(nil, results[i].Entity, c.jsonOptions(name))
			}
		case engine.Delete:
			p.Header = append(p.Header, batchwire.Field{Name: "DataServiceVersion", Value: "1.0;"})
		default:
			p.Header = append(p.Header, batchwire.Field{Name: "DataServiceVersion", Value: "1.0;"},
				batchwire.Field{Name: "ETag", Value: results[i].ETag()})
		}
		parts[i] = p
	}
	c.writeBatch(parts)
	return nil
}

// subRoute routes one request of a batch, which must address the
// batch's own account, into rt.
func (c *call) subRoute(rt *route, sub batchwire.Request) error {
	target, host := sub.URL, c.req.Host
	if i := strings.Index(target, "://"); i >= 0 {
		rest := target[i+3:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			return svcerr.New(svcerr.InvalidURI)
		}
		host, target = rest[:slash], rest[slash:]
	}
	if err := rt.parse(&Request{Target: target, Host: host, Scheme: c.req.Scheme}); err != nil {
		return err
	}
	if !strings.EqualFold(rt.account, c.rt.account) {
		return svcerr.With(svcerr.InvalidInput, "An operation of the batch addresses another account.")
	}
	return nil
}

// batchQuery answers a batch holding one query, which the service allows
// when it reads a single entity by its keys: the answer is one part, the
// entity or the error, outside any change set.
func (c *call) batchQuery(sub batchwire.Request) error {
	p := batchwire.Response{Header: []batchwire.Field{
		{Name: "X-Content-Type-Options", Value: "nosniff"},
		{Name: "Cache-Control", Value: "no-cache"},
		{Name: "DataServiceVersion", Value: "3.0;"},
	}}
	err := func() error {
		rt := new(route)
		if err := c.subRoute(rt, sub); err != nil {
			return err
		}
		if rt.kind != resEntity {
			return svcerr.With(svcerr.InvalidInput, "A query in a batch must read one entity by its PartitionKey and RowKey.")
		}
		if err := c.grant.Check(auth.Read, rt.table, rt.pk, rt.rk); err != nil {
			return err
		}
		l, err := c.s.store.Get(rt.table, rt.pk, rt.rk)
		if l.Table != "" {
			c.setPlan(l.Plan)
		}
		if err != nil {
			return err
		}
		sel := &call{rt: rt}
		o := c.jsonOptions(l.Table)
		o.Select = sel.selectList()
		p.Status = 200
		p.Header = append(p.Header, batchwire.Field{Name: "Content-Type", Value: c.format.ContentType()},
			batchwire.Field{Name: "ETag", Value: l.Entity.ETag()})
		p.Body = jsonwire.AppendEntity(nil, l.Entity, o)
		return nil
	}()
	if err != nil {
		// The index, as a change set's errors carry it.
		e := svcerr.From(err).AtIndex(0)
		p.Status = e.Status()
		p.Header = append(p.Header, batchwire.Field{Name: "Content-Type", Value: jsonwire.MinimalMetadata.ContentType()})
		p.Body = jsonwire.AppendError(nil, e, c.id, c.now)
	}
	bb := "batchresponse_" + c.s.newID()
	c.resp.Status = 202
	c.resp.Header.Set("Content-Type", "multipart/mixed; boundary="+bb)
	c.resp.Body = batchwire.WriteQueryResponse(nil, bb, p)
	return nil
}

// parseBatchOp reads one operation of a change set and checks that the
// caller may perform it.
func (c *call) parseBatchOp(sub batchwire.Request) (batchOp, error) {
	var rt route
	if err := c.subRoute(&rt, sub); err != nil {
		return batchOp{}, err
	}
	var err error
	out := batchOp{table: rt.table, contentID: sub.ContentID}
	method := sub.Method
	switch {
	case rt.kind == resEntities && method == "POST":
		out.op, err = c.insertOp(rt.table, sub.Body)
		out.noContent = strings.TrimSpace(sub.Get("Prefer")) == "return-no-content"
		return out, err
	case rt.kind == resEntity && (method == "PUT" || method == "PATCH" || method == "MERGE" || method == "DELETE"):
		// The Go SDK sends If-Match inside a batch only when the caller
		// set one; an empty value counts as none.
		ifMatch := sub.Get("If-Match")
		out.op, err = c.keyedOp(&rt, method, ifMatch, ifMatch != "", sub.Body)
		return out, err
	}
	return out, svcerr.With(svcerr.InvalidInput, "The batch operation "+method+" "+sub.URL+" is not supported.")
}

// batchFailure answers a batch whose operation i failed.
func (c *call) batchFailure(b *batchwire.Batch, i int, err error) error {
	e := svcerr.From(err).AtIndex(i)
	p := batchwire.Response{Status: e.Status()}
	if i < len(b.Requests) {
		p.ContentID = b.Requests[i].ContentID
	}
	p.Header = []batchwire.Field{
		{Name: "X-Content-Type-Options", Value: "nosniff"},
		{Name: "Cache-Control", Value: "no-cache"},
		{Name: "DataServiceVersion", Value: "3.0;"},
		{Name: "Content-Type", Value: jsonwire.MinimalMetadata.ContentType()},
	}
	p.Body = jsonwire.AppendError(nil, e, c.id, c.now)
	c.writeBatch([]batchwire.Response{p})
	return nil
}

func (c *call) writeBatch(parts []batchwire.Response) {
	bb, cb := "batchresponse_"+c.s.newID(), "changesetresponse_"+c.s.newID()
	c.resp.Status = 202
	c.resp.Header.Set("Content-Type", "multipart/mixed; boundary="+bb)
	c.resp.Body = batchwire.WriteResponse(nil, bb, cb, parts)
}
