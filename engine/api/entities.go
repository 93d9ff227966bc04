package api

import (
	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// decodeBody reads an entity from the request body.
func decodeBody(body []byte) (*engine.Entity, jsonwire.Keys, error) {
	if len(body) == 0 {
		return nil, jsonwire.Keys{}, svcerr.With(svcerr.InvalidInput, "The request body is empty; an entity was expected.")
	}
	return jsonwire.DecodeEntity(body)
}

// insertOp reads an insert's body — both keys required — into an
// operation the request's grant allows, for single requests and batches.
func (c *call) insertOp(table string, body []byte) (engine.Op, error) {
	e, keys, err := decodeBody(body)
	if err != nil {
		return engine.Op{}, err
	}
	if !keys.PartitionKey || !keys.RowKey {
		return engine.Op{}, svcerr.New(svcerr.PropertiesNeedValue)
	}
	if err := c.grant.Check(auth.Add, table, e.PartitionKey, e.RowKey); err != nil {
		return engine.Op{}, err
	}
	if err := c.checkCosmosRowKey(e.RowKey); err != nil {
		return engine.Op{}, err
	}
	return engine.Op{Kind: engine.Insert, Entity: e}, nil
}

// keyedOp builds the operation a method on an entity URL asks for — PUT
// replaces (without If-Match, upserts), PATCH and MERGE merge likewise,
// DELETE deletes — and checks that the grant allows it. The keys come
// from the URL; a body's copies are not consulted, as the service does
// (the Go SDK even writes them differently).
func (c *call) keyedOp(rt *route, method, ifMatch string, hasIfMatch bool, body []byte) (engine.Op, error) {
	if hasIfMatch {
		var err error
		if ifMatch, err = weakETag(ifMatch); err != nil {
			return engine.Op{}, err
		}
	}
	var kind engine.OpKind
	perms := []auth.Permission{auth.Update}
	switch method {
	case "PUT":
		kind = engine.Replace
		if !hasIfMatch {
			kind, perms = engine.InsertOrReplace, []auth.Permission{auth.Add, auth.Update}
		}
	case "PATCH", "MERGE":
		kind = engine.Merge
		if !hasIfMatch {
			kind, perms = engine.InsertOrMerge, []auth.Permission{auth.Add, auth.Update}
		}
	case "DELETE":
		kind, perms = engine.Delete, []auth.Permission{auth.Delete}
	default:
		return engine.Op{}, svcerr.With(svcerr.MethodNotAllowed, "The requested method "+method+" is not allowed on an entity.")
	}
	for _, p := range perms {
		if err := c.grant.Check(p, rt.table, rt.pk, rt.rk); err != nil {
			return engine.Op{}, err
		}
	}
	e := &engine.Entity{PartitionKey: rt.pk, RowKey: rt.rk}
	if kind != engine.Delete {
		if err := c.checkCosmosRowKey(rt.rk); err != nil {
			return engine.Op{}, err
		}
		decoded, _, err := decodeBody(body)
		if err != nil {
			return engine.Op{}, err
		}
		e.Properties = decoded.Properties
	}
	return engine.Op{Kind: kind, Entity: e, IfMatch: ifMatch}, nil
}

// weakETag reads an If-Match value as the service does: "*", or a weak
// ETag, whose W/ prefix may be written in either case. A strong or
// malformed ETag is refused: the service only issues weak ones, so such
// a value can match nothing and is a mistake in the client.
func weakETag(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "*" {
		return v, nil
	}
	if len(v) > 4 && (v[0] == 'W' || v[0] == 'w') && v[1] == '/' && v[2] == '"' && v[len(v)-1] == '"' {
		return "W" + v[1:], nil
	}
	return "", svcerr.With(svcerr.InvalidInput, "The etag value '"+v+"' specified in one of the request headers is not valid. Please make sure only one etag value is specified and is valid.")
}

func (c *call) insert() error {
	op, err := c.insertOp(c.rt.table, c.req.Body)
	if err != nil {
		return err
	}
	e := op.Entity
	res, err := c.s.store.Write(c.rt.table, op)
	if err != nil {
		return err
	}
	c.resp.Header.Set("ETag", res.ETag())
	c.created(c.rt.base+"/"+jsonwire.EntityPath(res.Table, e.PartitionKey, e.RowKey), func() []byte {
		return jsonwire.AppendEntity(nil, res.Entity, c.jsonOptions(res.Table))
	})
	return nil
}

func (c *call) getEntity() error {
	if err := c.grant.Check(auth.Read, c.rt.table, c.rt.pk, c.rt.rk); err != nil {
		return err
	}
	l, err := c.s.store.Get(c.rt.table, c.rt.pk, c.rt.rk)
	if l.Table != "" {
		// A lookup that finds no entity is a read too, and says so.
		c.setPlan(l.Plan)
	}
	if err != nil {
		return err
	}
	o := c.jsonOptions(l.Table)
	o.Select = c.selectList()
	c.resp.Header.Set("ETag", l.Entity.ETag())
	c.writeJSON(200, jsonwire.AppendEntity(nil, l.Entity, o))
	return nil
}

func (c *call) queryEntities() error {
	if err := c.grant.CheckTable(auth.Read, c.rt.table); err != nil {
		return err
	}
	top, zero, err := c.top()
	if err != nil {
		return err
	}
	q := engine.Query{Filter: c.rt.query.Get("$filter"), Top: top, Paging: c.s.paging}
	npk, nrk := c.rt.query.Get("NextPartitionKey"), c.rt.query.Get("NextRowKey")
	if npk != "" {
		var after engine.Continuation
		if after.PartitionKey, err = decodeToken(npk); err != nil {
			return err
		}
		if nrk != "" {
			if after.RowKey, err = decodeToken(nrk); err != nil {
				return err
			}
		}
		q.After = &after
	}
	if lo, hi, ok := c.grant.KeyRange(); ok {
		q.Range = &engine.KeyRange{
			StartPartitionKey: lo.PartitionKey, StartRowKey: lo.RowKey,
			EndPartitionKey: hi.PartitionKey, EndRowKey: hi.RowKey,
		}
	}
	page, err := c.s.store.Query(c.rt.table, q)
	if err != nil {
		return err
	}
	if zero && len(page.Entities) > 0 {
		first := page.Entities[0]
		page.Next = &engine.Continuation{PartitionKey: first.PartitionKey, RowKey: first.RowKey}
		page.Entities = page.Entities[:0]
		page.Plan.Returned = 0
	}
	o := c.jsonOptions(page.Table)
	o.Select = c.selectList()
	if page.Next != nil {
		c.resp.Header.Set("x-ms-continuation-NextPartitionKey", encodeToken(page.Next.PartitionKey))
		c.resp.Header.Set("x-ms-continuation-NextRowKey", encodeToken(page.Next.RowKey))
	}
	plan := page.Plan.Class.String()
	if c.s.cosmos {
		plan = c.cosmosPage(q.Filter, &page)
	}
	c.setNamedPlan(plan, page.Plan)
	c.setWarnings(page.Mismatches)
	c.writeJSON(200, jsonwire.AppendEntities(c.req.Scratch[:0], page.Entities, o))
	return nil
}

func (c *call) writeEntity(method string) error {
	hasIfMatch := c.req.Header.Has("If-Match")
	if method == "DELETE" && !hasIfMatch {
		return svcerr.With(svcerr.MissingRequiredHeader, "The If-Match header is required to delete an entity.")
	}
	op, err := c.keyedOp(c.rt, method, c.req.Header.Get("If-Match"), hasIfMatch, c.req.Body)
	if err != nil {
		return err
	}
	res, err := c.s.store.Write(c.rt.table, op)
	if err != nil {
		return err
	}
	if res.ETag() != "" {
		c.resp.Header.Set("ETag", res.ETag())
	}
	c.resp.Status = 204
	return nil
}
