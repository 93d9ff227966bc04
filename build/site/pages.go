package site

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// RequiredPages are the pages of the pattern guide (issue 13), as paths
// under content/. Each must exist and, except those in PagesWithoutRuns,
// hold at least one `js run` example.
var RequiredPages = []string{
	"concepts/data-model.md",
	"concepts/choosing-keys.md",
	"concepts/queries.md",
	"concepts/sort-order.md",
	"concepts/transactions.md",
	"concepts/concurrency.md",
	"concepts/paging-and-projection.md",
	"concepts/relationships.md",
	"concepts/shared-access-signatures.md",
	"concepts/hot-partitions.md",
	"concepts/cosmos-db.md",
	"patterns/map.md",
	"patterns/intra-partition-secondary-index.md",
	"patterns/inter-partition-secondary-index.md",
	"patterns/eventually-consistent-transactions.md",
	"patterns/index-entities.md",
	"patterns/denormalization.md",
	"patterns/compound-key.md",
	"patterns/log-tail.md",
	"patterns/high-volume-delete.md",
	"patterns/data-series.md",
	"patterns/wide-entities.md",
	"patterns/large-entities.md",
	"patterns/prepend-append-anti-pattern.md",
	"patterns/log-data-anti-pattern.md",
	"patterns/table-name-key.md",
}

// PagesWithoutRuns are the required pages that need no runnable example:
// the pattern map is a picture of the others.
var PagesWithoutRuns = []string{"patterns/map.md"}

// CheckPages reports, for the content folder dir, every page of required
// (paths under dir) that does not exist, and every one not in withoutRuns
// that has no `js run` block. It parses each page as the site build does,
// so a run block inside a list or a quote counts and a `js run` inside
// another fence does not.
func CheckPages(dir string, required, withoutRuns []string) error {
	md := newMarkdown()
	var errs []error
	for _, rel := range required {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("content/%s: missing", rel))
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if slices.Contains(withoutRuns, rel) {
			continue
		}
		doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext()))
		if !hasRunBlock(doc) {
			errs = append(errs, fmt.Errorf("content/%s: no runnable example (a ```js run block)", rel))
		}
	}
	return errors.Join(errs...)
}

func hasRunBlock(doc ast.Node) bool {
	found := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n.(*RunBlock); ok && entering {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}
