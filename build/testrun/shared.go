package testrun

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// shared is the work one Run does once for every tier that needs it: the
// server binary, which the Go tests, the walks, the README, the browser
// and the playground's tests all start, and each npm folder's install.
type shared struct {
	mu  sync.Mutex
	dir string // a temporary folder for the binary, removed by close
	bin string
	err error
	// npm holds the result of each folder's npm ci.
	npm map[string]error
}

func newShared() *shared { return &shared{npm: map[string]error{}} }

func (s *shared) close() {
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// ServerBinary returns the server binary built from the module, building
// it on the first call of a Run; every tier then starts the same binary,
// and the processes they run find it in TABLELAB_BIN (BinEnv).
func (e Env) ServerBinary() (string, error) {
	s := e.shared()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bin != "" || s.err != nil {
		return s.bin, s.err
	}
	if s.dir, s.err = os.MkdirTemp("", "tablelab-test-bin-"); s.err != nil {
		return "", s.err
	}
	bin := filepath.Join(s.dir, "tablelab")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = e.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, e.Out), io.MultiWriter(&out, e.Out)
	if err := cmd.Run(); err != nil {
		s.err = fmt.Errorf("building the server: %v\n%s", err, out.String())
		return "", s.err
	}
	fmt.Fprintln(e.Out, "built the server once for every tier:", bin)
	s.bin = bin
	return bin, nil
}

// BinEnv is the environment variable that gives a process the server
// binary, TABLELAB_BIN=path, or the error of its build.
func (e Env) BinEnv() (string, error) {
	bin, err := e.ServerBinary()
	return "TABLELAB_BIN=" + bin, err
}

// npmCI installs dir's packages exactly as its lock file pins them, once
// a Run: a second tier that needs the folder finds it installed.
func (e Env) npmCI(dir string) error {
	s := e.shared()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err, done := s.npm[dir]; done {
		return err
	}
	err := npmCI(e, dir)
	s.npm[dir] = err
	return err
}

// NpmCI is npmCI for the tiers of other packages.
func (e Env) NpmCI(dir string) error { return e.npmCI(dir) }

func (e Env) shared() *shared {
	if e.run == nil {
		// A tier run outside Run, by a test: nothing is shared.
		return newShared()
	}
	return e.run
}
