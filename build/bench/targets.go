package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/build/localserver"
)

// target is one server under load.
type target struct {
	name string
	base string               // http://127.0.0.1:PORT/devstoreaccount1
	site string               // host:port of its site, when it serves one
	proc *localserver.Process // nil for a server this run did not start
}

func (t *target) stop() { t.proc.Stop() }

// peakRSS is 0 for a server this run did not start.
func (t *target) peakRSS() int64 { return t.proc.PeakRSS() }

// setup is what starting a target needs: the server binary, Azurite and
// a scratch directory; to compare two builds, the baseline's binary; and
// the work of the busy floors (-spins).
type setup struct {
	bin, azurite, tmp string
	baseline          string
	spins             []time.Duration
}

// spinFloor is the target name of a floor server that busy-waits d
// before each answer.
func spinFloor(d time.Duration) string { return "floor+" + d.String() }

// baseline is the target name of the baseline build (-baseline).
const baseline = "baseline"

// start runs the named target on a fresh loopback port, with the data
// of a table of size entities in its own directory.
func (s setup) start(name string, size int) (*target, error) {
	if ext, ok := strings.CutPrefix(name, "ext="); ok {
		// A tablelab already running, started by hand (to profile it,
		// say); its figures count as tablelab's.
		return &target{name: "tablelab", base: "http://" + ext + "/devstoreaccount1"}, nil
	}
	port, err := localserver.FreePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var args []string
	site := ""
	spin, busy := strings.CutPrefix(name, "floor+")
	if busy {
		name = "floor"
	}
	switch name {
	case "floor":
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		// Each floor its own directory: they may run at once.
		dir, err := os.MkdirTemp(s.tmp, "floor-")
		if err != nil {
			return nil, err
		}
		args = []string{self, "floor-server", "-addr", addr, "-dir", dir}
		if busy {
			args = append(args, "-spin", spin)
		}
	case "tablelab":
		args = localserver.Tablelab(s.bin, addr, "-data", filepath.Join(s.tmp, fmt.Sprintf("data-%d", size)))
	case baseline:
		args = localserver.Tablelab(s.baseline, addr, "-data", filepath.Join(s.tmp, fmt.Sprintf("baseline-%d", size)))
	case inspectorIdle, inspectorWatched:
		// The site only for the inspector's endpoints: no request log,
		// as for tablelab.
		port, err := localserver.FreePort()
		if err != nil {
			return nil, err
		}
		site = fmt.Sprintf("127.0.0.1:%d", port)
		if err := siteStub(s.tmp); err != nil {
			return nil, err
		}
		args = localserver.Tablelab(s.bin, addr, "-data", filepath.Join(s.tmp, fmt.Sprintf("%s-%d", name, size)), "-site-addr", site)
	case "tablelab-in-memory":
		// The same durable server, holding every entity in memory rather
		// than reading it back from its files.
		args = localserver.Tablelab(s.bin, addr, "-data", filepath.Join(s.tmp, fmt.Sprintf("kept-%d", size)), "-keep-in-memory")
	case "azurite-memory":
		args = []string{s.azurite, "--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(port), "--inMemoryPersistence", "--disableTelemetry", "--silent"}
	case "azurite-disk":
		loc := filepath.Join(s.tmp, fmt.Sprintf("azurite-%d", size))
		if err := os.MkdirAll(loc, 0o755); err != nil {
			return nil, err
		}
		args = []string{s.azurite, "--tableHost", "127.0.0.1", "--tablePort", strconv.Itoa(port), "--location", loc, "--disableTelemetry", "--silent"}
	default:
		return nil, fmt.Errorf("unknown target %q", name)
	}
	addrs := []string{addr}
	if site != "" {
		addrs = append(addrs, site)
	}
	p, err := localserver.StartAll(args, s.tmp, addrs, 60*time.Second)
	if err != nil {
		return nil, err
	}
	return &target{name: name, base: "http://" + addr + "/devstoreaccount1", site: site, proc: p}, nil
}

// restart starts t's server again with the same arguments, on the same
// directory, and returns it with the time it took to listen.
func (s setup) restart(t *target) (*target, time.Duration, error) {
	start := time.Now()
	p, err := localserver.Start(t.proc.Cmd.Args, s.tmp, t.proc.Addr, 60*time.Second)
	if err != nil {
		return nil, 0, err
	}
	return &target{name: t.name, base: t.base, proc: p}, time.Since(start), nil
}

// jsDir is the benchmark's own npm folder: Azurite, pinned by its lock
// file, which only the benchmark installs.
const jsDir = "build/bench/js"

// installAzurite brings jsDir's packages to what its lock file pins,
// unless they are there already, and returns Azurite's Table server.
func installAzurite(root string) (string, error) {
	dir := filepath.Join(root, jsDir)
	bin := filepath.Join(dir, "node_modules", ".bin", "azurite-table")
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return "", err
	}
	// npm ci writes node_modules/.package-lock.json; one newer than the
	// lock file means the install is current.
	if got, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil && !got.ModTime().Before(lock.ModTime()) {
		if _, err := os.Stat(bin); err == nil {
			return bin, nil
		}
	}
	fmt.Println("npm ci in", jsDir)
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm ci in %s: %w", jsDir, err)
	}
	return bin, nil
}
