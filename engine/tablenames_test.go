package engine

import (
	"errors"
	"testing"

	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestTableNamesIgnoreCaseByDefault(t *testing.T) {
	s := New(Options{})
	if err := s.CreateTable("Orders"); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateTable("orders"); !isCode(err, svcerr.TableAlreadyExists) {
		t.Fatalf("second table differing in case: %v, want TableAlreadyExists", err)
	}
	if name, ok := s.TableExists("ORDERS"); !ok || name != "Orders" {
		t.Fatalf("TableExists(ORDERS) = %q, %v", name, ok)
	}
}

func TestCaseSensitiveTableNames(t *testing.T) {
	s := New(Options{CaseSensitiveTableNames: true})
	for _, name := range []string{"Orders", "orders"} {
		if err := s.CreateTable(name); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	if _, ok := s.TableExists("ORDERS"); ok {
		t.Fatal("ORDERS found, though no table has that exact name")
	}
	if _, err := s.Write("Orders", Op{Kind: Insert, Entity: &Entity{PartitionKey: "p", RowKey: "big"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("orders", Op{Kind: Insert, Entity: &Entity{PartitionKey: "p", RowKey: "small"}}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Orders": "big", "orders": "small"} {
		page, err := s.Query(name, Query{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entities) != 1 || page.Entities[0].RowKey != want || page.Table != name {
			t.Fatalf("%s holds %v (table %q), want only %s", name, page.Entities, page.Table, want)
		}
	}
	if _, err := s.Query("ORDERS", Query{}); !isCode(err, svcerr.TableNotFound) {
		t.Fatalf("query of ORDERS: %v, want TableNotFound", err)
	}
	if err := s.DeleteTable("orders"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.TableExists("Orders"); !ok {
		t.Fatal("deleting orders took Orders too")
	}
}

func isCode(err error, code svcerr.Code) bool {
	var e *svcerr.Error
	return errors.As(err, &e) && e.Code == code
}
