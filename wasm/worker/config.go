package main

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/wasm/stores"
)

// The Worker's settings, read from its environment: plain vars from
// wrangler.toml, and secrets (`wrangler secret put`) for the keys.
const (
	// envAccounts holds the accounts as name:key[:key2];… with keys in
	// base64, as the local server's -accounts flag takes them. A secret.
	envAccounts = "TABLELAB_ACCOUNTS"
	// envDev set to "1" lets the development account's well-known key
	// in (the only account when envAccounts is empty) and turns on the
	// test hooks. Never on a deployment others can reach.
	envDev = "TABLELAB_DEV"
	// envStorage is "memory" for the in-isolate stores: ephemeral, each
	// isolate with its own, all lost when the isolate goes. Anything else
	// keeps the data in Durable Objects.
	envStorage = "TABLELAB_STORAGE"
	// envPorts names the ports that select the Blob, Queue and Table
	// services, in that order, comma-separated (by default the
	// development storage's 10000, 10001, 10002).
	envPorts = "TABLELAB_PORTS"
)

// config is what the Worker was told by its environment.
type config struct {
	accounts []auth.Account
	// dev allows the development key and the test hooks.
	dev bool
	// memory keeps the stores in the isolate: ephemeral.
	memory bool
	// ports are the ports that select each service, by stores.Service.
	ports [3]string
}

// readConfig reads the Worker's settings through getenv. With no
// account and no dev flag there is nothing anyone could sign with, and
// the development key on a Worker is a key the whole world knows: both
// are refused.
func readConfig(getenv func(string) string) (config, error) {
	c := config{
		dev:    getenv(envDev) == "1",
		memory: getenv(envStorage) == "memory",
		ports:  [3]string{"10000", "10001", "10002"},
	}
	if p := getenv(envPorts); p != "" {
		f := strings.Split(p, ",")
		if len(f) != 3 {
			return c, errors.New(envPorts + " must name three ports, for Blob, Queue and Table")
		}
		for i := range f {
			c.ports[i] = strings.TrimSpace(f[i])
		}
	}
	accounts, err := auth.ParseAccounts(getenv(envAccounts))
	if err != nil {
		return c, errors.New(envAccounts + ": " + err.Error())
	}
	dev := auth.DevAccount()
	for _, a := range accounts {
		for _, k := range a.Keys {
			if bytes.Equal(k, dev.Keys[0]) && !c.dev {
				return c, errors.New(envAccounts + ": account " + a.Name + " has the development storage's well-known key; set " + envDev + "=1 to allow it")
			}
		}
	}
	if len(accounts) == 0 {
		if !c.dev {
			return c, errors.New("no accounts: put " + envAccounts + " (name:base64key) as a secret, or set " + envDev + "=1 for the development account")
		}
		accounts = []auth.Account{dev}
	}
	c.accounts = accounts
	return c, nil
}

// verifier is a fresh verifier of the configured accounts: each service
// has its own, since a verifier caches what it has verified.
func (c config) verifier() *auth.Verifier {
	return &auth.Verifier{Accounts: c.accounts, SharedKey: auth.VerifySharedKey}
}

// serviceOf returns the service a request's Host names: one of the
// configured ports, else as stores.ServiceOf reads it (the development
// ports, account.blob.…), else a first label of "blob" or "queue" (a
// Worker's custom domains blob.example.com, queue.example.com), else
// Table.
func (c config) serviceOf(host string) stores.Service {
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		name, port = host[:i], host[i+1:]
	}
	if port != "" {
		for i, p := range c.ports {
			if p == port {
				return stores.Service(i)
			}
		}
	}
	if svc := stores.ServiceOf(host); svc != stores.Table {
		return svc
	}
	switch first, _, _ := strings.Cut(name, "."); first {
	case "blob":
		return stores.Blob
	case "queue":
		return stores.Queue
	}
	return stores.Table
}
