package auth

import (
	"slices"
	"strings"

	"github.com/tablelab/tablelab/engine/internal/timefmt"
	"github.com/tablelab/tablelab/engine/internal/urltext"
)

// VerifySharedKey checks a request signed with an account key: authz, its
// Authorization header, is "SharedKey account:signature" or
// "SharedKeyLite account:signature", and the signature must be one the
// account, among accounts, signs with one of its keys over the request
// as the service defines it (the Table service's strings, or the Blob
// and Queue services' with their canonicalized headers and query), dated
// within MaxClockSkew of the request's time. It returns nil when it is;
// a Verifier's SharedKey takes it.
func VerifySharedKey(r Request, authz string, accounts []Account) error {
	header := r.Header
	if header == nil {
		header = func(string) string { return "" }
	}
	q, err := ParseQuery(r.Query)
	if err != nil {
		return failed("The query string is malformed.")
	}
	scheme, cred, ok := strings.Cut(authz, " ")
	if !ok {
		return failed("The Authorization header is malformed.")
	}
	name, sig, ok := strings.Cut(strings.TrimSpace(cred), ":")
	if !ok {
		return failed("The Authorization header is malformed.")
	}
	if name != r.Account {
		return failed("The account in the Authorization header does not match the request.")
	}
	var acct *Account
	for i := range accounts {
		if accounts[i].Name == name {
			acct = &accounts[i]
			break
		}
	}
	if acct == nil {
		return failed("The account " + name + " is unknown.")
	}
	date := header("x-ms-date")
	if date == "" {
		date = header("Date")
	}
	t, ok := timefmt.Parse(timefmt.RFC1123, date)
	if !ok {
		return failed("The request date is missing or malformed.")
	}
	if d := r.now().Sub(t); d > MaxClockSkew || d < -MaxClockSkew {
		return failed("The request date is more than 15 minutes from the server's time.")
	}
	if scheme != "SharedKey" && scheme != "SharedKeyLite" {
		return failed("The authorization scheme " + scheme + " is not supported.")
	}
	lite := scheme == "SharedKeyLite"
	if r.Service != Table {
		if !signedByAny(acct, sig, blobQueueStrings(r, header, q, lite)) {
			return failed("The signature does not match.")
		}
		return nil
	}
	// The string to sign is built on the stack: a point read's is a
	// hundred bytes, and this check runs on every request.
	var buf [256]byte
	toSign := buf[:0]
	if !lite {
		toSign = append(append(toSign, r.Method...), '\n')
		toSign = append(append(toSign, header("Content-MD5")...), '\n')
		toSign = append(append(toSign, header("Content-Type")...), '\n')
	}
	toSign = append(append(toSign, date...), '\n')
	toSign = appendCanonicalResource(toSign, r.Account, r.RawPath, q.Get("comp"))
	if signingKey(acct, toSign, sig) == nil {
		return failed("The signature does not match.")
	}
	return nil
}

// CanonicalResource is the resource part of a Shared Key string to sign:
// "/" + account + the path as sent, plus "?comp=" when the query has one.
// In path-style addressing the account therefore appears twice.
func CanonicalResource(account, rawPath, comp string) string {
	return string(appendCanonicalResource(nil, account, rawPath, comp))
}

// appendCanonicalResource appends CanonicalResource's string to b.
func appendCanonicalResource(b []byte, account, rawPath, comp string) []byte {
	b = append(append(append(b, '/'), account...), rawPath...)
	if comp != "" {
		b = append(append(b, "?comp="...), comp...)
	}
	return b
}

// SignSharedKeyLite returns the Authorization header value the SDKs send:
// "SharedKeyLite account:signature" over the date and the resource.
func SignSharedKeyLite(account string, key []byte, date, rawPath, comp string) string {
	return "SharedKeyLite " + account + ":" + Sign(key, date+"\n"+CanonicalResource(account, rawPath, comp))
}

// signedBy reports whether sig is s signed with one of the account's keys.
func signedBy(a *Account, s, sig string) bool {
	return signingKey(a, s, sig) != nil
}

// blobQueueStrings returns the strings a Shared Key (or, when lite, a
// Shared Key Lite) signature of a Blob or Queue request may cover. The
// first is the one the service defines; the rest are what clients are
// known to sign instead, and exist only when they differ from it:
//   - the x-ms-* headers in plain byte order rather than the service's
//     culture-aware order (the Go azqueue SDK sorts them so);
//   - Content-Language before Content-Encoding (the JS SDKs' order);
//   - the query without its empty-valued parameters (the JS SDKs leave
//     them out of the canonicalized resource).
//
// Every variant still covers the verb, the path, every header the
// service signs and every non-empty query parameter, so accepting one
// grants nothing a forger could not get with the first.
func blobQueueStrings(r Request, header func(string) string, q urltext.Values, lite bool) []string {
	names, values := msHeaders(r)
	sorted := append([]string(nil), names...)
	slices.SortStableFunc(sorted, func(a, b string) int {
		switch {
		case headerLess(a, b):
			return -1
		case headerLess(b, a):
			return 1
		}
		return 0
	})
	headerSets := []string{canonicalHeaders(sorted, values)}
	slices.Sort(sorted)
	headerSets = appendNew(headerSets, canonicalHeaders(sorted, values))

	resources := []string{"/" + r.Account + r.RawPath}
	if lite {
		if comp := q.Get("comp"); comp != "" {
			resources[0] += "?comp=" + comp
		}
	} else {
		resources[0] = canonicalQuery(resources[0], q, true)
		resources = appendNew(resources, canonicalQuery("/"+r.Account+r.RawPath, q, false))
	}

	var prefixes []string
	if lite {
		prefixes = []string{r.Method + "\n" + header("Content-MD5") + "\n" + header("Content-Type") + "\n" + header("Date") + "\n"}
	} else {
		length := header("Content-Length")
		if length == "0" {
			length = ""
		}
		rest := "\n" + length + "\n" + header("Content-MD5") + "\n" + header("Content-Type") + "\n" + header("Date") + "\n" +
			header("If-Modified-Since") + "\n" + header("If-Match") + "\n" + header("If-None-Match") + "\n" +
			header("If-Unmodified-Since") + "\n" + header("Range") + "\n"
		enc, lang := header("Content-Encoding"), header("Content-Language")
		prefixes = appendNew([]string{r.Method + "\n" + enc + "\n" + lang + rest}, r.Method+"\n"+lang+"\n"+enc+rest)
	}

	out := make([]string, 0, len(prefixes)*len(headerSets)*len(resources))
	for _, p := range prefixes {
		for _, h := range headerSets {
			for _, res := range resources {
				out = append(out, p+h+res)
			}
		}
	}
	return out
}

// appendNew appends s to list unless list already holds it.
func appendNew(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}

// msHeaders returns the request's x-ms-* headers, names lower-cased,
// values as received.
func msHeaders(r Request) (names []string, values map[string]string) {
	values = map[string]string{}
	if r.Headers == nil {
		return nil, values
	}
	r.Headers(func(name, value string) {
		name = strings.ToLower(strings.TrimSpace(name))
		if !strings.HasPrefix(name, "x-ms-") {
			return
		}
		if _, dup := values[name]; dup {
			values[name] += "," + strings.TrimSpace(value)
			return
		}
		names = append(names, name)
		values[name] = strings.TrimSpace(value)
	})
	return names, values
}

// canonicalHeaders writes the headers in the given order, one
// "name:value\n" line each.
func canonicalHeaders(order []string, values map[string]string) string {
	var b strings.Builder
	for _, n := range order {
		b.WriteString(n)
		b.WriteByte(':')
		b.WriteString(values[n])
		b.WriteByte('\n')
	}
	return b.String()
}

// canonicalQuery appends the query to a canonicalized resource: each
// parameter's name lower-cased, in order, with its values sorted and
// joined by commas, "\nname:v1,v2". Parameters whose value is empty are
// left out unless withEmpty is set.
func canonicalQuery(resource string, q urltext.Values, withEmpty bool) string {
	merged := map[string][]string{}
	for k, vs := range q {
		lk := strings.ToLower(k)
		for _, v := range vs {
			if v != "" || withEmpty {
				merged[lk] = append(merged[lk], v)
			}
		}
	}
	keys := make([]string, 0, len(merged))
	for k := range merged {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(resource)
	for _, k := range keys {
		vs := merged[k]
		slices.Sort(vs)
		b.WriteByte('\n')
		b.WriteString(k)
		b.WriteByte(':')
		b.WriteString(strings.Join(vs, ","))
	}
	return b.String()
}

// primaryOrder lists, from first to last, the characters of a header
// name that count in the first pass of the service's header order (the
// en-US culture-aware comparison of .NET, as the SDKs reproduce it for
// ASCII). Characters not listed, '-' among them, are ignored in that
// pass; letters are compared without regard to case.
const primaryOrder = "!#$%&*.^_`|~+0123456789abcdefghijklmnopqrstuvwxyz"

func primaryWeight(c byte) int {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return strings.IndexByte(primaryOrder, c) + 1 // 0: ignored
}

// finalWeight is the weight of the last pass, where only the apostrophe
// and the hyphen count, in that order.
func finalWeight(c byte) int {
	switch c {
	case '\'':
		return 1
	case '-':
		return 2
	}
	return 0
}

// headerLess orders lower-cased header names as the service does: first
// by the characters that carry a primary weight, ignoring the others;
// then, between names equal so far, by where their hyphens fall. The
// last pass follows the SDKs' rendering exactly, quirks included, since
// a signature depends on agreeing with them.
func headerLess(a, b string) bool {
	const end = -1
	weight := func(s string, i int, w func(byte) int) int {
		if i >= len(s) {
			return end
		}
		return w(s[i])
	}
	passes := []func(byte) int{primaryWeight, finalWeight}
	for pass, w := range passes {
		i, j := 0, 0
		for {
			if pass == len(passes)-1 && i != j {
				return i > j
			}
			wa, wb := weight(a, i, w), weight(b, j, w)
			switch {
			case wa == end && wb == end:
			case wa == wb:
				i, j = i+1, j+1
				continue
			case wa == 0:
				i++
				continue
			case wb == 0:
				j++
				continue
			default:
				return wa < wb
			}
			break
		}
	}
	return false
}

// signedByAny reports whether sig signs one of the strings with one of
// the account's keys.
func signedByAny(a *Account, sig string, strs []string) bool {
	for _, s := range strs {
		if signedBy(a, s, sig) {
			return true
		}
	}
	return false
}
