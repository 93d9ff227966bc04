package auth

import (
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Permission is one kind of access a request needs.
type Permission uint8

// Entity permissions (a table SAS's r, a, u, d) and table permissions.
const (
	Read   Permission = iota + 1 // query and get entities
	Add                          // insert entities
	Update                       // update and merge entities
	Delete                       // delete entities
	ListTables
	CreateTable
	DeleteTable
)

// Key is a PartitionKey and RowKey pair, a bound of a SAS key range.
type Key struct {
	PartitionKey, RowKey string
}

// Grant is what an authenticated request may do. The zero Grant may do
// nothing.
type Grant struct {
	full          bool // an account key, or anonymous access allowed
	account       bool // an account SAS
	resourceTypes string
	perms         string
	table         string // a service SAS's table, lower-cased
	ranged        bool
	lo, hi        Key
}

// letters are the sp letters that allow a permission: a table SAS uses
// r, a, u, d; an account SAS also w (write), l (list), c (create).
func (p Permission) letters(account bool) string {
	switch p {
	case Read:
		return "r"
	case Add:
		if account {
			return "aw"
		}
		return "a"
	case Update:
		if account {
			return "uw"
		}
		return "u"
	case Delete, DeleteTable:
		return "d"
	case ListTables:
		return "lr"
	case CreateTable:
		return "cw"
	}
	return ""
}

func (p Permission) tableLevel() bool { return p >= ListTables }

// CheckTable reports whether the request may perform a table-level
// operation (list, create or delete tables), or query the entities of a
// table (Read); a query under a SAS with a key range sees only the rows in
// that range (see KeyRange).
func (g Grant) CheckTable(p Permission, table string) error {
	if g.full {
		return nil
	}
	if g.account {
		rt := "o"
		if p.tableLevel() {
			rt = "c"
		}
		if !strings.Contains(g.resourceTypes, rt) {
			return svcerr.New(svcerr.AuthorizationResourceTypeMismatch)
		}
		return g.permit(p)
	}
	// A service SAS covers the entities of its own table only.
	if p.tableLevel() || !strings.EqualFold(table, g.table) {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	return g.permit(p)
}

// Check reports whether the request may perform an entity operation on
// the entity with the given keys.
func (g Grant) Check(p Permission, table, pk, rk string) error {
	if err := g.CheckTable(p, table); err != nil {
		return err
	}
	if g.ranged && !g.contains(pk, rk) {
		return svcerr.Newf(svcerr.AuthorizationFailure, "%s The entity is outside the key range of the shared access signature.", svcerr.AuthorizationFailure.Message())
	}
	return nil
}

func (g Grant) permit(p Permission) error {
	if !strings.ContainsAny(g.perms, p.letters(g.account)) {
		return svcerr.New(svcerr.AuthorizationPermissionMismatch)
	}
	return nil
}

// contains orders keys by PartitionKey, then RowKey: the range runs from
// (spk, srk) to (epk, erk), both ends included; an empty bound leaves that
// end open, and an empty row key leaves the row open within its
// partition.
func (g Grant) contains(pk, rk string) bool {
	if g.lo.PartitionKey != "" {
		if pk < g.lo.PartitionKey || pk == g.lo.PartitionKey && g.lo.RowKey != "" && rk < g.lo.RowKey {
			return false
		}
	}
	if g.hi.PartitionKey != "" {
		if pk > g.hi.PartitionKey || pk == g.hi.PartitionKey && g.hi.RowKey != "" && rk > g.hi.RowKey {
			return false
		}
	}
	return true
}

// KeyRange returns the key range a SAS confines the request to, if any.
func (g Grant) KeyRange() (lo, hi Key, ok bool) {
	return g.lo, g.hi, g.ranged
}
