// Package sitecheck is the test command's tier for the docs site: it
// builds dist/ as `go run ./build site` does, engine included, and checks
// what it built.
package sitecheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tablelab/tablelab/build/site"
	"github.com/tablelab/tablelab/build/testrun"
)

// Tier builds the site into dist/ under env.Root (where the browser tests
// find it), checks its navigation, links, anchors, scripts and engine
// files, and builds it a second time to prove the same input gives the
// same bytes.
func Tier(env testrun.Env) testrun.Tally {
	out := filepath.Join(env.Root, "dist")
	t := testrun.Check("site: build content/ into dist/", site.Build(site.Options{Root: env.Root, Out: out}))
	if t.Failed > 0 {
		return t
	}
	t.Add(testrun.Check("site: every nav page exists, every link and anchor resolves, run and exercise pages load play/examples.js with every part, engine files present", site.Check(out, true)))
	t.Add(testrun.Check("site: a second build gives the same bytes", sameAgain(env.Root, out)))
	t.Add(requiredPages(env))
	t.Add(testrun.Check("site: an exercise with Check and a solution on every pattern page and key concept page", site.CheckExercises(filepath.Join(env.Root, "content"), site.ExercisePages)))
	t.Add(testrun.Check("site: the case study, diagnosis, evolution and round-trip pages exist with runnable examples", site.CheckPages(filepath.Join(env.Root, "content"), site.GuidePages, nil)))
	t.Add(testrun.Check("site: the case study has an entity chart, three or more versions each closed by a scorecard with volumes and money lines, all in the reading order", site.CheckCaseStudy(filepath.Join(env.Root, "content"), site.CaseStudyOverview, site.CaseStudyVersions)))
	return t
}

// requiredPages checks that the pattern guide's pages exist, each with a
// runnable example.
func requiredPages(env testrun.Env) testrun.Tally {
	const what = "site: every required page of the pattern guide exists with a runnable example"
	return testrun.Check(what, site.CheckPages(filepath.Join(env.Root, "content"), site.RequiredPages, site.PagesWithoutRuns))
}

// sameAgain builds the site again elsewhere and compares the two trees.
func sameAgain(root, first string) error {
	tmp, err := os.MkdirTemp("", "tablelab-site-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	second := filepath.Join(tmp, "dist")
	if err := site.Build(site.Options{Root: root, Out: second}); err != nil {
		return err
	}
	a, err := tree(first)
	if err != nil {
		return err
	}
	b, err := tree(second)
	if err != nil {
		return err
	}
	if len(a) != len(b) {
		return fmt.Errorf("%d files, then %d", len(a), len(b))
	}
	for name, data := range a {
		if !bytes.Equal(data, b[name]) {
			return fmt.Errorf("%s differs between two builds", name)
		}
	}
	return nil
}

// tree maps every file under dir to its bytes.
func tree(dir string) (map[string][]byte, error) {
	files := make(map[string][]byte)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	return files, err
}
