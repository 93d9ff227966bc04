// Package localserver starts servers on loopback for the build's tools:
// tablelab built from the module, the floor server and Azurite, as child
// processes that the caller stops by their PID.
package localserver

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Key is the development account's well-known key.
const Key = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// DevStoreAddr is where UseDevelopmentStorage=true points the SDKs.
const DevStoreAddr = "127.0.0.1:10002"

// ConnectionString is the explicit connection string of the development
// account on a server listening at addr.
func ConnectionString(addr string) string {
	return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + Key +
		";TableEndpoint=http://" + addr + "/devstoreaccount1"
}

// FreePort returns a loopback port nobody listens on now.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Free reports whether addr can be listened on now.
func Free(addr string) bool {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// WaitListening dials addr until it answers or limit has passed.
func WaitListening(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Build compiles the server of the module at root into dir and returns
// the binary's path.
func Build(root, dir string) (string, error) {
	bin := filepath.Join(dir, "tablelab")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the server: %w", err)
	}
	return bin, nil
}

// Tablelab is the command line of the tablelab server bin listening on
// addr with flags: the Table service alone, without the docs site (which
// would build itself in the background and take the site's port) or the
// request log.
func Tablelab(bin, addr string, flags ...string) []string {
	return append([]string{bin, "-table-addr", addr, "-site-addr=", "-quiet"}, flags...)
}

// A Process is a server started by this program.
type Process struct {
	Cmd  *exec.Cmd
	Addr string // host:port it listens on
	// log is what the process prints, read only once it has stopped.
	log     bytes.Buffer
	stopped bool
}

// Start runs args in dir and waits until addr accepts connections.
func Start(args []string, dir, addr string, limit time.Duration) (*Process, error) {
	p := &Process{Cmd: exec.Command(args[0], args[1:]...), Addr: addr}
	p.Cmd.Dir = dir
	p.Cmd.Stdout, p.Cmd.Stderr = &p.log, &p.log
	if err := p.Cmd.Start(); err != nil {
		return nil, err
	}
	if err := WaitListening(addr, limit); err != nil {
		p.Stop()
		return nil, fmt.Errorf("%s did not start: %v\n%s", filepath.Base(args[0]), err, p.log.String())
	}
	return p, nil
}

// Stop kills the process (the one this program started, by its PID) and
// waits for it; stopping it again does nothing.
func (p *Process) Stop() {
	if p == nil || p.Cmd.Process == nil || p.stopped {
		return
	}
	p.stopped = true
	_ = p.Cmd.Process.Kill()
	_ = p.Cmd.Wait()
}

// PeakRSS is the process's high-water resident set in bytes, from /proc,
// or 0 where that cannot be read.
func (p *Process) PeakRSS() int64 {
	if p == nil || p.Cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.Cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}
