package api

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// The CORS rules of an account's service properties, held to every
// request that names an Origin: a browser's preflight (OPTIONS) is
// answered from them before any authentication, as it carries none, and
// an actual request's answer — an error too — says which origin may read
// it and which of its headers the page may see.

// PreflightHeaders returns a CORS preflight's Origin and
// Access-Control-Request-Method, which the service requires: without
// either it answers 400 InvalidHeaderValue.
func PreflightHeaders(req *Request) (origin, method string, err error) {
	origin = req.Header.Get("Origin")
	method = req.Header.Get("Access-Control-Request-Method")
	if origin == "" || method == "" {
		return "", "", svcerr.With(svcerr.InvalidHeaderValue, "A required CORS header is not present.")
	}
	return origin, method, nil
}

// RefusePreflight answers a CORS preflight to a service that keeps no
// CORS rules (tablelab's Blob and Queue services): 400 as
// PreflightHeaders says, or 403 CorsPreflightFailure, as the service
// answers when no rule matches.
func RefusePreflight(req *Request) error {
	if _, _, err := PreflightHeaders(req); err != nil {
		return err
	}
	return svcerr.New(svcerr.CorsPreflightFailure)
}

// preflight answers an OPTIONS request from the rules of the account it
// addresses.
func (c *call) preflight() error {
	origin, method, err := PreflightHeaders(c.req)
	if err != nil {
		return err
	}
	headers := c.req.Header.Get("Access-Control-Request-Headers")
	rules, err := c.corsRules()
	if err != nil {
		return err
	}
	for _, r := range rules {
		if !r.allowsOrigin(origin) || !r.allowsMethod(method) || !r.allowsHeaders(headers) {
			continue
		}
		h := &c.resp.Header
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Methods", method)
		if headers != "" {
			h.Set("Access-Control-Allow-Headers", headers)
		}
		h.Set("Access-Control-Max-Age", strconv.Itoa(r.MaxAge))
		h.Set("Access-Control-Allow-Credentials", "true")
		c.resp.Status = 200
		return nil
	}
	return svcerr.New(svcerr.CorsPreflightFailure)
}

// corsRules are the CORS rules of the account the request names.
func (c *call) corsRules() ([]CorsRule, error) {
	account, _, _, err := Address(c.req)
	if err != nil {
		return nil, err
	}
	account, _ = auth.Primary(account)
	return c.s.settings.CorsRules(account)
}

// corsHeaders adds to resp, the answer to a request that named an Origin,
// what the first rule allowing that origin and method lets the page see.
func (c *call) corsHeaders(resp *Response) {
	origin := c.req.Header.Get("Origin")
	if origin == "" || c.req.Method == "OPTIONS" {
		return
	}
	rules, err := c.corsRules()
	if err != nil || len(rules) == 0 {
		return
	}
	h := &resp.Header
	for _, r := range rules {
		if !r.allowsOrigin(origin) || !r.allowsMethod(c.req.Method) {
			continue
		}
		var exposed []string
		h.Each(func(name, _ string) {
			if matchesAny(name, r.ExposedHeaders) {
				exposed = append(exposed, name)
			}
		})
		h.Set("Access-Control-Expose-Headers", strings.Join(exposed, ","))
		if r.AllowedOrigins[0] == "*" {
			h.Set("Access-Control-Allow-Origin", "*")
			return
		}
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Set("Vary", "Origin")
		return
	}
	// The answer depends on the origin even when no rule matched it.
	h.Set("Vary", "Origin")
}

// A CorsRule lets pages of some origins call the service with some methods.
type CorsRule struct {
	AllowedOrigins []string // "*" alone allows every origin
	AllowedMethods []string
	AllowedHeaders []string // a name ending in * allows a prefix
	ExposedHeaders []string
	MaxAge         int
}

func (r *CorsRule) allowsOrigin(origin string) bool {
	for _, o := range r.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, strings.TrimSpace(origin)) {
			return true
		}
	}
	return false
}

func (r *CorsRule) allowsMethod(method string) bool {
	for _, m := range r.AllowedMethods {
		if strings.EqualFold(m, strings.TrimSpace(method)) {
			return true
		}
	}
	return false
}

// allowsHeaders reports whether every header of a preflight's
// comma-separated list is allowed.
func (r *CorsRule) allowsHeaders(list string) bool {
	for h := range strings.SplitSeq(list, ",") {
		if h = strings.TrimSpace(h); h != "" && !matchesAny(h, r.AllowedHeaders) {
			return false
		}
	}
	return true
}

// matchesAny reports whether name is one of names, ignoring case, or
// starts with one ending in *.
func matchesAny(name string, names []string) bool {
	for _, n := range names {
		if p, ok := strings.CutSuffix(n, "*"); ok {
			if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
				return true
			}
		} else if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}
