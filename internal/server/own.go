//go:build !js

package server

import (
	"encoding/json"
	"net"
	"net/url"
	"strings"

	"github.com/valyala/fasthttp"
)

// The paths every service port answers itself, before the service: none
// can be a request to the service, whose paths start with an account
// name (3 to 24 lowercase letters and digits) and, for the account
// itself, carry a query string.
const (
	// AlivePath answers 200 while the process answers at all: a liveness
	// probe.
	AlivePath = "/alive"
	// ReadyPath answers 200 once every store is open and every service
	// listens, and 503 before and once the server has begun to stop: a
	// readiness probe, or a compose file's healthcheck.
	ReadyPath = "/ready"
	// ResetPath, under POST from this machine, empties the stores
	// (Server.Reset); ?account=NAME empties what that account reaches.
	ResetPath = "/_tablelab/reset"
	// ownPrefix is reserved: no account name starts with '_'.
	ownPrefix = "/_tablelab/"
)

// answerOwn answers the health and reset endpoints and reports whether
// the request was one of theirs.
func (s *Server) answerOwn(ctx *fasthttp.RequestCtx) bool {
	path := string(ctx.Path())
	switch {
	case (path == AlivePath || path == ReadyPath) && len(ctx.URI().QueryString()) == 0:
		s.health(ctx, path)
	case path == ResetPath:
		s.reset(ctx)
	case strings.HasPrefix(path, ownPrefix):
		plain(ctx, fasthttp.StatusNotFound, "tablelab answers "+ResetPath+" under "+ownPrefix+" on this port; the explorer and inspector are on the site's port")
	default:
		return false
	}
	return true
}

func (s *Server) health(ctx *fasthttp.RequestCtx, path string) {
	if !ctx.IsGet() && !ctx.IsHead() {
		ctx.Response.Header.Set("Allow", "GET, HEAD")
		plain(ctx, fasthttp.StatusMethodNotAllowed, path+" answers GET and HEAD")
		return
	}
	ctx.Response.Header.Set("Cache-Control", "no-store")
	switch {
	case path == AlivePath:
		plain(ctx, fasthttp.StatusOK, "alive")
	case s.Ready():
		plain(ctx, fasthttp.StatusOK, "ready")
	default:
		plain(ctx, fasthttp.StatusServiceUnavailable, "not ready: starting or stopping")
	}
}

func (s *Server) reset(ctx *fasthttp.RequestCtx) {
	if !ctx.IsPost() {
		ctx.Response.Header.Set("Allow", "POST")
		plain(ctx, fasthttp.StatusMethodNotAllowed, ResetPath+" answers POST")
		return
	}
	if why := notLocal(ctx); why != "" {
		plain(ctx, fasthttp.StatusForbidden, why)
		return
	}
	account := string(ctx.QueryArgs().Peek("account"))
	if account != "" && !s.knownAccount(account) {
		plain(ctx, fasthttp.StatusNotFound, "no account "+account+" on this server")
		return
	}
	cleared, err := s.Reset(account)
	if err != nil {
		plain(ctx, fasthttp.StatusInternalServerError, "the reset stopped part way: "+err.Error())
		return
	}
	body, _ := json.Marshal(cleared)
	ctx.Response.Header.Set("Cache-Control", "no-store")
	ctx.SetContentType("application/json")
	ctx.SetStatusCode(fasthttp.StatusOK)
	ctx.SetBody(append(body, '\n'))
}

// notLocal says why a request may not reset the stores, or "" when it
// may: it must come from a loopback address, name a loopback host (a page
// of another site whose name resolves to 127.0.0.1 does not) and, from a
// browser, come from a page of a loopback origin: a form on any site
// could otherwise post to 127.0.0.1 from the browser of someone here.
func notLocal(ctx *fasthttp.RequestCtx) string {
	if !ctx.RemoteIP().IsLoopback() {
		return "a reset is answered to clients on this machine only"
	}
	if !loopbackHost(string(ctx.Host())) {
		return "a reset is answered for localhost, 127.0.0.1 or [::1] only, not for " + string(ctx.Host())
	}
	if origin := ctx.Request.Header.Peek("Origin"); len(origin) > 0 {
		u, err := url.Parse(string(origin))
		if err != nil || !loopbackHost(u.Host) {
			return "a reset is answered to pages of this machine only, not to one of " + string(origin)
		}
	}
	return ""
}

// loopbackHost reports whether host (with or without a port) names this
// machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func plain(ctx *fasthttp.RequestCtx, status int, text string) {
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(text + "\n")
}
