package site

import (
	"flag"
	"fmt"
	"path/filepath"
)

// Main is the site command, `go run ./build site [-out dist] [-check] [-no-engine]`,
// run from the module's root.
func Main(root string, args []string) error {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	out := fs.String("out", "dist", "`folder` to write the site into (relative to the module's root)")
	check := fs.Bool("check", false, "after building, check the site's navigation, links, anchors and scripts")
	noEngine := fs.Bool("no-engine", false, "leave out dist/engine/ (the pages only: their examples cannot run)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("site: unexpected arguments %v", fs.Args())
	}
	dir := *out
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	if err := Build(Options{Root: root, Out: dir, NoEngine: *noEngine}); err != nil {
		return err
	}
	fmt.Println("site: wrote", dir)
	if *check {
		if err := Check(dir, !*noEngine); err != nil {
			return err
		}
		fmt.Println("site: navigation, links, anchors and scripts check out")
	}
	return nil
}
