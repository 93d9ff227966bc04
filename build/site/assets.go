package site

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/chroma/v2/styles"
)

// writeChromaCSS writes the code colours: the light palette by default,
// the dark one when the reader's system prefers it, and either when the
// reader picked it with the theme toggle (data-theme on <html>).
func writeChromaCSS(name string) error {
	var light, dark bytes.Buffer
	f := chromaFormatter()
	if err := f.WriteCSS(&light, styles.Get(lightStyle)); err != nil {
		return err
	}
	if err := f.WriteCSS(&dark, styles.Get(darkStyle)); err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("/* Code colours, written by the site build from chroma's " + lightStyle + " and " + darkStyle + " styles. */\n")
	b.Write(scopeCSS(light.String(), `:root[data-theme="light"]`))
	b.WriteString("@media (prefers-color-scheme: dark) {\n")
	b.Write(scopeCSS(dark.String(), `:root:not([data-theme="light"])`))
	b.WriteString("}\n")
	b.Write(scopeCSS(dark.String(), `:root[data-theme="dark"]`))
	return writeFile(name, b.Bytes())
}

// scopeCSS puts scope before the selector of each of chroma's rules, one
// a line, written as "/* Name */ selector { … }". The light palette gets a
// scope too, so that a chosen light theme beats a dark system preference.
func scopeCSS(css, scope string) []byte {
	var b bytes.Buffer
	for _, line := range strings.Split(strings.TrimSpace(css), "\n") {
		b.WriteString(strings.Replace(line, "*/ .", "*/ "+scope+" .", 1))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// compressible lists the kinds of file worth a .gz copy beside them.
var compressible = map[string]bool{".html": true, ".css": true, ".js": true, ".mjs": true, ".json": true, ".wasm": true, ".svg": true}

// precompress writes name.gz beside each compressible file of at least
// 8 KiB under dir, for servers that hand out the copy as it is. The gzip
// header carries no name or time, so the same file gives the same bytes.
func precompress(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible[filepath.Ext(p)] {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Size() < 8<<10 {
			return nil
		}
		if _, err := os.Stat(p + ".gz"); err == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
		if err != nil {
			return err
		}
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		if err := os.WriteFile(p+".gz", b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("precompress: %w", err)
		}
		return nil
	})
}
