//go:build !js

package server

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Cleared counts what a reset removed.
type Cleared struct {
	Tables     int `json:"tables"`
	Queues     int `json:"queues"`
	Containers int `json:"containers"`
}

func (c Cleared) String() string {
	return count(c.Tables, "table") + ", " + count(c.Queues, "queue") + " and " + count(c.Containers, "blob container")
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// Reset empties the stores between tests. With account "" it removes
// everything: every table, queue and blob container with all they hold,
// and what every account has set (service properties, CORS rules, stored
// access policies). With an account it removes what that account reaches:
// its queues and its settings, and the tables and blob containers, which
// on the local server every account shares (docs/compatibility.md); other
// accounts' queues and settings stay. A request served while a reset runs
// may leave something behind: reset between tests, not during one.
func (s *Server) Reset(account string) (Cleared, error) {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	account, _ = auth.Primary(account)
	var c Cleared
	var err error
	if s.tables != nil {
		if c.Tables, err = dropTables(s.tables); err != nil {
			return c, err
		}
	}
	if s.state.settings != nil {
		if err := s.state.settings.Reset(account); err != nil {
			return c, err
		}
	}
	if s.state.queues != nil {
		if c.Queues, err = s.state.queues.DeleteQueues(account); err != nil {
			return c, err
		}
	}
	if s.state.blobs != nil {
		if c.Containers, err = s.dropContainers(); err != nil {
			return c, err
		}
	}
	return c, nil
}

// dropTables deletes every table of store and returns how many.
func dropTables(store *engine.Store) (int, error) {
	var names []string
	q := engine.TableQuery{}
	for {
		page, err := store.QueryTables(q)
		if err != nil {
			return 0, err
		}
		names = append(names, page.Names...)
		if page.NextTableName == "" {
			break
		}
		q.NextTableName = page.NextTableName
	}
	n := 0
	for _, name := range names {
		switch err := store.DeleteTable(name); {
		case err == nil:
			n++
		case svcerr.Is(err, svcerr.TableNotFound), svcerr.Is(err, svcerr.ResourceNotFound):
		default:
			return n, err
		}
	}
	return n, nil
}

// dropContainers deletes every blob container with its blobs and returns
// how many.
func (s *Server) dropContainers() (int, error) {
	var names []string
	marker := ""
	for {
		page, err := s.state.blobs.ListContainers("", marker, 0)
		if err != nil {
			return 0, err
		}
		for _, c := range page.Containers {
			names = append(names, c.Name)
		}
		if page.NextMarker == "" {
			break
		}
		marker = page.NextMarker
	}
	n := 0
	for _, name := range names {
		switch err := s.state.blobs.DeleteContainer(name, nil); {
		case err == nil:
			n++
		case svcerr.Is(err, svcerr.ContainerNotFound):
		default:
			return n, err
		}
	}
	return n, nil
}

// knownAccount reports whether name (or its secondary) is an account the
// services answer for: one of the accounts, or any under Config.Loose,
// where requests need no account of their own.
func (s *Server) knownAccount(name string) bool {
	name, _ = auth.Primary(name)
	if s.cfg.Loose {
		return validAccountName(name)
	}
	for _, a := range s.accounts {
		if a.Name == name {
			return true
		}
	}
	return false
}

// validAccountName holds name to the service's rule: 3 to 24 lowercase
// letters and digits.
func validAccountName(name string) bool {
	if len(name) < 3 || len(name) > 24 {
		return false
	}
	return strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789") == ""
}
