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

// DevStoreAddr is where UseDevelopmentStorage=true points the SDKs'
// Table clients.
const DevStoreAddr = "127.0.0.1:10002"

// ConnectionString is the explicit connection string of the development
// account on a Table service listening at addr.
func ConnectionString(addr string) string {
	return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + Key +
		";TableEndpoint=http://" + addr + "/devstoreaccount1"
}

// Endpoints are the host:port addresses of the three storage services.
type Endpoints struct {
	Blob, Queue, Table string
}

// DevEndpoints are where UseDevelopmentStorage=true points the SDKs:
// Blob on 10000, Queue on 10001, Table on 10002.
var DevEndpoints = Endpoints{Blob: "127.0.0.1:10000", Queue: "127.0.0.1:10001", Table: DevStoreAddr}

// ChooseEndpoints returns, for each service, its development address when
// nothing listens there now, and otherwise a free loopback port.
func ChooseEndpoints() (Endpoints, error) {
	e := DevEndpoints
	for _, addr := range []*string{&e.Blob, &e.Queue, &e.Table} {
		if Free(*addr) {
			continue
		}
		port, err := FreePort()
		if err != nil {
			return Endpoints{}, err
		}
		*addr = "127.0.0.1:" + strconv.Itoa(port)
	}
	return e, nil
}

// ConnectionString is the explicit connection string of the development
// account with the endpoints of all three services.
func (e Endpoints) ConnectionString() string {
	return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + Key +
		";BlobEndpoint=http://" + e.Blob + "/devstoreaccount1" +
		";QueueEndpoint=http://" + e.Queue + "/devstoreaccount1" +
		";TableEndpoint=http://" + e.Table + "/devstoreaccount1"
}

// Busy returns those of e's addresses that differ from the development
// ones: the services UseDevelopmentStorage=true would not reach.
func (e Endpoints) Busy() []string {
	var busy []string
	for _, p := range [][2]string{{e.Blob, DevEndpoints.Blob}, {e.Queue, DevEndpoints.Queue}, {e.Table, DevEndpoints.Table}} {
		if p[0] != p[1] {
			busy = append(busy, p[1])
		}
	}
	return busy
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
// addr with flags: the Table service alone, without the Blob and Queue
// services (which would take 10000 and 10001), the docs site (which
// would build itself in the background and take the site's port) or the
// request log.
func Tablelab(bin, addr string, flags ...string) []string {
	return append([]string{bin, "-table-addr", addr, "-blob-addr=", "-queue-addr=", "-site-addr=", "-quiet"}, flags...)
}

// AllServices is the command line of the tablelab server bin serving
// all three services at e, with flags, without the docs site or the
// request log.
func AllServices(bin string, e Endpoints, flags ...string) []string {
	return append([]string{bin, "-blob-addr", e.Blob, "-queue-addr", e.Queue, "-table-addr", e.Table, "-site-addr=", "-quiet"}, flags...)
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
	return StartAll(args, dir, []string{addr}, limit)
}

// StartAll runs args in dir and waits until every one of addrs accepts
// connections; the Process's Addr is the first.
func StartAll(args []string, dir string, addrs []string, limit time.Duration) (*Process, error) {
	p := &Process{Cmd: exec.Command(args[0], args[1:]...), Addr: addrs[0]}
	p.Cmd.Dir = dir
	p.Cmd.Stdout, p.Cmd.Stderr = &p.log, &p.log
	if err := p.Cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(limit)
	for _, addr := range addrs {
		if err := WaitListening(addr, time.Until(deadline)); err != nil {
			p.Stop()
			return nil, fmt.Errorf("%s did not start: %v\n%s", filepath.Base(args[0]), err, p.log.String())
		}
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
