package testrun

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestPythonWalkCannotRun checks the Python tier without its SDKs: it
// tries to install them, and when that fails, or they still do not
// import, the walk is a skip saying why, and under CI a failure.
func TestPythonWalkCannotRun(t *testing.T) {
	installs := 0
	for name, install := range map[string]func(io.Writer) error{
		"install fails":      func(io.Writer) error { installs++; return errors.New("no package lists") },
		"installed, useless": func(io.Writer) error { installs++; return nil },
	} {
		w := pyWalk{python: "/bin/false", install: install}
		got := w.run(Env{Root: t.TempDir(), Out: io.Discard})
		if got.Skipped != 1 || got.Passed+got.Failed != 0 || !strings.Contains(got.Skips[0], "python3-azure") {
			t.Errorf("%s: %+v, want one skip naming python3-azure", name, got)
		}
		got = w.run(Env{Root: t.TempDir(), Out: io.Discard, CI: true})
		if got.Failed != 1 || got.Skipped != 0 || !strings.Contains(got.Failures[0], "cannot run under CI=true") {
			t.Errorf("%s under CI: %+v, want one failure", name, got)
		}
	}
	if installs != 4 {
		t.Errorf("%d installs, want one a run", installs)
	}
}

// TestPythonWalkReady checks that an interpreter that imports the SDKs
// is used as it is: nothing is installed.
func TestPythonWalkReady(t *testing.T) {
	w := pyWalk{python: "/bin/true", install: func(io.Writer) error { t.Error("installed though the SDKs import"); return nil }}
	if err := w.ready(io.Discard); err != nil {
		t.Fatal(err)
	}
}
