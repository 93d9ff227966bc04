// Package sdkconformance_test drives tablelab's REST front end, the one
// the local server runs (fasthttp), with the real Azure SDK for Go
// (aztables) over loopback HTTP, operation by operation, asserting what
// the service would answer.
package sdkconformance_test

import (
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apifasthttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/settings"
)

const devKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

// startServer serves a fresh in-memory store on a loopback port and
// returns the account endpoint, e.g. http://127.0.0.1:PORT/devstoreaccount1.
func startServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := apifasthttp.NewServer(api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}, Settings: settings.New(nil)}), apifasthttp.Config{}, nil)
	go srv.Serve(ln)
	t.Cleanup(func() { _ = srv.Shutdown() })
	return "http://" + ln.Addr().String() + "/devstoreaccount1"
}

func connString(endpoint string) string {
	return "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + devKey + ";TableEndpoint=" + endpoint + "/"
}

// headerRecorder is an azcore policy that keeps the last response's
// headers, to read tablelab's plan headers through the SDK.
type headerRecorder struct {
	mu   sync.Mutex
	last http.Header
}

func (h *headerRecorder) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp != nil {
		h.mu.Lock()
		h.last = resp.Header.Clone()
		h.mu.Unlock()
	}
	return resp, err
}

func (h *headerRecorder) get(name string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last.Get(name)
}

// newService returns a service client for a fresh server, and the
// recorder of its responses' headers.
func newService(t *testing.T) (*aztables.ServiceClient, *headerRecorder, string) {
	t.Helper()
	endpoint := startServer(t)
	rec := &headerRecorder{}
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{
		PerCallPolicies: []policy.Policy{rec},
		Retry:           policy.RetryOptions{MaxRetries: -1},
	}}
	svc, err := aztables.NewServiceClientFromConnectionString(connString(endpoint), opts)
	if err != nil {
		t.Fatal(err)
	}
	return svc, rec, endpoint
}
