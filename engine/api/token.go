package api

import (
	"encoding/base64"
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Continuation tokens are opaque to clients: the service's look like
// "1!12!Q2FiUXVlcnk-". Ours are "1!" and the key in unpadded URL-safe
// base64 — header-safe for any key, never empty (an empty PartitionKey
// is a valid key, and an empty header means "no more pages" to the SDKs),
// and versioned so the form can change.
const tokenPrefix = "1!"

func encodeToken(key string) string {
	return tokenPrefix + base64.RawURLEncoding.EncodeToString([]byte(key))
}

// decodeToken reads a continuation token. A token without the prefix is
// taken as the key itself, which is what some other emulators hand out
// and what hand-written requests send.
func decodeToken(tok string) (string, error) {
	rest, ok := strings.CutPrefix(tok, tokenPrefix)
	if !ok {
		return tok, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(rest)
	if err != nil {
		return "", svcerr.With(svcerr.InvalidInput, "The continuation token '"+tok+"' is not valid.")
	}
	return string(b), nil
}
