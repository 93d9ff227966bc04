package engine

import (
	"slices"
	"strconv"
	"testing"
)

// pagedStore holds partitions a (three entities, N 1 to 3), b (two, N 0:
// no match for N gt 0) and c (two, N 4 and 5).
func pagedStore(t *testing.T) *Store {
	t.Helper()
	s := newStore(t)
	n := 0
	for _, pk := range []string{"a", "b", "c"} {
		count := map[string]int{"a": 3, "b": 2, "c": 2}[pk]
		for i := range count {
			v := 0
			if pk != "b" {
				n++
				v = n
			}
			if _, err := s.Write("People", Op{Kind: Insert, Entity: ent(pk, strconv.Itoa(i), "N", v)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	return s
}

// pageSummary is what a test compares of a page: the row of each entity
// as "pk/rk", where the next page starts, and what it examined.
type pageSummary struct {
	rows     string
	next     string
	examined int
}

// pagesOf follows q's continuations to the end and summarizes each page.
func pagesOf(t *testing.T, s *Store, q Query) []pageSummary {
	t.Helper()
	var out []pageSummary
	for range 100 {
		pg, err := s.Query("People", q)
		if err != nil {
			t.Fatal(err)
		}
		var sum pageSummary
		for _, e := range pg.Entities {
			sum.rows += e.PartitionKey + "/" + e.RowKey + " "
		}
		sum.examined = pg.Plan.Examined
		if pg.Plan.Returned != len(pg.Entities) {
			t.Fatalf("returned %d, %d entities", pg.Plan.Returned, len(pg.Entities))
		}
		if pg.Next != nil {
			sum.next = pg.Next.PartitionKey + "/" + pg.Next.RowKey
		}
		out = append(out, sum)
		if pg.Next == nil {
			return out
		}
		q.After = pg.Next
	}
	t.Fatal("no last page after 100")
	return nil
}

// TestPartitionBreaks checks that under Paging.PartitionBreaks a table
// scan's page ends where the next partition begins — a partition without
// a match gives an empty page that still carries a continuation — that
// following the continuations returns what one page does without it,
// and that a query confined to one partition is not broken.
func TestPartitionBreaks(t *testing.T) {
	s := pagedStore(t)
	whole := pagesOf(t, s, Query{Filter: "N gt 0"})
	if len(whole) != 1 || whole[0].rows != "a/0 a/1 a/2 c/0 c/1 " || whole[0].examined != 7 {
		t.Fatalf("without paging: %+v", whole)
	}
	broken := Paging{PartitionBreaks: true}
	for _, filter := range []string{"N gt 0", "PartitionKey ge 'a' and N gt 0", ""} {
		got := pagesOf(t, s, Query{Filter: filter, Paging: broken})
		want := []pageSummary{
			{rows: "a/0 a/1 a/2 ", next: "b/0", examined: 3},
			{rows: "", next: "c/0", examined: 2},
			{rows: "c/0 c/1 ", examined: 2},
		}
		if filter == "" {
			want[1].rows = "b/0 b/1 "
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: pages %+v, want %+v", filter, got, want)
		}
	}
	// A page still ends at $top, or at a budget, inside a partition, and
	// the next resumes there.
	want := []pageSummary{
		{rows: "a/0 a/1 ", next: "a/2", examined: 2},
		{rows: "a/2 ", next: "b/0", examined: 1},
		{rows: "", next: "c/0", examined: 2},
		{rows: "c/0 c/1 ", examined: 2},
	}
	for _, q := range []Query{{Top: 2, Paging: broken}, {Paging: Paging{MaxExamined: 2, PartitionBreaks: true}}} {
		q.Filter = "N gt 0"
		if got := pagesOf(t, s, q); !slices.Equal(got, want) {
			t.Errorf("%+v: pages %+v, want %+v", q, got, want)
		}
	}
	for _, filter := range []string{"PartitionKey eq 'a'", "PartitionKey eq 'c' and N gt 4", "PartitionKey eq 'a' and RowKey eq '1'"} {
		if got := pagesOf(t, s, Query{Filter: filter, Paging: broken}); len(got) != 1 {
			t.Errorf("%q (one partition): pages %+v, want one", filter, got)
		}
	}
}

// TestPagingBudget checks Paging.MaxExamined: a page ends once it has
// examined that many entities, matching or not, so a sparse filter gives
// short and empty pages with continuations, and following them returns
// every match once, in order.
func TestPagingBudget(t *testing.T) {
	s := pagedStore(t)
	for _, filter := range []string{"N gt 0", "N gt 0 and PartitionKey ge ''", ""} {
		got := pagesOf(t, s, Query{Filter: filter, Paging: Paging{MaxExamined: 2}})
		var rows string
		for i, p := range got {
			rows += p.rows
			if p.examined > 2 || p.examined < 1 {
				t.Errorf("%q page %d examined %d, want 1 or 2", filter, i, p.examined)
			}
		}
		want := "a/0 a/1 a/2 c/0 c/1 "
		if filter == "" {
			want = "a/0 a/1 a/2 b/0 b/1 c/0 c/1 "
		}
		if rows != want || len(got) != 4 {
			t.Errorf("%q: %d pages %+v, rows %q, want 4 pages of %q", filter, len(got), got, rows, want)
		}
		if filter == "N gt 0" && got[1].rows != "a/2 " {
			t.Errorf("%q: second page %+v, want a/2 alone (b/0 examined, no match)", filter, got[1])
		}
	}
	// A budget of one: a page per entity, the non-matching ones empty,
	// each with where the next starts.
	got := pagesOf(t, s, Query{Filter: "N gt 0", Paging: Paging{MaxExamined: 1}})
	if len(got) != 7 || got[3] != (pageSummary{next: "b/1", examined: 1}) || got[4] != (pageSummary{next: "c/0", examined: 1}) {
		t.Errorf("budget 1: pages %+v, want 7, the fourth and fifth empty", got)
	}
	// A budget above the store's leaves the store's.
	small := New(Options{Now: fixedClock, MaxExamined: 3})
	if err := small.CreateTable("People"); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := small.Write("People", Op{Kind: Insert, Entity: ent("p", strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	pg, err := small.Query("People", Query{Paging: Paging{MaxExamined: 100}})
	if err != nil || pg.Plan.Examined != 3 || pg.Next == nil {
		t.Errorf("budget over the store's: examined %d, next %v, %v; want 3 and a continuation", pg.Plan.Examined, pg.Next, err)
	}
}
