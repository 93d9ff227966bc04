package main

import (
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/settings"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// dirSettings is the api.Settings of a partition's server. What an
// account sets about its Table service lives in its directory object;
// a partition asks for it only when a request needs it (one naming an
// Origin reads the CORS rules, a SAS naming a stored policy reads the
// table's policies), so a change applies at once everywhere. The
// answers are read with package settings' own parsers.
type dirSettings struct {
	call    caller
	account string
}

func (d *dirSettings) fetch(table string) ([]byte, error) {
	ans, err := d.call(dirName(d.account), internal(opSettings, hdrAccount, d.account, hdrTable, table))
	if err != nil {
		return nil, svcerr.With(svcerr.InternalError, "tablelab: the account's directory did not answer: "+err.Error())
	}
	if ans.status != 200 {
		return nil, errStatus(ans)
	}
	return ans.body.Bytes(), nil
}

// PropertiesXML implements api.Settings.
func (d *dirSettings) PropertiesXML(account string) ([]byte, error) { return d.fetch("") }

// CorsRules implements api.Settings.
func (d *dirSettings) CorsRules(account string) ([]api.CorsRule, error) {
	body, err := d.fetch("")
	if err != nil {
		return nil, err
	}
	st := settings.New(nil)
	if err := st.SetProperties(account, body); err != nil {
		return nil, err
	}
	return st.CorsRules(account)
}

// ACLXML implements api.Settings.
func (d *dirSettings) ACLXML(account, table string) ([]byte, error) { return d.fetch(table) }

// Policy implements api.Settings.
func (d *dirSettings) Policy(account, table, id string) (auth.Policy, bool) {
	body, err := d.fetch(table)
	if err != nil {
		return auth.Policy{}, false
	}
	st := settings.New(nil)
	if st.SetACL(account, table, body) != nil {
		return auth.Policy{}, false
	}
	return st.Policy(account, table, id)
}

// The directory's settings change only through the directory.

// SetProperties implements api.Settings.
func (d *dirSettings) SetProperties(string, []byte) error { return errNotHere }

// SetACL implements api.Settings.
func (d *dirSettings) SetACL(string, string, []byte) error { return errNotHere }

// DeleteACL implements api.Settings.
func (d *dirSettings) DeleteACL(string, string) error { return errNotHere }

var errNotHere = svcerr.With(svcerr.InternalError, "tablelab: a partition's object changed the account's settings")
