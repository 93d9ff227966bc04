package settings

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// settingsTable is the table of the settings store that holds, per
// account (the PartitionKey), the service's properties (RowKey
// "properties") and each table's stored access policies (RowKey "acl."
// and the table's name in lower case).
const settingsTable = "TableSettings"

// Store keeps what an account sets about its Table service — its
// properties, CORS rules among them, and its tables' stored access
// policies — in an engine store of its own, so that they are exactly as
// durable as the data, and caches them, since every request from a
// browser page reads the CORS rules and every SAS naming a policy reads
// the policy. It implements api.Settings.
type Store struct {
	store *engine.Store
	mu    sync.Mutex
	props map[string]*Properties   // by account; read-only once cached
	acls  map[string][]auth.Policy // by account and "acl." row key
}

// New returns the settings kept in store; nil keeps them in memory.
func New(store *engine.Store) *Store {
	if store == nil {
		store = engine.New(engine.Options{})
	}
	return &Store{store: store, props: map[string]*Properties{}, acls: map[string][]auth.Policy{}}
}

// PropertiesXML implements api.Settings.
func (st *Store) PropertiesXML(account string) ([]byte, error) {
	p, err := st.properties(account)
	if err != nil {
		return nil, err
	}
	return p.AppendXML(nil), nil
}

// SetProperties implements api.Settings: an element the body leaves out
// keeps its setting.
func (st *Store) SetProperties(account string, body []byte) error {
	cur, err := st.properties(account)
	if err != nil {
		return err
	}
	p, err := ParseProperties(body, cur)
	if err != nil {
		return err
	}
	return st.setProperties(account, p)
}

// CorsRules implements api.Settings.
func (st *Store) CorsRules(account string) ([]api.CorsRule, error) {
	p, err := st.properties(account)
	if err != nil {
		return nil, err
	}
	return p.Cors, nil
}

// ACLXML implements api.Settings.
func (st *Store) ACLXML(account, table string) ([]byte, error) {
	ps, err := st.acl(account, table)
	if err != nil {
		return nil, err
	}
	return appendPolicies(nil, ps), nil
}

// SetACL implements api.Settings.
func (st *Store) SetACL(account, table string, body []byte) error {
	ps, err := parsePolicies(body)
	if err != nil {
		return err
	}
	return st.setACL(account, table, ps)
}

// DeleteACL implements api.Settings.
func (st *Store) DeleteACL(account, table string) error { return st.setACL(account, table, nil) }

// Policy implements api.Settings.
func (st *Store) Policy(account, table, id string) (auth.Policy, bool) {
	return st.policy(account, table, id)
}

// Reset forgets what account has set — its service properties and its
// tables' stored access policies — or, with account "", what every
// account has: they are the defaults again.
func (st *Store) Reset(account string) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if account == "" {
		if err := st.store.DeleteTable(settingsTable); err != nil && !svcerr.Is(err, svcerr.TableNotFound) && !svcerr.Is(err, svcerr.ResourceNotFound) {
			return err
		}
		clear(st.props)
		clear(st.acls)
		return nil
	}
	q := engine.Query{Filter: "PartitionKey eq '" + strings.ReplaceAll(account, "'", "''") + "'", Top: engine.MaxBatchOperations}
	for {
		page, err := st.store.Query(settingsTable, q)
		if svcerr.Is(err, svcerr.TableNotFound) || svcerr.Is(err, svcerr.ResourceNotFound) {
			break
		}
		if err != nil {
			return err
		}
		if len(page.Entities) == 0 {
			break
		}
		ops := make([]engine.Op, len(page.Entities))
		for i, e := range page.Entities {
			ops[i] = engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: account, RowKey: e.RowKey}}
		}
		if _, err := st.store.Batch(settingsTable, ops); err != nil {
			return err
		}
	}
	delete(st.props, account)
	for key := range st.acls {
		if strings.HasPrefix(key, account+"/") {
			delete(st.acls, key)
		}
	}
	return nil
}

// properties returns account's properties, the defaults until it sets any.
func (st *Store) properties(account string) (*Properties, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.props[account]; p != nil {
		return p, nil
	}
	p := defaultProperties()
	l, err := st.store.Get(settingsTable, account, "properties")
	switch {
	case err == nil:
		for _, prop := range l.Entity.Properties {
			if prop.Name == "Xml" {
				if p, err = ParseProperties([]byte(prop.Value.Str()), p); err != nil {
					return nil, svcerr.With(svcerr.InternalError, "the stored service properties are unreadable: "+err.Error())
				}
			}
		}
	case svcerr.Is(err, svcerr.TableNotFound), svcerr.Is(err, svcerr.ResourceNotFound):
	default:
		return nil, err
	}
	st.props[account] = p
	return p, nil
}

// setProperties stores p as account's properties; they hold once the
// write is durable.
func (st *Store) setProperties(account string, p *Properties) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.ensureTable(); err != nil {
		return err
	}
	e := &engine.Entity{PartitionKey: account, RowKey: "properties",
		Properties: []engine.Property{{Name: "Xml", Value: edm.StringValue(string(p.AppendXML(nil)))}}}
	if _, err := st.store.Write(settingsTable, engine.Op{Kind: engine.InsertOrReplace, Entity: e}); err != nil {
		return err
	}
	st.props[account] = p
	return nil
}

func aclRow(table string) string { return "acl." + strings.ToLower(table) }

// acl returns the stored access policies of account's table.
func (st *Store) acl(account, table string) ([]auth.Policy, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	key := account + "/" + aclRow(table)
	if p, ok := st.acls[key]; ok {
		return p, nil
	}
	var out []auth.Policy
	l, err := st.store.Get(settingsTable, account, aclRow(table))
	switch {
	case err == nil:
		out = policiesOf(l.Entity)
	case svcerr.Is(err, svcerr.TableNotFound), svcerr.Is(err, svcerr.ResourceNotFound):
	default:
		return nil, err
	}
	st.acls[key] = out
	return out, nil
}

// setACL stores the policies of account's table; none deletes them.
func (st *Store) setACL(account, table string, policies []auth.Policy) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if err := st.ensureTable(); err != nil {
		return err
	}
	e := &engine.Entity{PartitionKey: account, RowKey: aclRow(table)}
	op := engine.Op{Kind: engine.Delete, Entity: e, IfMatch: "*"}
	if len(policies) > 0 {
		op = engine.Op{Kind: engine.InsertOrReplace, Entity: e}
		for i, p := range policies {
			n := strconv.Itoa(i)
			e.Properties = append(e.Properties,
				engine.Property{Name: "Id" + n, Value: edm.StringValue(p.ID)},
				engine.Property{Name: "Permissions" + n, Value: edm.StringValue(p.Permissions)},
				engine.Property{Name: "Start" + n, Value: edm.StringValue(timeText(p.Start))},
				engine.Property{Name: "Expiry" + n, Value: edm.StringValue(timeText(p.Expiry))})
		}
	}
	if _, err := st.store.Write(settingsTable, op); err != nil && !svcerr.Is(err, svcerr.ResourceNotFound) {
		return err
	}
	st.acls[account+"/"+aclRow(table)] = policies
	return nil
}

// policy finds one stored access policy, for auth.Verifier.Policies.
func (st *Store) policy(account, table, id string) (auth.Policy, bool) {
	ps, err := st.acl(account, table)
	if err != nil {
		return auth.Policy{}, false
	}
	for _, p := range ps {
		if p.ID == id {
			return p, true
		}
	}
	return auth.Policy{}, false
}

func (st *Store) ensureTable() error {
	if _, ok := st.store.TableExists(settingsTable); ok {
		return nil
	}
	if err := st.store.CreateTable(settingsTable); err != nil && !svcerr.Is(err, svcerr.TableAlreadyExists) {
		return err
	}
	return nil
}

// policiesOf reads back what setACL wrote: properties Id0, Permissions0,
// Start0, Expiry0, Id1, …
func policiesOf(e *engine.Entity) []auth.Policy {
	get := func(name string) (string, bool) {
		for _, p := range e.Properties {
			if p.Name == name {
				return p.Value.Str(), true
			}
		}
		return "", false
	}
	var out []auth.Policy
	for i := 0; ; i++ {
		n := strconv.Itoa(i)
		id, ok := get("Id" + n)
		if !ok {
			return out
		}
		p := auth.Policy{ID: id}
		p.Permissions, _ = get("Permissions" + n)
		if s, _ := get("Start" + n); s != "" {
			p.Start, _ = auth.ParseTime(s)
		}
		if s, _ := get("Expiry" + n); s != "" {
			p.Expiry, _ = auth.ParseTime(s)
		}
		out = append(out, p)
	}
}

// timeText writes a policy time as the service answers it, with seven
// fraction digits; the zero time is "".
func timeText(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC()
	b := make([]byte, 0, 28)
	b = appendInt(b, t.Year(), 4)
	b = append(b, '-')
	b = appendInt(b, int(t.Month()), 2)
	b = append(b, '-')
	b = appendInt(b, t.Day(), 2)
	b = append(b, 'T')
	b = appendInt(b, t.Hour(), 2)
	b = append(b, ':')
	b = appendInt(b, t.Minute(), 2)
	b = append(b, ':')
	b = appendInt(b, t.Second(), 2)
	b = append(b, '.')
	b = appendInt(b, t.Nanosecond()/100, 7)
	return string(append(b, 'Z'))
}

func appendInt(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
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
