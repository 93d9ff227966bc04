package sitehttp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Sources are the paths under the module's root that a built site comes
// from: its pages and templates, the engine the wasm is built from, and
// the builder itself (package site, which this one does not import: it
// would link goldmark and chroma into the server).
var Sources = []string{"content", "site", "wasm", "engine", "build/site", "go.mod", "go.sum"}

// Stale reports whether the site in out is missing or older than any of
// its sources under root. The age of a built site is that of its
// index.html, which Build writes before the folder is swapped in.
func Stale(root, out string) (bool, error) {
	built, err := os.Stat(filepath.Join(out, "index.html"))
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	newest, err := newestSource(root)
	if err != nil {
		return false, err
	}
	return newest.After(built.ModTime()), nil
}

// newestSource is the latest modification time among the Sources.
func newestSource(root string) (time.Time, error) {
	var newest time.Time
	for _, s := range Sources {
		err := filepath.WalkDir(filepath.Join(root, filepath.FromSlash(s)), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.ModTime().After(newest) {
				newest = info.ModTime()
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return time.Time{}, err
		}
	}
	return newest, nil
}
