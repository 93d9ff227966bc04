package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// PyDir holds the Python walk of the three services.
const PyDir = "engine/api/testdata/python"

// DebianPython is the interpreter Debian's python3-azure installs into.
// It is named in full: the python3 first on a developer's PATH may be
// another (pyenv's), which does not see Debian's packages.
const DebianPython = "/usr/bin/python3"

// pyModules are the SDK modules the walk imports.
const pyModules = "azure.data.tables, azure.storage.queue, azure.storage.blob"

// PythonWalk runs the Python walk (PyDir/walk.py) with Microsoft's
// Python SDKs, as Debian packages them, against the server started on
// free loopback ports with all three services. It installs the package
// python3-azure first when the interpreter cannot import the SDKs; when
// that fails the walk cannot run: a skip with the reason, a failure
// under CI. Each test of the walk is one check.
func PythonWalk(env Env) Tally {
	return pyWalk{python: DebianPython, install: aptInstall}.run(env)
}

// pyWalk is the Python tier with its interpreter and its installer, so
// that a test can give it ones that fail.
type pyWalk struct {
	python  string
	install func(out io.Writer) error
}

const pyCheck = "python walk"

func (w pyWalk) run(env Env) Tally {
	if err := w.ready(env.Out); err != nil {
		return env.CannotRun(pyCheck, err.Error())
	}
	tmp, err := os.MkdirTemp("", "tablelab-pywalk-")
	if err != nil {
		return Check(pyCheck, err)
	}
	defer os.RemoveAll(tmp)
	bin, err := localserver.Build(env.Root, tmp)
	if err != nil {
		return Check(pyCheck, err)
	}
	ends, err := freeEndpoints()
	if err != nil {
		return Check(pyCheck, err)
	}
	srv, err := localserver.StartAll(localserver.AllServices(bin, ends, "-memory"), tmp,
		[]string{ends.Blob, ends.Queue, ends.Table}, 20*time.Second)
	if err != nil {
		return Check(pyCheck, err)
	}
	defer srv.Stop()
	cmd := exec.Command(w.python, "walk.py")
	cmd.Dir = filepath.Join(env.Root, PyDir)
	cmd.Env = append(os.Environ(), "STORAGE_CONNECTION_STRING="+ends.ConnectionString(), "PYTHONDONTWRITEBYTECODE=1")
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, env.Out)
	cmd.Stderr = env.Out
	runErr := cmd.Run()
	t := CountTAP(out.String(), "python")
	if t.Passed+t.Failed+t.Skipped == 0 {
		t.Fail(pyCheck + ": no tests reported")
	}
	if runErr != nil && t.Failed == 0 {
		t.Fail(pyCheck + ": " + runErr.Error())
	}
	return t
}

// ready makes sure the interpreter imports the SDKs, installing them
// once if it does not.
func (w pyWalk) ready(log io.Writer) error {
	if w.canImport() == nil {
		return nil
	}
	fmt.Fprintf(log, "%s cannot import %s: installing python3-azure\n", w.python, pyModules)
	if err := w.install(log); err != nil {
		return fmt.Errorf("installing python3-azure: %v", err)
	}
	if err := w.canImport(); err != nil {
		return fmt.Errorf("python3-azure installed, yet %s cannot import %s: %v", w.python, pyModules, err)
	}
	return nil
}

func (w pyWalk) canImport() error {
	out, err := exec.Command(w.python, "-c", "import "+pyModules).CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			lines := strings.Split(msg, "\n")
			return errors.New(lines[len(lines)-1])
		}
		return err
	}
	return nil
}

// aptInstall installs Debian's python3-azure, reading the package lists
// first when the install finds none to install from (a machine whose
// lists were never read).
func aptInstall(log io.Writer) error {
	install := func() error {
		cmd := exec.Command("apt-get", "install", "-y", "--no-install-recommends", "python3-azure")
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = log, log
		return cmd.Run()
	}
	if install() == nil {
		return nil
	}
	update := exec.Command("apt-get", "update")
	update.Stdout, update.Stderr = log, log
	if err := update.Run(); err != nil {
		return fmt.Errorf("apt-get update: %v", err)
	}
	return install()
}

// freeEndpoints are three free loopback ports, one for each service:
// the Python walk needs no development port, so it takes none from
// whatever else runs on this machine. The three listeners stay open
// until all are chosen, so that no port is chosen twice.
func freeEndpoints() (localserver.Endpoints, error) {
	var e localserver.Endpoints
	for _, addr := range []*string{&e.Blob, &e.Queue, &e.Table} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return e, err
		}
		defer ln.Close()
		*addr = ln.Addr().String()
	}
	return e, nil
}
