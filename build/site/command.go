package site

import (
	"flag"
	"fmt"
	"path/filepath"
)

// Main is the site command, `go run ./build site [-out dist] [-check]`,
// run from the module's root.
func Main(root string, args []string) error {
	fs := flag.NewFlagSet("site", flag.ContinueOnError)
	out := fs.String("out", "dist", "`folder` to write the site into (relative to the module's root)")
	check := fs.Bool("check", false, "after building, check the site's navigation, links, anchors and scripts")
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
	if err := Build(Options{Root: root, Out: dir}); err != nil {
		return err
	}
	fmt.Println("site: wrote", dir)
	if *check {
		if err := Check(dir, true); err != nil {
			return err
		}
		fmt.Println("site: navigation, links, anchors and scripts check out")
	}
	return nil
}
