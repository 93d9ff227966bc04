package api

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// resourceKind is what a request path addresses.
type resourceKind uint8

const (
	resService  resourceKind = iota + 1 // the account itself: ?restype=service
	resTables                           // Tables, Tables()
	resTable                            // Tables('name')
	resBatch                            // $batch
	resEntities                         // name, name()
	resEntity                           // name(PartitionKey='…',RowKey='…')
)

// route is a parsed request path.
type route struct {
	account string
	// rawPath is the path as sent, percent-escapes intact, for signatures.
	rawPath string
	// base is the URL prefix the account's resources hang off, used in
	// Location headers and odata.id: http://127.0.0.1:10002/devstoreaccount1.
	base   string
	kind   resourceKind
	table  string
	pk, rk string
	query  query
	// rawQuery is the query string as sent.
	rawQuery string
}

// pathStyleHost reports whether requests to host name the account in the
// first path segment (the emulator's addressing) rather than in the first
// label of the host name (the service's).
func pathStyleHost(host string) bool {
	h := host
	if strings.HasPrefix(h, "[") {
		h, _, _ = strings.Cut(h[1:], "]") // [::1]:10002
	} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
		h = h[:i]
	}
	if _, ok := urltext.ParseIP(h); ok || h == "" || !strings.Contains(h, ".") {
		return true // an IP address, localhost or a bare host name
	}
	return false
}

// parseRoute splits a request target into account and resource.
func parseRoute(r *Request) (*route, error) {
	rt := new(route)
	if err := rt.parse(r); err != nil {
		return nil, err
	}
	return rt, nil
}

// parse reads r's target into rt, which must be zero.
func (rt *route) parse(r *Request) error {
	rawPath, rawQuery, _ := strings.Cut(r.Target, "?")
	rt.rawPath, rt.rawQuery = rawPath, rawQuery
	if err := rt.query.parse(rawQuery); err != nil {
		return svcerr.With(svcerr.InvalidQueryParameterValue, "The query string could not be parsed: "+err.Error())
	}
	account, rest, base, err := Address(r)
	if err != nil {
		return err
	}
	rt.account, rt.base = account, base
	return rt.parseResource(rest)
}

// parseResource reads the resource part of the path: the text after the
// account. Escapes are decoded only after the path is split on literal
// slashes, so a %2F inside a key stays inside the key.
func (rt *route) parseResource(raw string) error {
	if raw == "" {
		rt.kind = resService
		return nil
	}
	if strings.Contains(strings.TrimSuffix(raw, "/"), "/") {
		return svcerr.New(svcerr.InvalidURI)
	}
	raw = strings.TrimSuffix(raw, "/")
	seg, err := urltext.PathUnescape(raw)
	if err != nil {
		return svcerr.With(svcerr.InvalidURI, "The request URI is not valid: "+err.Error())
	}
	switch {
	case seg == "$batch":
		rt.kind = resBatch
		return nil
	case seg == "Tables" || seg == "Tables()":
		rt.kind = resTables
		return nil
	case strings.HasPrefix(seg, "Tables(") && strings.HasSuffix(seg, ")"):
		name, ok := unquote(strings.TrimSpace(seg[len("Tables(") : len(seg)-1]))
		if !ok {
			return svcerr.New(svcerr.InvalidInput)
		}
		rt.kind, rt.table = resTable, name
		return nil
	}
	table, keys, ok := strings.Cut(seg, "(")
	rt.table = table
	if !ok {
		rt.kind = resEntities
		return nil
	}
	if !strings.HasSuffix(keys, ")") {
		return svcerr.New(svcerr.InvalidURI)
	}
	keys = strings.TrimSpace(keys[:len(keys)-1])
	if keys == "" {
		rt.kind = resEntities
		return nil
	}
	pk, rk, err := parseKeyPredicate(keys)
	if err != nil {
		return err
	}
	rt.kind, rt.pk, rt.rk = resEntity, pk, rk
	return nil
}

// parseKeyPredicate reads `PartitionKey='a',RowKey='b'` (either order,
// spaces allowed around the punctuation, ” standing for ').
func parseKeyPredicate(s string) (pk, rk string, err error) {
	pk, rk, ok := splitKeyPredicate(s)
	if !ok {
		// Built only on failure: formatting the message cost every point
		// read a quoted copy of its keys.
		return "", "", svcerr.With(svcerr.InvalidInput, "The key predicate "+strconv.Quote(s)+" is not valid.")
	}
	return pk, rk, nil
}

// splitKeyPredicate reads PartitionKey='…',RowKey='…' (in either order).
func splitKeyPredicate(s string) (pk, rk string, ok bool) {
	var havePK, haveRK bool
	for s != "" {
		name, rest, ok := strings.Cut(s, "=")
		if !ok {
			return "", "", false
		}
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, "'") {
			return "", "", false
		}
		// Find the closing quote: a quote not followed by another one.
		end := -1
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				end = i
				break
			}
		}
		if end < 0 {
			return "", "", false
		}
		val := strings.ReplaceAll(rest[1:end], "''", "'")
		switch strings.TrimSpace(name) {
		case "PartitionKey":
			pk, havePK = val, true
		case "RowKey":
			rk, haveRK = val, true
		default:
			return "", "", false
		}
		s = strings.TrimLeft(rest[end+1:], " ")
		if s != "" {
			if s[0] != ',' {
				return "", "", false
			}
			s = strings.TrimLeft(s[1:], " ")
			if s == "" {
				return "", "", false
			}
		}
	}
	if !havePK || !haveRK {
		return "", "", false
	}
	return pk, rk, true
}

// unquote reads an OData string literal 'a”b'.
func unquote(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '\'' {
			if i+1 >= len(inner) || inner[i+1] != '\'' {
				return "", false
			}
			i++
		}
	}
	return strings.ReplaceAll(inner, "''", "'"), true
}
