//go:build !js

// Package tablelabtest runs tablelab inside a Go test, as
// net/http/httptest runs an HTTP handler: the Azure Blob, Queue and Table
// services on free loopback ports, their data in the test's temporary
// directory, stopped when the test ends. Tests point the real Azure SDKs
// at its connection string.
//
//	func TestOrders(t *testing.T) {
//		srv := tablelabtest.Start(t)
//		svc, err := aztables.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
//		…
//	}
//
// Each Start is a server of its own, so parallel tests do not share data;
// Reset empties one between subtests. The package links the storage
// services and their stores, not the docs site, and no SDK.
package tablelabtest

import (
	"encoding/base64"
	"path/filepath"
	"testing"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/internal/server"
)

// A Server is tablelab serving a test.
type Server struct {
	// ConnectionString is the development account's connection string
	// naming all three services, as the SDKs' FromConnectionString
	// constructors take it.
	ConnectionString string
	// BlobURL, QueueURL and TableURL are the development account's
	// endpoints, such as http://127.0.0.1:40123/devstoreaccount1.
	BlobURL, QueueURL, TableURL string
	// AccountName and AccountKey are the development account's name and
	// key (base64), for a shared-key credential.
	AccountName, AccountKey string

	t   testing.TB
	srv *server.Server
}

// Start starts a server for t and registers its Close with t.Cleanup;
// it fails t when the server cannot start. The data is kept in files in
// t.TempDir(), as the local server keeps it, but not synced to the disk:
// a test's data need not outlive a crash of the machine.
func Start(t testing.TB) *Server {
	t.Helper()
	srv, err := server.Start(server.Config{
		BlobAddr:  "127.0.0.1:0",
		QueueAddr: "127.0.0.1:0",
		TableAddr: "127.0.0.1:0",
		DataDir:   filepath.Join(t.TempDir(), "tablelab-data"),
		NoSync:    true,
		Logf:      t.Logf,
	})
	if err != nil {
		t.Fatalf("tablelabtest: %v", err)
	}
	s := &Server{
		ConnectionString: srv.ConnectionString(),
		BlobURL:          srv.URL("Blob"),
		QueueURL:         srv.URL("Queue"),
		TableURL:         srv.URL("Table"),
		AccountName:      auth.DevAccountName,
		AccountKey:       base64.StdEncoding.EncodeToString(auth.DevAccount().Keys[0]),
		t:                t,
		srv:              srv,
	}
	t.Cleanup(s.Close)
	return s
}

// Reset empties the server: every table, queue and blob container with
// all they hold, and the service properties and access policies set. Call
// it between subtests, while no request is under way, with the test that
// asks; it fails that test if the stores fail.
func (s *Server) Reset(t testing.TB) {
	t.Helper()
	if _, err := s.srv.Reset(""); err != nil {
		t.Fatalf("tablelabtest: reset: %v", err)
	}
}

// Close stops the server, finishing the requests under way, and closes
// its stores. Start registers it with t.Cleanup; calling it again does
// nothing.
func (s *Server) Close() {
	if err := s.srv.Close(); err != nil {
		s.t.Errorf("tablelabtest: closing the server: %v", err)
	}
}
