//go:build !js

package server

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
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
// everything: every account's tables, queues and blob containers with
// all they hold, and what every account has set (service properties, CORS
// rules, stored access policies). With an account it removes that
// account's, and nothing of another's. A request served while a reset
// runs may leave something behind: reset between tests, not during one.
//
// An account the server has no stores for (one named under Config.Loose
// without being configured) has only queues and settings of its own to
// remove: its tables and containers are the first account's.
func (s *Server) Reset(account string) (Cleared, error) {
	s.resetMu.Lock()
	defer s.resetMu.Unlock()
	account, _ = auth.Primary(account)
	var c Cleared
	for _, a := range s.data {
		if account != "" && a.name != account {
			continue
		}
		if a.tables != nil {
			n, err := dropTables(a.tables)
			c.Tables += n
			if err != nil {
				return c, err
			}
		}
		if a.blobs != nil {
			n, err := dropContainers(a.blobs)
			c.Containers += n
			if err != nil {
				return c, err
			}
		}
	}
	if s.settings != nil {
		if err := s.settings.Reset(account); err != nil {
			return c, err
		}
	}
	if s.queues != nil {
		n, err := s.queues.DeleteQueues(account)
		c.Queues += n
		if err != nil {
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

// dropContainers deletes every blob container of blobs with its blobs and
// returns how many.
func dropContainers(blobs *blob.Service) (int, error) {
	var names []string
	marker := ""
	for {
		page, err := blobs.ListContainers("", marker, 0)
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
		switch err := blobs.DeleteContainer(name, nil); {
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
