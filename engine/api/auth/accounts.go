// Package auth authenticates and authorizes requests to the Table, Blob
// and Queue services: Shared Key and Shared Key Lite signatures with an
// account key, service SAS (table, container, blob, queue) and account
// SAS tokens, or anonymous access when a host allows it. It needs no
// net/http or fmt, so it goes into the browser build; Shared Key checking
// is linked only by hosts that set Verifier.SharedKey.
//
// Verify turns a request into a Grant; the protocol layer asks the Grant,
// per operation, whether the request may perform it (Check and
// CheckTable for tables, CheckBlob, CheckQueue).
package auth

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Account is a storage account name with its keys.
type Account struct {
	Name string
	Keys [][]byte
}

// DevAccountName and DevAccountKey are the development account every
// emulator knows and every SDK's development connection string uses.
const (
	DevAccountName = "devstoreaccount1"
	DevAccountKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// DevAccount returns the development account.
func DevAccount() Account {
	key, _ := base64.StdEncoding.DecodeString(DevAccountKey)
	return Account{Name: DevAccountName, Keys: [][]byte{key}}
}

// ParseAccounts reads accounts in the form Azurite takes from
// AZURITE_ACCOUNTS: "name1:key1:key2;name2:key1", keys in base64.
func ParseAccounts(spec string) ([]Account, error) {
	var out []Account
	for _, part := range strings.Split(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		fields := strings.Split(part, ":")
		if len(fields) < 2 || fields[0] == "" {
			return nil, errors.New("account " + strconv.Quote(part) + ": want name:key[:key2]")
		}
		a := Account{Name: fields[0]}
		for _, k := range fields[1:] {
			key, err := base64.StdEncoding.DecodeString(k)
			if err != nil || len(key) == 0 {
				return nil, errors.New("account " + a.Name + ": key is not base64")
			}
			a.Keys = append(a.Keys, key)
		}
		out = append(out, a)
	}
	return out, nil
}
