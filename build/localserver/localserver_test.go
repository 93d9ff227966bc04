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
	if args != "bin -table-addr 127.0.0.1:1 -site-addr= -quiet -memory" {
		t.Errorf("Tablelab = %q", args)
	}
}
