//go:build !js

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestServicePropertiesSurviveAKill sets the Table service's properties,
// kills the server with SIGKILL once the set is acknowledged, and checks
// that the restarted server answers them and enforces their CORS rule:
// the settings store is as durable as the tables'.
func TestServicePropertiesSurviveAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	data := filepath.Join(dir, "data")
	props := `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors><CorsRule>` +
		`<AllowedOrigins>http://localhost:5173</AllowedOrigins><AllowedMethods>GET,POST</AllowedMethods>` +
		`<AllowedHeaders>*</AllowedHeaders><ExposedHeaders>*</ExposedHeaders><MaxAgeInSeconds>30</MaxAgeInSeconds>` +
		`</CorsRule></Cors></StorageServiceProperties>`
	s := startCrashServer(t, bin, data)
	if status, body, _ := s.raw("PUT", s.base+"/?restype=service&comp=properties", []byte(props), nil); status != 202 {
		s.kill()
		t.Fatalf("set: %d %s", status, body)
	}
	s.kill()
	s = startCrashServer(t, bin, data)
	defer s.kill()
	status, body, _ := s.raw("GET", s.base+"/?restype=service&comp=properties", nil, nil)
	if status != 200 || !bytes.Contains(body, []byte("<AllowedOrigins>http://localhost:5173</AllowedOrigins>")) {
		t.Fatalf("after the kill: %d %s", status, body)
	}
	status, _, h := s.raw("OPTIONS", s.base+"/Tables", nil, map[string]string{"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST"})
	if status != 200 || !strings.EqualFold(h.Get("Access-Control-Allow-Origin"), "http://localhost:5173") {
		t.Fatalf("preflight after the kill: %d %v", status, h)
	}
}
