package localserver

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

func TestFree(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if Free(addr) {
		t.Errorf("Free(%s) with a listener on it", addr)
	}
	ln.Close()
	if !Free(addr) {
		t.Errorf("Free(%s) after the listener closed", addr)
	}
}

// A process that never listens is stopped, and the error carries what it
// printed.
func TestStartReportsAProcessThatDoesNotListen(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// This test binary, asked to run no test: it prints PASS and exits.
	_, err = Start([]string{os.Args[0], "-test.run=^$", "-test.v"}, ".", addr, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not start") || !strings.Contains(err.Error(), "PASS") {
		t.Fatalf("Start of a process that never listens: %v", err)
	}
}

func TestTablelabServesTheTableServiceAlone(t *testing.T) {
	args := strings.Join(Tablelab("bin", "127.0.0.1:1", "-memory"), " ")
	if args != "bin -table-addr 127.0.0.1:1 -blob-addr= -queue-addr= -site-addr= -quiet -memory" {
		t.Errorf("Tablelab = %q", args)
	}
}

func TestAllServices(t *testing.T) {
	e := Endpoints{Blob: "127.0.0.1:1", Queue: "127.0.0.1:2", Table: "127.0.0.1:3"}
	args := strings.Join(AllServices("bin", e, "-memory"), " ")
	if args != "bin -blob-addr 127.0.0.1:1 -queue-addr 127.0.0.1:2 -table-addr 127.0.0.1:3 -site-addr= -quiet -memory" {
		t.Errorf("AllServices = %q", args)
	}
	want := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + Key +
		";BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;QueueEndpoint=http://127.0.0.1:2/devstoreaccount1;TableEndpoint=http://127.0.0.1:3/devstoreaccount1"
	if got := e.ConnectionString(); got != want {
		t.Errorf("ConnectionString = %q", got)
	}
	if got := strings.Join(e.Busy(), " "); got != "127.0.0.1:10000 127.0.0.1:10001 127.0.0.1:10002" {
		t.Errorf("Busy = %q", got)
	}
	if got := DevEndpoints.Busy(); len(got) != 0 {
		t.Errorf("DevEndpoints.Busy = %q", got)
	}
}

// ChooseEndpoints keeps a development address that is free and moves
// one that is taken to a free port.
func TestChooseEndpoints(t *testing.T) {
	ln, err := net.Listen("tcp", DevEndpoints.Queue)
	if err != nil {
		t.Skipf("%s is taken already: %v", DevEndpoints.Queue, err)
	}
	defer ln.Close()
	e, err := ChooseEndpoints()
	if err != nil {
		t.Fatal(err)
	}
	if e.Queue == DevEndpoints.Queue || !Free(e.Queue) {
		t.Errorf("queue at %s, with %s taken", e.Queue, DevEndpoints.Queue)
	}
	for _, p := range [][2]string{{e.Blob, DevEndpoints.Blob}, {e.Table, DevEndpoints.Table}} {
		if Free(p[1]) && p[0] != p[1] {
			t.Errorf("%s is free, but the service was moved to %s", p[1], p[0])
		}
	}
}

// StartAll waits for every address, and fails, with what the process
// printed, when one of them never listens.
func TestStartAllWaitsForEveryAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	never := fmt.Sprintf("127.0.0.1:%d", port)
	// This test binary, asked to run no test, listens on nothing itself;
	// the first address answers (this test listens there), the second
	// never does.
	_, err = StartAll([]string{os.Args[0], "-test.run=^$", "-test.v"}, ".", []string{ln.Addr().String(), never}, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "did not start") {
		t.Fatalf("StartAll with an address nothing listens on: %v", err)
	}
}
