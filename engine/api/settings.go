package api

import (
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Settings keeps what an account sets about its Table service: the
// service's properties (the CORS rules every request is held to among
// them) and each table's stored access policies. Package settings keeps
// them in a store; a host that gives none (the browser's, whose page has
// no other origin to admit and one owner) gets the service's defaults and
// a refusal to change them, and links none of that code.
type Settings interface {
	// PropertiesXML is the body of Get Table Service Properties.
	PropertiesXML(account string) ([]byte, error)
	// SetProperties reads a Set Table Service Properties body and keeps
	// what it sets.
	SetProperties(account string, body []byte) error
	// CorsRules are the account's CORS rules, in their order.
	CorsRules(account string) ([]CorsRule, error)
	// ACLXML is the body of Get Table ACL.
	ACLXML(account, table string) ([]byte, error)
	// SetACL reads a Set Table ACL body and keeps its policies; an
	// empty body removes them.
	SetACL(account, table string, body []byte) error
	// DeleteACL removes a deleted table's policies.
	DeleteACL(account, table string) error
	// Policy finds one stored access policy, for a SAS naming it.
	Policy(account, table, id string) (auth.Policy, bool)
}

// noSettings is the Settings of a host that keeps none.
type noSettings struct{}

func (noSettings) PropertiesXML(string) ([]byte, error) {
	return []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Logging><Version>1.0</Version><Delete>false</Delete><Read>false</Read><Write>false</Write><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></Logging><HourMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics><MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics><Cors /></StorageServiceProperties>`), nil
}

func (noSettings) SetProperties(string, []byte) error { return notKept() }

func (noSettings) CorsRules(string) ([]CorsRule, error) { return nil, nil }

func (noSettings) ACLXML(string, string) ([]byte, error) {
	return []byte(`<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers />`), nil
}

func (noSettings) SetACL(string, string, []byte) error { return notKept() }

func (noSettings) DeleteACL(string, string) error { return nil }

func (noSettings) Policy(string, string, string) (auth.Policy, bool) { return auth.Policy{}, false }

func notKept() error {
	return svcerr.With(svcerr.NotImplemented, "This host keeps no service settings: service properties and stored access policies need the local server or the Worker.")
}
