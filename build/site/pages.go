package site

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"go.abhg.dev/goldmark/frontmatter"
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

// ExercisePages are the pages that must set an exercise (issue 22): every
// pattern page but the map, and the key concept pages. Each needs a
// ```js exercise block with its solution and check (see Exercise).
var ExercisePages = exercisePages()

// keyConcepts are the concept pages that set an exercise.
var keyConcepts = []string{
	"concepts/choosing-keys.md",
	"concepts/queries.md",
	"concepts/sort-order.md",
	"concepts/transactions.md",
	"concepts/concurrency.md",
	"concepts/paging-and-projection.md",
	"concepts/hot-partitions.md",
}

func exercisePages() []string {
	pages := slices.Clone(keyConcepts)
	for _, p := range RequiredPages {
		if strings.HasPrefix(p, PatternDir+"/") && !slices.Contains(PagesWithoutRuns, p) {
			pages = append(pages, p)
		}
	}
	return pages
}

// PagesWithoutRuns are the required pages that need no runnable example:
// the pattern map is a picture of the others.
var PagesWithoutRuns = []string{"patterns/map.md"}

// CaseStudyOverview is the case study's first page (issue 22): the
// access patterns with their volumes and the entity chart.
const CaseStudyOverview = "case-study/access-patterns.md"

// CaseStudyVersions are the case study's versions of the design, in
// order: each must close with a scorecard given volumes (see
// CheckCaseStudy).
var CaseStudyVersions = []string{
	"case-study/v1-channels-first.md",
	"case-study/v2-my-channels.md",
	"case-study/v3-the-sidebars-bill.md",
	"case-study/v4-the-all-hands.md",
}

// GuidePages are the pages issue 22 adds beside the pattern guide, each of
// which must hold a runnable example: the case study, the pages on
// diagnosis and on evolving a live design, and round trips.
var GuidePages = append([]string{
	CaseStudyOverview,
	"production/diagnosis.md",
	"production/evolving-a-design.md",
	"concepts/round-trips.md",
}, CaseStudyVersions...)

// CheckCaseStudy reports, for the content folder dir, what the case study
// lacks: an entity chart on its overview page, at least three versions,
// each whose last runnable example calls scorecard with volumes and
// declares the money lines it prints ("in all: $… a month"), and a place
// for every page of it in the reading order (the front matter path: of
// the page that sets one out).
func CheckCaseStudy(dir, overview string, versions []string) error {
	var errs []error
	if len(versions) < 3 {
		errs = append(errs, fmt.Errorf("the case study has %d versions of its design, want at least 3", len(versions)))
	}
	errs = append(errs, eachPage(dir, []string{overview}, func(rel string, doc ast.Node, _ parser.Context) []error {
		if !has[*EntityChart](doc) {
			return []error{fmt.Errorf("content/%s: no entity chart (an ```entity-chart block)", rel)}
		}
		return nil
	}))
	errs = append(errs, eachPage(dir, versions, func(rel string, doc ast.Node, _ parser.Context) []error {
		var last *RunBlock
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if rb, ok := n.(*RunBlock); ok && entering {
				last = rb
			}
			return ast.WalkContinue, nil
		})
		switch {
		case last == nil:
			return []error{fmt.Errorf("content/%s: no runnable example", rel)}
		case !strings.Contains(last.Source, "scorecard(") || !strings.Contains(last.Source, "perSecond"):
			return []error{fmt.Errorf("content/%s:%d: the last example is not a scorecard given volumes (scorecard(…, {perSecond: …}))", rel, last.Line)}
		case !strings.Contains(last.Expected, " a month\n") || !strings.Contains(last.Expected, "in all: $"):
			return []error{fmt.Errorf("content/%s:%d: the last example's output declares no money lines (… a month, in all: $…)", rel, last.Line)}
		}
		return nil
	}))
	path, err := readingOrder(dir)
	if err != nil {
		errs = append(errs, err)
	}
	for _, p := range append([]string{overview}, versions...) {
		if err == nil && !slices.Contains(path, p) {
			errs = append(errs, fmt.Errorf("content/%s: not in the reading order (the path: of the page that sets it out)", p))
		}
	}
	return errors.Join(errs...)
}

// readingOrder is the path: that a page under dir sets out, or an error
// when no page sets one.
func readingOrder(dir string) ([]string, error) {
	var path []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") || path != nil {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		pc := parser.NewContext()
		newMarkdown().Parser().Parse(text.NewReader(src), parser.WithContext(pc))
		var fm frontMatter
		if data := frontmatter.Get(pc); data != nil && data.Decode(&fm) == nil && len(fm.Path) > 0 {
			path = fm.Path
		}
		return nil
	})
	if err == nil && path == nil {
		err = fmt.Errorf("content: no page sets out a reading order (front matter path:)")
	}
	return path, err
}

// CheckPages reports, for the content folder dir, every page of required
// (paths under dir) that does not exist, and every one not in withoutRuns
// that has no `js run` block. It parses each page as the site build does,
// so a run block inside a list or a quote counts and a `js run` inside
// another fence does not.
func CheckPages(dir string, required, withoutRuns []string) error {
	return eachPage(dir, required, func(rel string, doc ast.Node, _ parser.Context) []error {
		if slices.Contains(withoutRuns, rel) || hasRunBlock(doc) {
			return nil
		}
		return []error{fmt.Errorf("content/%s: no runnable example (a ```js run block)", rel)}
	})
}

// CheckExercises reports, for the content folder dir, every page of
// pages (paths under dir) that is missing or sets no exercise: a ```js
// exercise block followed by its ```js solution and ```json check
// blocks, the check one the grader can read. Mistakes in an exercise's
// blocks are reported with their lines.
func CheckExercises(dir string, pages []string) error {
	return eachPage(dir, pages, func(rel string, doc ast.Node, pc parser.Context) []error {
		var errs []error
		for _, e := range RunErrors(pc) {
			e.File = "content/" + rel
			errs = append(errs, e)
		}
		if !has[*Exercise](doc) {
			errs = append(errs, fmt.Errorf("content/%s: no exercise (a ```js exercise block, its ```js solution and its ```json check)", rel))
		}
		return errs
	})
}

// eachPage parses each page of pages (paths under dir) as the site build
// does and hands it to check, reporting a missing page and whatever check
// finds.
func eachPage(dir string, pages []string, check func(rel string, doc ast.Node, pc parser.Context) []error) error {
	md := newMarkdown()
	var errs []error
	for _, rel := range pages {
		src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("content/%s: missing", rel))
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pc := parser.NewContext()
		doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
		errs = append(errs, check(rel, doc, pc)...)
	}
	return errors.Join(errs...)
}

func hasRunBlock(doc ast.Node) bool { return has[*RunBlock](doc) }

// has reports whether doc holds a node of type T.
func has[T ast.Node](doc ast.Node) bool {
	found := false
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := n.(T); ok && entering {
			found = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}
