package worker

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
)

// Main is `go run ./build worker [-o dir]`: it writes the deployable
// folder and reports its size against the limit.
func Main(root string, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	dir := fs.String("o", filepath.Join("build", "worker", "out"), "the folder to write (relative to the module root)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	target := *dir
	if !filepath.IsAbs(target) {
		target = filepath.Join(root, target)
	}
	s, err := Build(root, target)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %s: %s\n", target, s)
	fmt.Fprintf(out, "deploy: cd %s && wrangler secret put TABLELAB_ACCOUNTS && wrangler deploy\n", target)
	return s.CheckLimit()
}
