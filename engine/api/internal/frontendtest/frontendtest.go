// Package frontendtest holds checks that every HTTP front end of the
// protocol core must pass, whatever server library carries it.
package frontendtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// OversizedBodies checks that a server at base (an account URL) whose
// body limit is 1 MiB answers bodies over it, declared or chunked, with
// the service's 413 RequestBodyTooLarge.
func OversizedBodies(t *testing.T, base string) {
	t.Helper()
	// Declared too large: refused before reading.
	resp, err := http.Post(base+"/Tables", "application/json", strings.NewReader(strings.Repeat("x", 2<<20)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(body), `"code":"RequestBodyTooLarge"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	// Chunked, with no length: cut off at the limit.
	pr, pw := io.Pipe()
	go func() {
		chunk := strings.Repeat("y", 64<<10)
		for i := 0; i < 40; i++ {
			if _, err := pw.Write([]byte(chunk)); err != nil {
				return
			}
		}
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", base+"/$batch", pr)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.Contains(string(body), "RequestBodyTooLarge") {
		t.Fatalf("chunked: %d %s", resp.StatusCode, body)
	}
}
