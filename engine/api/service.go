package api

import (
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// service answers requests on the account itself (?restype=service). The
// SDKs offer service properties and statistics; tablelab has neither
// analytics logging nor geo-replication, so it answers with the service's
// defaults and refuses to change them rather than pretend to.
func (c *call) service(method string) error {
	q := &c.rt.query
	if q.Get("restype") != "service" {
		return svcerr.New(svcerr.InvalidURI)
	}
	switch {
	case method == "GET" && q.Get("comp") == "properties":
		c.xml(200, `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Logging><Version>1.0</Version><Read>false</Read><Write>false</Write><Delete>false</Delete><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></Logging><HourMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics><MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics><Cors /></StorageServiceProperties>`)
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
	return svcerr.With(svcerr.NotImplemented, "Changing service properties is not supported by tablelab.")
}

// tableComp answers ?comp= requests on a table: its stored access
// policies. tablelab keeps none, so the list is always empty.
func (c *call) tableComp(method, comp string) error {
	if comp != "acl" {
		return svcerr.New(svcerr.InvalidQueryParameterValue)
	}
	if _, ok := c.s.store.TableExists(c.rt.table); !ok {
		return svcerr.New(svcerr.TableNotFound)
	}
	if method == "GET" {
		c.xml(200, `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers />`)
		return nil
	}
	return svcerr.With(svcerr.NotImplemented, "Stored access policies are not supported by tablelab.")
}

func (c *call) xml(status int, body string) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", "application/xml")
	c.resp.Body = []byte(body)
}
