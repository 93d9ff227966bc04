package blobapi

import (
	"net/url"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// route is a parsed request target.
type route struct {
	account string
	query   url.Values
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
	if rt.container, err = url.PathUnescape(cont); err != nil {
		return nil, svcerr.New(svcerr.InvalidURI)
	}
	if rt.blob, err = url.PathUnescape(name); err != nil {
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
	method := c.req.Method
	comp := rt.query.Get("comp")
	restype := rt.query.Get("restype")
	switch {
	case rt.container == "":
		switch {
		case comp == "list" && restype == "":
			if method != "GET" {
				return unsupportedVerb(method)
			}
			return c.listContainers()
		case restype == "service" && (comp == "properties" || comp == "stats"):
			return notImplemented("Blob service properties and statistics")
		case restype == "account" && comp == "properties":
			return notImplemented("Account information")
		case comp == "userdelegationkey":
			return notImplemented("User delegation keys")
		case comp == "blobs":
			return notImplemented("Finding blobs by tags")
		case comp == "batch":
			return notImplemented("Blob batches")
		}
		return invalidParam("comp", comp)
	case rt.blob == "":
		if err := blob.ValidateContainerName(rt.container); err != nil {
			return err
		}
		if restype != "container" {
			return invalidParam("restype", restype)
		}
		switch comp {
		case "":
			switch method {
			case "PUT":
				return c.createContainer()
			case "DELETE":
				return c.deleteContainer()
			case "GET", "HEAD":
				return c.getContainer()
			}
			return unsupportedVerb(method)
		case "metadata":
			switch method {
			case "PUT":
				return c.setContainerMetadata()
			case "GET", "HEAD":
				return c.getContainer()
			}
			return unsupportedVerb(method)
		case "list":
			if method != "GET" {
				return unsupportedVerb(method)
			}
			return c.listBlobs()
		case "acl":
			return notImplemented("Container access policies")
		case "lease":
			return notImplemented("Leases")
		case "undelete", "rename", "batch", "blobs":
			return notImplemented("This container operation (comp=" + comp + ")")
		}
		return invalidParam("comp", comp)
	}
	if err := blob.ValidateContainerName(rt.container); err != nil {
		return err
	}
	if err := blob.ValidateBlobName(rt.blob); err != nil {
		return err
	}
	switch comp {
	case "":
		switch method {
		case "PUT":
			return c.putBlob()
		case "GET", "HEAD":
			return c.getBlob()
		case "DELETE":
			return c.deleteBlob()
		}
		return unsupportedVerb(method)
	case "block":
		if method != "PUT" {
			return unsupportedVerb(method)
		}
		return c.putBlock()
	case "blocklist":
		switch method {
		case "PUT":
			return c.putBlockList()
		case "GET", "HEAD":
			return c.getBlockList()
		}
		return unsupportedVerb(method)
	case "properties":
		if method != "PUT" {
			return unsupportedVerb(method)
		}
		return c.setBlobProperties()
	case "metadata":
		switch method {
		case "PUT":
			return c.setBlobMetadata()
		case "GET", "HEAD":
			return c.getBlobMetadata()
		}
		return unsupportedVerb(method)
	case "appendblock", "seal":
		return notImplemented("Append blobs")
	case "page", "pagelist":
		return notImplemented("Page blobs")
	case "lease":
		return notImplemented("Leases")
	case "snapshot":
		return notImplemented("Blob snapshots")
	case "copy", "incrementalcopy":
		return notImplemented("Copying blobs")
	case "tier":
		return notImplemented("Access tiers")
	case "tags":
		return notImplemented("Blob index tags")
	case "undelete", "expiry", "immutabilityPolicies", "legalhold", "query":
		return notImplemented("This blob operation (comp=" + comp + ")")
	}
	return invalidParam("comp", comp)
}
