package engine

import (
	"slices"
	"strings"

	"github.com/tidwall/btree"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/keyspace"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Table name limits of the service.
const (
	MinTableNameLen = 3
	MaxTableNameLen = 63
)

// ValidateTableName checks a name against the service's rules: 3 to 63
// ASCII letters and digits, starting with a letter, and not the reserved
// name "tables" in any case.
func ValidateTableName(name string) error {
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		digit := c >= '0' && c <= '9'
		if !letter && !(digit && i > 0) {
			return svcerr.New(svcerr.InvalidResourceName)
		}
	}
	if len(name) < MinTableNameLen || len(name) > MaxTableNameLen {
		return svcerr.With(svcerr.OutOfRangeInput, "The specified resource name length is not within the permissible limits.")
	}
	if strings.EqualFold(name, "tables") {
		return svcerr.New(svcerr.InvalidInput)
	}
	return nil
}

// CreateTable creates a table. Names are unique ignoring case (unless the
// store's Options make them case-sensitive), and keep the case they were
// created with.
func (s *Store) CreateTable(name string) error {
	if err := ValidateTableName(name); err != nil {
		return err
	}
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.lookup(name) != nil {
		s.mu.Unlock()
		return svcerr.New(svcerr.TableAlreadyExists)
	}
	t := &table{id: s.nextID, name: strings.Clone(name)}
	s.nextID++
	s.addTable(t)
	w := s.journalAppend(func(b []byte) []byte { return keyspace.AppendCreateTable(b, t.id, t.name) })
	s.mu.Unlock()
	return s.wait(w)
}

// DeleteTable deletes a table and every entity in it, as one operation.
func (s *Store) DeleteTable(name string) error {
	s.mu.Lock()
	if err := s.writable(); err != nil {
		s.mu.Unlock()
		return err
	}
	t := s.lookup(name)
	if t == nil {
		s.mu.Unlock()
		return svcerr.New(svcerr.ResourceNotFound)
	}
	s.dropTable(t)
	w := s.journalAppend(func(b []byte) []byte { return keyspace.AppendDeleteTable(b, t.id) })
	s.mu.Unlock()
	return s.wait(w)
}

// TableExists reports whether the named table exists, and its name as it
// was created.
func (s *Store) TableExists(name string) (string, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.lookup(name); t != nil {
		return t.name, true
	}
	return "", false
}

func (s *Store) addTable(t *table) {
	s.byName[t.name] = t
	s.byLower[strings.ToLower(t.name)] = t
	// The listing is copied on write: QueryTables reads it without the lock.
	i, _ := slices.BinarySearchFunc(s.names, t.name, tableNameCompare)
	names := make([]string, 0, len(s.names)+1)
	names = append(append(append(names, s.names[:i]...), t.name), s.names[i:]...)
	s.names = names
}

// dropTable removes a table and its entities. Callers hold mu for writing.
func (s *Store) dropTable(t *table) {
	delete(s.byName, t.name)
	delete(s.byLower, strings.ToLower(t.name))
	names := make([]string, 0, len(s.names))
	for _, n := range s.names {
		if n != t.name {
			names = append(names, n)
		}
	}
	s.names = names
	// Table ids are never reused, so the id's whole range is this table's.
	lo := keyspace.Key(t.id, "", "")
	hi := keyspace.Key(t.id+1, "", "")
	s.tree.Ascend(lo, func(it keyspace.Item) bool {
		if it.Table != t.id {
			return false
		}
		s.dataBytes -= it.Size()
		return true
	})
	s.tree.DeleteRange(lo, hi, &btree.DeleteRangeOptions{NoReturn: true})
}

// tableNameLess orders table listings: by name ignoring case, then by the
// exact name, so the order is total.
func tableNameLess(a, b string) bool { return tableNameCompare(a, b) < 0 }

// tableNameCompare is tableNameLess as slices' comparison.
func tableNameCompare(a, b string) int {
	if c := strings.Compare(strings.ToLower(a), strings.ToLower(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// TableQuery selects tables.
type TableQuery struct {
	// Filter is an OData $filter on TableName; empty selects every table.
	Filter string
	// Top is the page size, 1 to 1000; zero means 1000.
	Top int
	// NextTableName resumes a listing where a previous page ended.
	NextTableName string
}

// TablePage is one page of a table listing.
type TablePage struct {
	Names []string
	// NextTableName is where the next page starts; empty on the last page.
	NextTableName string
}

type tableRecord string

// Property implements odata.Record for a table listing: a table has one
// property, TableName.
func (r tableRecord) Property(name string) (edm.Value, bool) {
	if name == "TableName" {
		return edm.StringValue(string(r)), true
	}
	return edm.Value{}, false
}

// QueryTables lists tables in name order, a page at a time.
func (s *Store) QueryTables(q TableQuery) (TablePage, error) {
	top, err := pageSize(q.Top)
	if err != nil {
		return TablePage{}, err
	}
	var f *odata.Filter
	if strings.TrimSpace(q.Filter) != "" {
		if f, err = odata.Parse(q.Filter); err != nil {
			return TablePage{}, err
		}
	}
	s.mu.RLock()
	names := s.names
	s.mu.RUnlock()
	var page TablePage
	for _, n := range names {
		if q.NextTableName != "" && tableNameLess(n, q.NextTableName) {
			continue
		}
		if f != nil && !f.Match(tableRecord(n)) {
			continue
		}
		if len(page.Names) == top {
			page.NextTableName = n
			break
		}
		page.Names = append(page.Names, n)
	}
	return page, nil
}
