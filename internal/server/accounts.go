//go:build !js

package server

import (
	"fmt"
	"path/filepath"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
)

// An account is what one account keeps in stores of its own: its tables
// and its blob containers, which nothing of another account's requests
// reaches. Queues and what accounts set are kept in one store each,
// keyed by account, and need no store per account to stay apart.
type account struct {
	name   string
	tables *engine.Store // nil without a Table service
	blobs  *blob.Service // nil without a Blob service
}

// accountsDir is the data directory's sub-directory that holds every
// account's but the development account's, one directory each.
const accountsDir = "accounts"

// accountDir is where the stores of the account named lie, relative to
// the data directory: the development account's in the data directory
// itself, as they did when every account shared them, so a data directory
// written then opens with its data; every other account's in a directory
// of its own.
func accountDir(name string) string {
	if name == auth.DevAccountName {
		return ""
	}
	return filepath.Join(accountsDir, name)
}

// checkAccounts refuses account names the service would not take, which
// would also be unsafe or ambiguous as directory names ("..", "a/b", two
// names differing only by case on a file system that ignores it).
func checkAccounts(accounts []auth.Account) error {
	for _, a := range accounts {
		if !validAccountName(a.Name) {
			return fmt.Errorf("account %q: an account name is 3 to 24 lowercase letters and digits", a.Name)
		}
		if len(a.Keys) == 0 {
			return fmt.Errorf("account %s has no key", a.Name)
		}
	}
	return nil
}

// account returns the account named (or its secondary location), nil
// when the server has no stores for it.
func (s *Server) account(name string) *account {
	name, _ = auth.Primary(name)
	for _, a := range s.data {
		if a.name == name {
			return a
		}
	}
	return nil
}

// A router is one service's protocol cores, one per account, as one
// api.Service: it hands each request to the core of the account the
// request names, read as every core reads it (api.Account), and a
// request for an account it does not know to the first core, whose
// verifier refuses it (or, with anonymous access allowed, serves it from
// the first account's stores). A $batch and a continuation name their
// account in every request, so they stay with one core.
type router struct {
	names []string // the accounts' names, in the order of cores
	cores []api.Service
}

// route is the service over cores, one for each account named in names:
// the only core itself when there is one, so that a server of one
// account answers as if there were no router.
func route(names []string, cores []api.Service) api.Service {
	if len(cores) == 1 {
		return cores[0]
	}
	return &router{names: names, cores: cores}
}

// core finds the core of the account r names, by a linear search: a
// server has a handful of accounts.
func (rt *router) core(r *api.Request) api.Service {
	if r == nil {
		return rt.cores[0]
	}
	name, _ := auth.Primary(api.Account(r))
	for i, n := range rt.names {
		if n == name {
			return rt.cores[i]
		}
	}
	return rt.cores[0]
}

// Serve implements api.Service.
func (rt *router) Serve(r *api.Request) *api.Response { return rt.core(r).Serve(r) }

// Error implements api.Service.
func (rt *router) Error(r *api.Request, err error) *api.Response { return rt.core(r).Error(r, err) }
