// Package bearer checks OAuth bearer tokens the way Azurite's
// `--oauth basic` does, so that code using Microsoft Entra ID credentials
// (DefaultAzureCredential and the like) can be tested against the local
// server: the token must be a JWT whose lifetime covers the request, issued
// by Microsoft Entra ID, for the storage audience or the account's service
// endpoint. Its signature is not verified: the server has no tenant to
// verify it against, and the point is to exercise the client's code path,
// not to guard data.
package bearer

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/api/auth"
)

// issuers are the prefixes of the token issuers accepted: Microsoft Entra
// ID's v1 endpoints in each cloud, and the v2 endpoint.
var issuers = []string{
	"https://sts.windows.net/",
	"https://sts.microsoftonline.de/",
	"https://sts.chinacloudapi.cn/",
	"https://sts.windows-ppe.net",
	"https://login.microsoftonline.com/",
}

// storageApp is the application id of Azure Storage, an audience of its own.
const storageApp = "e406a681-f3d4-42a8-90b6-c2b029497af1"

// endpointAudience matches an audience naming one account's endpoint in
// one of the clouds: https://<account>.<service>.core.<cloud suffix>.
var endpointAudience = regexp.MustCompile(`^https://([^./]+)\.(table|queue|blob)\.core\.(windows\.net|chinacloudapi\.cn|usgovcloudapi\.net|cloudapi\.de)/?$`)

type claims struct {
	Audience  audience `json:"aud"`
	Issuer    string   `json:"iss"`
	IssuedAt  *float64 `json:"iat"`
	NotBefore *float64 `json:"nbf"`
	Expires   *float64 `json:"exp"`
}

// audience is a JWT's aud claim, a string or a list of strings.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = audience{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

// Basic checks token for request r, for an auth.Verifier's Bearer field.
func Basic(token string, r auth.Request) error {
	c, ok := parse(token)
	if !ok {
		return auth.BearerFailed("The bearer token is not a JWT with a JSON payload.")
	}
	if c.NotBefore == nil || c.Expires == nil || c.IssuedAt == nil {
		return auth.BearerFailed("The bearer token lacks one of the claims nbf, exp and iat.")
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	if now.Before(unix(*c.NotBefore)) {
		return auth.BearerFailed("Lifetime validation failed. The token is not valid yet (nbf).")
	}
	if now.After(unix(*c.Expires)) {
		return auth.BearerFailed("Lifetime validation failed. The token is expired.")
	}
	if !validIssuer(c.Issuer) {
		return auth.BearerFailed("Invalid token issuer " + c.Issuer + ".")
	}
	for _, aud := range c.Audience {
		if validAudience(aud, r) {
			return nil
		}
	}
	return auth.BearerFailed("Invalid token audience " + strings.Join(c.Audience, ", ") + ".")
}

func parse(token string) (claims, bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return claims{}, false
	}
	var c claims
	if err := json.Unmarshal(payload, &c); err != nil {
		return claims{}, false
	}
	return c, true
}

func unix(seconds float64) time.Time {
	return time.Unix(0, int64(seconds*float64(time.Second)))
}

func validIssuer(iss string) bool {
	for _, p := range issuers {
		if strings.HasPrefix(iss, p) {
			return true
		}
	}
	return false
}

func validAudience(aud string, r auth.Request) bool {
	if aud == storageApp || strings.TrimSuffix(aud, "/") == "https://storage.azure.com" {
		return true
	}
	m := endpointAudience.FindStringSubmatch(aud)
	if m == nil {
		return false
	}
	account, _ := auth.Primary(r.Account)
	return m[1] == account && m[2] == strings.ToLower(r.Service.String())
}
