package api

import (
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// service answers requests on the account itself (?restype=service):
// its properties, which are kept and answered (the CORS rules among them
// are enforced; tablelab writes no analytics logs or metrics, whatever
// they say), and its replication statistics.
func (c *call) service(method string) error {
	q := &c.rt.query
	if q.Get("restype") != "service" {
		return svcerr.New(svcerr.InvalidURI)
	}
	switch {
	case q.Get("comp") == "properties" && (method == "GET" || method == "PUT"):
		if err := c.grant.CheckService(method == "PUT"); err != nil {
			return err
		}
		account, _ := auth.Primary(c.rt.account)
		if method == "PUT" {
			if err := c.s.settings.SetProperties(account, c.req.Body); err != nil {
				return err
			}
			c.resp.Status = 202
			return nil
		}
		body, err := c.s.settings.PropertiesXML(account)
		if err != nil {
			return err
		}
		c.xml(200, string(body))
		return nil
	case method == "GET" && q.Get("comp") == "stats":
		if _, secondary := auth.Primary(c.rt.account); !secondary {
			// The service keeps replication statistics on the secondary
			// location only; the primary refuses the parameter.
			return svcerr.With(svcerr.InvalidQueryParameterValue, "Service statistics are answered on the secondary location only ("+c.rt.account+"-secondary).")
		}
		c.xml(200, `<?xml version="1.0" encoding="utf-8"?><StorageServiceStats><GeoReplication><Status>live</Status><LastSyncTime>`+c.now.UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")+`</LastSyncTime></GeoReplication></StorageServiceStats>`)
		return nil
	}
	return svcerr.With(svcerr.InvalidQueryParameterValue, "The account answers only comp=properties (GET, PUT) and comp=stats (GET).")
}

// tableComp answers ?comp= requests on a table: Get and Set Table ACL,
// its stored access policies, which only the account's owner may read or
// change.
func (c *call) tableComp(method, comp string) error {
	if comp != "acl" {
		return svcerr.New(svcerr.InvalidQueryParameterValue)
	}
	if err := c.grant.CheckOwner(); err != nil {
		return err
	}
	if _, ok := c.s.store.TableExists(c.rt.table); !ok {
		return svcerr.New(svcerr.TableNotFound)
	}
	account, _ := auth.Primary(c.rt.account)
	switch method {
	case "GET":
		body, err := c.s.settings.ACLXML(account, c.rt.table)
		if err != nil {
			return err
		}
		c.xml(200, string(body))
		return nil
	case "PUT":
		if err := c.s.settings.SetACL(account, c.rt.table, c.req.Body); err != nil {
			return err
		}
		c.resp.Status = 204
		return nil
	}
	return svcerr.With(svcerr.UnsupportedHTTPVerb, "A table's ACL answers GET and PUT.")
}

func (c *call) xml(status int, body string) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", "application/xml")
	c.resp.Body = []byte(body)
}
