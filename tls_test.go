//go:build !js

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files
// in dir, and returns their paths and a pool that trusts the certificate.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "tablelab test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// fakeToken is a credential handing out one unsigned JWT with claims.
type fakeToken struct{ claims map[string]any }

func (f fakeToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	jwt := enc(map[string]string{"alg": "RS256", "typ": "JWT"}) + "." + enc(f.claims) + ".c2lnbmF0dXJl"
	return azcore.AccessToken{Token: jwt, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// TestHTTPSAndOAuth runs the server with -cert, -key and -oauth basic and
// checks, through the Go SDK, that it answers over HTTPS with the account
// key, and with bearer tokens whose audience, issuer and lifetime hold,
// refusing each kind of bad token with AuthenticationFailed.
func TestHTTPSAndOAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary; skipped with -short")
	}
	dir, bin := buildServer(t)
	certFile, keyFile, pool := selfSigned(t, dir)
	addr := freeAddr(t)
	_, out := startBinary(t, bin, []string{addr}, "-memory", "-table-addr", addr, "-blob-addr=", "-queue-addr=", "-site-addr=",
		"-cert", certFile, "-key", keyFile, "-oauth", "basic")
	waitLog(t, out, "Table service on https://"+addr)
	waitLog(t, out, "DefaultEndpointsProtocol=https;")

	transport := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: transport, Retry: policy.RetryOptions{MaxRetries: -1}}}
	endpoint := "https://" + addr + "/devstoreaccount1/"
	conn := "DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=" + devKeyBase64() + ";TableEndpoint=" + endpoint
	svc, err := aztables.NewServiceClientFromConnectionString(conn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTable(ctx(), "Secured", nil); err != nil {
		t.Fatalf("shared key over HTTPS: %v", err)
	}

	now := time.Now().Unix()
	good := map[string]any{
		"aud": "https://storage.azure.com", "iss": "https://sts.windows.net/72f988bf-0000-0000-0000-000000000000/",
		"iat": now - 60, "nbf": now - 60, "exp": now + 3600,
	}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for kk, vv := range good {
			c[kk] = vv
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	client := func(claims map[string]any) *aztables.Client {
		c, err := aztables.NewClient(endpoint+"Secured", fakeToken{claims}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	entity := []byte(`{"PartitionKey":"p","RowKey":"r","Note":"by token"}`)
	for name, claims := range map[string]map[string]any{
		"storage audience":         good,
		"account table audience":   with("aud", "https://devstoreaccount1.table.core.windows.net"),
		"audience list, v2 issuer": with("aud", []string{"api://other", "e406a681-f3d4-42a8-90b6-c2b029497af1"}),
	} {
		if name == "audience list, v2 issuer" {
			claims["iss"] = "https://login.microsoftonline.com/72f988bf-0000-0000-0000-000000000000/v2.0"
		}
		c := client(claims)
		if _, err := c.UpsertEntity(ctx(), entity, nil); err != nil {
			t.Fatalf("%s: upsert: %v", name, err)
		}
		if got, err := c.GetEntity(ctx(), "p", "r", nil); err != nil || !strings.Contains(string(got.Value), "by token") {
			t.Fatalf("%s: get: %v %s", name, err, got.Value)
		}
	}
	// A token reaches the data, not the table's stored access policies,
	// which would let it mint SAS tokens: Azure's data roles grant no
	// action on them, and the service answers 404 ResourceNotFound.
	id := "readers"
	policy := []*aztables.SignedIdentifier{{ID: &id, AccessPolicy: &aztables.AccessPolicy{Permission: to.Ptr("r"),
		Start: to.Ptr(time.Now().Add(-time.Hour).UTC().Truncate(time.Second)), Expiry: to.Ptr(time.Now().Add(time.Hour).UTC().Truncate(time.Second))}}}
	tok := client(good)
	_, err = tok.GetAccessPolicy(ctx(), nil)
	wantCode(t, "a token getting the access policies", err, 404, "ResourceNotFound")
	_, err = tok.SetAccessPolicy(ctx(), &aztables.SetAccessPolicyOptions{TableACL: policy})
	wantCode(t, "a token setting the access policies", err, 404, "ResourceNotFound")
	owner := svc.NewClient("Secured")
	if _, err := owner.SetAccessPolicy(ctx(), &aztables.SetAccessPolicyOptions{TableACL: policy}); err != nil {
		t.Fatalf("the key setting the access policies: %v", err)
	}
	if got, err := owner.GetAccessPolicy(ctx(), nil); err != nil || len(got.SignedIdentifiers) != 1 {
		t.Fatalf("the key getting the access policies: %v %+v", err, got)
	}
	for name, claims := range map[string]map[string]any{
		"expired":                   with("exp", now-10),
		"not yet valid":             with("nbf", now+600),
		"no iat":                    with("iat", nil),
		"foreign issuer":            with("iss", "https://issuer.example/"),
		"another account":           with("aud", "https://someoneelse.table.core.windows.net"),
		"the queue service's":       with("aud", "https://devstoreaccount1.queue.core.windows.net"),
		"an audience of no storage": with("aud", "https://management.azure.com"),
	} {
		_, err := client(claims).GetEntity(ctx(), "p", "r", nil)
		wantCode(t, name, err, 403, "AuthenticationFailed")
	}
}

// wantCode fails t unless err is the service's answer status with code.
func wantCode(t *testing.T, what string, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != status || re.ErrorCode != code {
		t.Errorf("%s: %v, want %d %s", what, err, status, code)
	}
}

func ctx() context.Context { return context.Background() }

func devKeyBase64() string {
	return "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
}
