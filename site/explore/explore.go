// Package explore is the explorer page's way into the local server's own
// stores. Each of its requests is forwarded, in process, to the protocol
// core of the running service it names (the api.Service the front end
// serves), signed with an account SAS of the account it names, so that
// it is a real Table, Queue or Blob request with the real answer: the
// same headers (plan, ETag, error codes) an SDK would see, against the
// same stores, through the same authentication.
//
// Routes, under Prefix:
//
//	GET  info                              the accounts and services
//	ANY  {table|queue|blob}/{account}/…    forwarded as /{account}/…
//
// Every request must carry the header X-Tablelab-Explorer: a page of
// another origin cannot send it without a CORS preflight, which this
// handler never grants, so no other site a browser has open can drive
// the explorer. The site also answers only loopback clients here.
package explore

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apihttp"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/site/inspect"
)

// Prefix is where the handler answers on the site.
const Prefix = "/_tablelab/api/"

// MarkHeader is the header every explorer request carries.
const MarkHeader = "X-Tablelab-Explorer"

// A Service is one running storage service the explorer reaches.
type Service struct {
	// Name is "Blob", "Queue" or "Table".
	Name string
	Core api.Service
	// Stream hands request bodies to the core unread, as its front end
	// does (the Blob service's).
	Stream bool
}

// Handler forwards the explorer's requests.
type Handler struct {
	services map[string]Service // by the route's word: blob, queue, table
	names    []string
	accounts []auth.Account
	hub      *inspect.Hub
	now      func() time.Time

	mu  sync.Mutex
	sas map[string]token // by account
}

type token struct {
	query   string
	renewAt time.Time
}

// New returns the handler over services for accounts (the first is the
// one the page opens on). With hub, each forwarded request is published
// as the explorer's while anyone watches, so the inspector shows it
// apart from the application's.
func New(services []Service, accounts []auth.Account, hub *inspect.Hub) *Handler {
	h := &Handler{services: map[string]Service{}, accounts: accounts, hub: hub, now: time.Now, sas: map[string]token{}}
	for _, s := range services {
		h.services[strings.ToLower(s.Name)] = s
		h.names = append(h.names, s.Name)
	}
	slices.Sort(h.names)
	return h
}

// The permissions of the token the explorer's requests are signed with:
// all of them, on every resource of every service, for sasLifetime; a
// token is renewed when less than sasRenew of it is left, before any
// request could outlast it.
const (
	sasLifetime = time.Hour
	sasRenew    = 50 * time.Minute
)

func (h *Handler) token(a auth.Account) string {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if t, ok := h.sas[a.Name]; ok && now.Before(t.renewAt) {
		return t.query
	}
	q := auth.NewAccountSAS(a.Name, a.Keys[0], auth.AccountSAS{
		Permissions:   "rwdlacup",
		ResourceTypes: "sco",
		Services:      "bqt",
		Expiry:        now.Add(sasLifetime),
	})
	h.sas[a.Name] = token{query: q, renewAt: now.Add(sasRenew)}
	return q
}

// forwarded are the request headers the explorer may set on a forwarded
// request; anything else a browser adds (cookies, Origin, Referer, its
// fetch metadata) stays out, and the signature is the SAS's.
var forwarded = []string{
	"Accept", "Content-Type", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since",
	"Prefer", "DataServiceVersion", "MaxDataServiceVersion", "Range", "Content-MD5",
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(MarkHeader) == "" {
		http.Error(w, "explorer requests carry the header "+MarkHeader+" (the explorer page sends it)", http.StatusForbidden)
		return
	}
	rest, ok := strings.CutPrefix(r.RequestURI, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	if rest == "info" {
		h.serveInfo(w)
		return
	}
	word, target, _ := strings.Cut(rest, "/")
	svc, ok := h.services[word]
	if !ok {
		http.Error(w, "no service "+word+" runs here: the explorer reaches "+strings.Join(h.names, ", "), http.StatusNotFound)
		return
	}
	path, query, _ := strings.Cut(target, "?")
	name, _, _ := strings.Cut(path, "/")
	i := slices.IndexFunc(h.accounts, func(a auth.Account) bool { return a.Name == name })
	if i < 0 {
		http.Error(w, "no account "+name+" here", http.StatusNotFound)
		return
	}
	if query != "" {
		query += "&"
	}
	target = "/" + path + "?" + query + h.token(h.accounts[i])
	u, err := url.ParseRequestURI(target)
	if err != nil {
		http.Error(w, "the request's path does not parse: "+err.Error(), http.StatusBadRequest)
		return
	}
	fwd := r.Clone(r.Context())
	fwd.URL, fwd.RequestURI = u, target
	fwd.Header = http.Header{}
	for name, values := range r.Header {
		if strings.HasPrefix(strings.ToLower(name), "x-ms-") || slices.ContainsFunc(forwarded, func(f string) bool { return strings.EqualFold(f, name) }) {
			fwd.Header[name] = values
		}
	}
	if r.ContentLength >= 0 {
		// The Blob service needs it, as every SDK sends it.
		fwd.Header.Set("Content-Length", strconv.FormatInt(r.ContentLength, 10))
	}
	var core http.Handler = apihttp.Handler{Server: svc.Core, Stream: svc.Stream}
	if h.hub != nil {
		core = h.hub.Wrap(svc.Name, inspect.SourceExplorer, core)
	}
	core.ServeHTTP(w, fwd)
}

// info is what the page learns first: whom and what it can explore.
type info struct {
	Accounts []string `json:"accounts"`
	Services []string `json:"services"`
}

func (h *Handler) serveInfo(w http.ResponseWriter) {
	in := info{Services: h.names}
	for _, a := range h.accounts {
		in.Accounts = append(in.Accounts, a.Name)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(in)
}
