package api_test

import (
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/internal/servicetest"
)

const tableHost = "127.0.0.1:10002"

// TestAccessPoliciesRefuseTokens checks that a table's stored access
// policies are the account owner's: a bearer token reaches the entities,
// not the policies.
func TestAccessPoliciesRefuseTokens(t *testing.T) {
	s := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()},
		Bearer: func(string, auth.Request) error { return nil }}})
	if r := servicetest.AsToken(s, tableHost, "POST", "/Tables", `{"TableName":"people"}`); r.Status != 201 {
		t.Fatalf("a token creating a table: %d %s", r.Status, r.Body)
	}
	servicetest.TokensRefusedPolicies(t, s, tableHost, "/people?comp=acl")
}

// TestPreflightWithoutRules checks the CORS preflights the Table service
// answers when the account has set no CORS rules (engine/api/settings
// TestCORS has those with rules).
func TestPreflightWithoutRules(t *testing.T) {
	servicetest.Preflights(t, api.NewServer(engine.New(engine.Options{}), api.Options{}), tableHost, "/people")
}
