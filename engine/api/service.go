package api

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
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
		props, err := c.s.settings.properties(account)
		if err != nil {
			return err
		}
		if method == "PUT" {
			if props, err = ParseProperties(c.req.Body, props); err != nil {
				return err
			}
			if err := c.s.settings.setProperties(account, props); err != nil {
				return err
			}
			c.resp.Status = 202
			return nil
		}
		c.xml(200, string(props.AppendXML(nil)))
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
		policies, err := c.s.settings.acl(account, c.rt.table)
		if err != nil {
			return err
		}
		c.xml(200, string(appendPolicies(nil, policies)))
		return nil
	case "PUT":
		policies, err := parsePolicies(c.req.Body)
		if err != nil {
			return err
		}
		if err := c.s.settings.setACL(account, c.rt.table, policies); err != nil {
			return err
		}
		c.resp.Status = 204
		return nil
	}
	return svcerr.With(svcerr.UnsupportedHTTPVerb, "A table's ACL answers GET and PUT.")
}

// maxPolicies is the service's limit on a table's stored access policies.
const maxPolicies = 5

// parsePolicies reads a Set Table ACL body; an empty body, like an empty
// <SignedIdentifiers/>, removes every policy.
func parsePolicies(body []byte) ([]auth.Policy, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil, nil
	}
	root, err := xmlwire.Parse(body)
	if err != nil {
		return nil, err
	}
	if root.Name != "SignedIdentifiers" {
		return nil, nodeValue("the root element must be SignedIdentifiers, not " + root.Name)
	}
	ids := root.All("SignedIdentifier")
	if len(ids) > maxPolicies {
		return nil, svcerr.With(svcerr.InvalidXMLDocument, "A table holds at most 5 stored access policies, not "+strconv.Itoa(len(ids))+".")
	}
	var out []auth.Policy
	for _, e := range ids {
		var p auth.Policy
		if id := e.Child("Id"); id != nil {
			p.ID = strings.TrimSpace(id.Text)
		}
		if p.ID == "" || len(p.ID) > 64 {
			return nil, nodeValue("a signed identifier's Id must have 1 to 64 characters")
		}
		for _, q := range out {
			if q.ID == p.ID {
				return nil, nodeValue("the Id " + p.ID + " is given twice")
			}
		}
		if ap := e.Child("AccessPolicy"); ap != nil {
			for _, f := range [...]struct {
				name string
				dst  *time.Time
			}{{"Start", &p.Start}, {"Expiry", &p.Expiry}} {
				if el := ap.Child(f.name); el != nil && strings.TrimSpace(el.Text) != "" {
					t, ok := auth.ParseTime(strings.TrimSpace(el.Text))
					if !ok {
						return nil, nodeValue(f.name + " of " + p.ID + " is not an ISO 8601 UTC time")
					}
					*f.dst = t
				}
			}
			if el := ap.Child("Permission"); el != nil {
				p.Permissions = strings.TrimSpace(el.Text)
				if strings.Trim(p.Permissions, "raud") != "" {
					return nil, nodeValue("the permissions of " + p.ID + " may only be r, a, u and d")
				}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// appendPolicies appends the body of Get Table ACL.
func appendPolicies(b []byte, policies []auth.Policy) []byte {
	b = append(b, `<?xml version="1.0" encoding="utf-8"?>`...)
	if len(policies) == 0 {
		return append(b, "<SignedIdentifiers />"...)
	}
	b = append(b, "<SignedIdentifiers>"...)
	for _, p := range policies {
		b = append(b, "<SignedIdentifier>"...)
		b = xmlwire.AppendElement(b, "Id", p.ID)
		b = append(b, "<AccessPolicy>"...)
		if !p.Start.IsZero() {
			b = xmlwire.AppendElement(b, "Start", timeText(p.Start))
		}
		if !p.Expiry.IsZero() {
			b = xmlwire.AppendElement(b, "Expiry", timeText(p.Expiry))
		}
		if p.Permissions != "" {
			b = xmlwire.AppendElement(b, "Permission", p.Permissions)
		}
		b = append(b, "</AccessPolicy></SignedIdentifier>"...)
	}
	return append(b, "</SignedIdentifiers>"...)
}

func (c *call) xml(status int, body string) {
	c.resp.Status = status
	c.resp.Header.Set("Content-Type", "application/xml")
	c.resp.Body = []byte(body)
}
