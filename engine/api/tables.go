package api

import (
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/svcerr"

	"github.com/tablelab/tablelab/engine"
)

func (c *call) createTable() error {
	name, err := jsonwire.DecodeTableName(c.req.Body)
	if err != nil {
		return err
	}
	if err := c.grant.CheckTable(auth.CreateTable, name); err != nil {
		return err
	}
	if err := c.s.store.CreateTable(name); err != nil {
		return err
	}
	c.created(c.rt.base+"/"+jsonwire.TablePath(name), func() []byte {
		return jsonwire.AppendTable(nil, name, c.jsonOptions(name))
	})
	return nil
}

func (c *call) deleteTable() error {
	if err := c.grant.CheckTable(auth.DeleteTable, c.rt.table); err != nil {
		return err
	}
	if err := c.s.store.DeleteTable(c.rt.table); err != nil {
		return err
	}
	// A table made again under the name starts with no policies.
	account, _ := auth.Primary(c.rt.account)
	if err := c.s.settings.DeleteACL(account, c.rt.table); err != nil {
		return err
	}
	c.resp.Status = 204
	return nil
}

func (c *call) getTable() error {
	if err := c.grant.CheckTable(auth.ListTables, c.rt.table); err != nil {
		return err
	}
	name, ok := c.s.store.TableExists(c.rt.table)
	if !ok {
		return svcerr.New(svcerr.ResourceNotFound)
	}
	c.writeJSON(200, jsonwire.AppendTable(nil, name, c.jsonOptions(name)))
	return nil
}

func (c *call) queryTables() error {
	if err := c.grant.CheckTable(auth.ListTables, ""); err != nil {
		return err
	}
	top, zero, err := c.top()
	if err != nil {
		return err
	}
	q := engine.TableQuery{Filter: c.rt.query.Get("$filter"), Top: top}
	if tok := c.rt.query.Get("NextTableName"); tok != "" {
		if q.NextTableName, err = decodeToken(tok); err != nil {
			return err
		}
	}
	page, err := c.s.store.QueryTables(q)
	if err != nil {
		return err
	}
	if zero && len(page.Names) > 0 {
		page.NextTableName, page.Names = page.Names[0], page.Names[:0]
	}
	if page.NextTableName != "" {
		c.resp.Header.Set("x-ms-continuation-NextTableName", encodeToken(page.NextTableName))
	}
	c.writeJSON(200, jsonwire.AppendTables(nil, page.Names, c.jsonOptions("")))
	return nil
}
