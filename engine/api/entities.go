package api

import (
	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/auth"
	"github.com/tablelab/tablelab/engine/jsonwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// decodeBody reads an entity from the request body.
func decodeBody(body []byte) (*engine.Entity, jsonwire.Keys, error) {
	if len(body) == 0 {
		return nil, jsonwire.Keys{}, svcerr.Newf(svcerr.InvalidInput, "The request body is empty; an entity was expected.")
	}
	return jsonwire.DecodeEntity(body)
}

func (c *call) insert() error {
	e, keys, err := decodeBody(c.req.Body)
	if err != nil {
		return err
	}
	if !keys.PartitionKey || !keys.RowKey {
		return svcerr.New(svcerr.PropertiesNeedValue)
	}
	if err := c.grant.Check(auth.Add, c.rt.table, e.PartitionKey, e.RowKey); err != nil {
		return err
	}
	res, err := c.s.store.Write(c.rt.table, engine.Op{Kind: engine.Insert, Entity: e})
	if err != nil {
		return err
	}
	name, _ := c.s.store.TableExists(c.rt.table)
	c.resp.Header.Set("ETag", res.ETag())
	c.created(c.rt.base+"/"+jsonwire.EntityPath(name, e.PartitionKey, e.RowKey), func() []byte {
		return jsonwire.AppendEntity(nil, res.Entity, c.jsonOptions(name))
	})
	return nil
}

func (c *call) getEntity() error {
	if err := c.grant.Check(auth.Read, c.rt.table, c.rt.pk, c.rt.rk); err != nil {
		return err
	}
	e, err := c.s.store.Get(c.rt.table, c.rt.pk, c.rt.rk)
	if err != nil {
		return err
	}
	name, _ := c.s.store.TableExists(c.rt.table)
	o := c.jsonOptions(name)
	o.Select = c.selectList()
	c.resp.Header.Set("ETag", e.ETag())
	c.writeJSON(200, jsonwire.AppendEntity(nil, e, o))
	return nil
}

func (c *call) queryEntities() error {
	if err := c.grant.CheckTable(auth.Read, c.rt.table); err != nil {
		return err
	}
	top, err := c.top()
	if err != nil {
		return err
	}
	q := engine.Query{Filter: c.rt.query.Get("$filter"), Top: top}
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
	name, _ := c.s.store.TableExists(c.rt.table)
	o := c.jsonOptions(name)
	o.Select = c.selectList()
	if page.Next != nil {
		c.resp.Header.Set("x-ms-continuation-NextPartitionKey", encodeToken(page.Next.PartitionKey))
		c.resp.Header.Set("x-ms-continuation-NextRowKey", encodeToken(page.Next.RowKey))
	}
	c.setPlan(page.Plan)
	c.writeJSON(200, jsonwire.AppendEntities(nil, page.Entities, o))
	return nil
}

// entityOp maps a method on an entity URL, with its If-Match header, to
// the engine operation: PUT replaces (or, without If-Match, upserts),
// PATCH and MERGE merge likewise, DELETE deletes.
func entityOp(method, ifMatch string, hasIfMatch bool) (engine.OpKind, auth.Permission, []auth.Permission) {
	switch method {
	case "PUT":
		if hasIfMatch {
			return engine.Replace, auth.Update, nil
		}
		return engine.InsertOrReplace, auth.Add, []auth.Permission{auth.Update}
	case "PATCH", "MERGE":
		if hasIfMatch {
			return engine.Merge, auth.Update, nil
		}
		return engine.InsertOrMerge, auth.Add, []auth.Permission{auth.Update}
	case "DELETE":
		return engine.Delete, auth.Delete, nil
	case "POST":
		return engine.Insert, auth.Add, nil
	}
	return 0, 0, nil
}

func (c *call) writeEntity(method string) error {
	ifMatch := c.req.Header.Get("If-Match")
	hasIfMatch := c.req.Header.Has("If-Match")
	kind, perm, more := entityOp(method, ifMatch, hasIfMatch)
	if kind == engine.Delete && !hasIfMatch {
		return svcerr.Newf(svcerr.MissingRequiredHeader, "The If-Match header is required to delete an entity.")
	}
	for _, p := range append([]auth.Permission{perm}, more...) {
		if err := c.grant.Check(p, c.rt.table, c.rt.pk, c.rt.rk); err != nil {
			return err
		}
	}
	e := &engine.Entity{PartitionKey: c.rt.pk, RowKey: c.rt.rk}
	if kind != engine.Delete {
		body, _, err := decodeBody(c.req.Body)
		if err != nil {
			return err
		}
		// The keys come from the URL; a body's copies are not consulted,
		// as the service does (the Go SDK even writes them differently).
		e.Properties = body.Properties
	}
	res, err := c.s.store.Write(c.rt.table, engine.Op{Kind: kind, Entity: e, IfMatch: ifMatch})
	if err != nil {
		return err
	}
	if res.ETag() != "" {
		c.resp.Header.Set("ETag", res.ETag())
	}
	c.resp.Status = 204
	return nil
}
