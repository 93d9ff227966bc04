package blobapi

import (
	"slices"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// route is a parsed request target.
type route struct {
	account string
	query   urltext.Values
	// base is the URL the account's resources hang off:
	// http://127.0.0.1:10000/devstoreaccount1.
	base      string
	container string // "" for the account
	blob      string // "" for a container
}

// parseRoute splits a request target into account, container and blob.
func parseRoute(r *api.Request) (*route, error) {
	account, rest, base, q, err := api.AddressQuery(r)
	if err != nil {
		return nil, err
	}
	rt := &route{account: account, query: q, base: base}
	cont, name, _ := strings.Cut(rest, "/")
	if rt.container, err = urltext.PathUnescape(cont); err != nil {
		return nil, svcerr.New(svcerr.InvalidURI)
	}
	if rt.blob, err = urltext.PathUnescape(name); err != nil {
		return nil, svcerr.New(svcerr.InvalidURI)
	}
	if rt.container == "" && rt.blob != "" {
		return nil, svcerr.New(svcerr.InvalidURI)
	}
	return rt, nil
}

// unsupportedParams are query parameters that select something tablelab
// does not keep: snapshots and versions of a blob.
var unsupportedParams = [...]string{"snapshot", "versionid"}

// unsupportedHeaders are request headers whose meaning tablelab cannot
// honour, so that ignoring them would give a wrong answer.
var unsupportedHeaders = [...]struct{ name, what string }{
	{"x-ms-lease-id", "Leases"},
	{"x-ms-lease-action", "Leases"},
	{"x-ms-copy-source", "Copying blobs"},
	{"x-ms-if-tags", "Blob index tags"},
	{"x-ms-tags", "Blob index tags"},
	{"x-ms-access-tier", "Access tiers"},
	{"x-ms-encryption-key", "Customer-provided encryption keys"},
	{"x-ms-encryption-scope", "Encryption scopes"},
	{"x-ms-immutability-policy-until-date", "Immutability policies"},
	{"x-ms-legal-hold", "Legal holds"},
	{"x-ms-blob-public-access", "Public access to containers"},
	{"x-ms-default-encryption-scope", "Encryption scopes"},
}

// level is how deep in the namespace a request's path reaches.
type level uint8

const (
	accountLevel level = iota
	containerLevel
	blobLevel
)

// An operation is one row of the routing table: a comp value at a level
// and a method, and the handler that serves it.
// One table and one loop cost the browser build far less code than the
// same choices as nested switches.
type operation struct {
	level  level
	comp   string
	method string
	serve  func(*call) error
}

var operations = [...]operation{
	{accountLevel, "list", "GET", (*call).listContainers},
	{containerLevel, "", "PUT", (*call).createContainer},
	{containerLevel, "", "DELETE", (*call).deleteContainer},
	{containerLevel, "", "GET", (*call).getContainer},
	{containerLevel, "", "HEAD", (*call).getContainer},
	{containerLevel, "metadata", "PUT", (*call).setContainerMetadata},
	{containerLevel, "metadata", "GET", (*call).getContainer},
	{containerLevel, "metadata", "HEAD", (*call).getContainer},
	{containerLevel, "list", "GET", (*call).listBlobs},
	{blobLevel, "", "PUT", (*call).putBlob},
	{blobLevel, "", "GET", (*call).getBlob},
	{blobLevel, "", "HEAD", (*call).getBlob},
	{blobLevel, "", "DELETE", (*call).deleteBlob},
	{blobLevel, "block", "PUT", (*call).putBlock},
	{blobLevel, "blocklist", "PUT", (*call).putBlockList},
	{blobLevel, "blocklist", "GET", (*call).getBlockList},
	{blobLevel, "blocklist", "HEAD", (*call).getBlockList},
	{blobLevel, "properties", "PUT", (*call).setBlobProperties},
	{blobLevel, "metadata", "PUT", (*call).setBlobMetadata},
	{blobLevel, "metadata", "GET", (*call).getBlobMetadata},
	{blobLevel, "metadata", "HEAD", (*call).getBlobMetadata},
}

// unimplemented are the comp values, space-separated, of operations the
// service has and tablelab does not, with what they are; an empty what
// names the operation by its comp.
var unimplemented = [...]struct {
	level       level
	comps, what string
}{
	{accountLevel, "userdelegationkey", "User delegation keys"},
	{accountLevel, "blobs", "Finding blobs by tags"},
	{accountLevel, "batch", "Blob batches"},
	{containerLevel, "acl", "Container access policies"},
	{containerLevel, "lease", "Leases"},
	{containerLevel, "undelete rename batch blobs", ""},
	{blobLevel, "appendblock seal", "Append blobs"},
	{blobLevel, "page pagelist", "Page blobs"},
	{blobLevel, "lease", "Leases"},
	{blobLevel, "snapshot", "Blob snapshots"},
	{blobLevel, "copy incrementalcopy", "Copying blobs"},
	{blobLevel, "tier", "Access tiers"},
	{blobLevel, "tags", "Blob index tags"},
	{blobLevel, "undelete expiry immutabilityPolicies legalhold query", ""},
}

// serve authenticates the request and routes it to its operation.
func (c *call) serve() error {
	if c.s.svc == nil {
		return svcerr.With(svcerr.InternalError, "The blob service has no store.")
	}
	rt, err := parseRoute(c.req)
	if err != nil {
		return err
	}
	c.rt = rt
	ar := api.AuthRequest(c.req, auth.Blob, rt.account, c.now)
	ar.Container, ar.Blob = rt.container, rt.blob
	if c.grant, err = c.s.verifier.Verify(ar); err != nil {
		return err
	}
	for _, p := range unsupportedParams {
		if rt.query.Has(p) {
			return notImplemented("Blob snapshots and versions")
		}
	}
	for _, h := range unsupportedHeaders {
		if c.req.Header.Get(h.name) != "" {
			return notImplemented(h.what)
		}
	}
	comp := rt.query.Get("comp")
	restype := rt.query.Get("restype")
	lvl := blobLevel
	switch {
	case rt.container == "":
		lvl = accountLevel
		switch {
		case restype == "service" && (comp == "properties" || comp == "stats"):
			return notImplemented("Blob service properties and statistics")
		case restype == "account" && comp == "properties":
			return notImplemented("Account information")
		case restype != "" && comp == "list":
			return invalidParam("comp", comp) // a listing takes no restype
		}
	case rt.blob == "":
		lvl = containerLevel
		if err := blob.ValidateContainerName(rt.container); err != nil {
			return err
		}
		if restype != "container" {
			return invalidParam("restype", restype)
		}
		if comp == "acl" {
			// Stored access policies are the owner's, whatever the
			// operation makes of them.
			if err := c.grant.CheckOwner(); err != nil {
				return err
			}
		}
	default:
		if err := blob.ValidateContainerName(rt.container); err != nil {
			return err
		}
		if err := blob.ValidateBlobName(rt.blob); err != nil {
			return err
		}
	}
	return c.route(lvl, comp)
}

// route finds the operation for comp at lvl and serves it.
func (c *call) route(lvl level, comp string) error {
	method := c.req.Method
	known := false
	for i := range operations {
		op := &operations[i]
		if op.level != lvl || op.comp != comp {
			continue
		}
		if op.method == method {
			return op.serve(c)
		}
		known = true
	}
	if known {
		return unsupportedVerb(method)
	}
	for _, u := range unimplemented {
		if u.level != lvl || !slices.Contains(strings.Fields(u.comps), comp) {
			continue
		}
		if u.what == "" {
			kind := "blob"
			if lvl == containerLevel {
				kind = "container"
			}
			return notImplemented("This " + kind + " operation (comp=" + comp + ")")
		}
		return notImplemented(u.what)
	}
	return invalidParam("comp", comp)
}
