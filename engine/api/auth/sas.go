package auth

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/internal/timefmt"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// verifySAS checks a shared access signature in the query string: a
// service SAS for one table (tn), one blob container or blob (sr), or one
// queue, or an account SAS (ss, srt).
func (v *Verifier) verifySAS(r Request, q urltext.Values) (Grant, error) {
	acct := v.account(r.Account)
	if acct == nil {
		return Grant{}, failed("The account " + r.Account + " is unknown.")
	}
	// A parameter given twice could be signed with one value and read
	// with another; the service refuses the token rather than guess.
	for name, vals := range q {
		if len(vals) > 1 && sasParam(name) {
			return Grant{}, failed("The SAS parameter " + name + " is given more than once.")
		}
	}
	g := Grant{perms: q.Get("sp"), service: r.Service}
	var toSigns []string
	if q.Has("ss") || q.Has("srt") {
		if !strings.Contains(q.Get("ss"), r.Service.letter()) {
			return Grant{}, svcerr.New(svcerr.AuthorizationServiceMismatch)
		}
		g.account, g.resourceTypes = true, q.Get("srt")
		toSigns = accountSASStrings(r.Account, q)
	} else {
		if q.Get("si") != "" && r.Service != Table {
			return Grant{}, failed("Stored access policies are not supported for this service; the identifier " + q.Get("si") + " is unknown.")
		}
		var err error
		if toSigns, err = g.serviceSAS(r, q); err != nil {
			return Grant{}, err
		}
	}
	signed := false
	for _, s := range toSigns {
		if v.signedSAS(acct, s, q.Get("sig")) {
			signed = true
			break
		}
	}
	if !signed {
		return Grant{}, failed("The signature does not match.")
	}
	var start, expiry time.Time
	if st := q.Get("st"); st != "" {
		t, ok := parseSASTime(st)
		if !ok {
			return Grant{}, failed("The SAS start time is malformed.")
		}
		start = t
	}
	if se := q.Get("se"); se != "" {
		t, ok := parseSASTime(se)
		if !ok {
			return Grant{}, failed("The SAS expiry time is malformed.")
		}
		expiry = t
	}
	if si := q.Get("si"); si != "" {
		// The stored policy fills what the token leaves out; a field both
		// give is refused, as the service does. The policy is read now, so
		// changing or removing it changes what the token may do at once.
		var p Policy
		ok := false
		if v.Policies != nil {
			p, ok = v.Policies(r.Account, g.table, si)
		}
		if !ok {
			return Grant{}, failed("The signed identifier " + si + " is not a stored access policy of the table " + g.table + ".")
		}
		if g.perms != "" && p.Permissions != "" || !start.IsZero() && !p.Start.IsZero() || !expiry.IsZero() && !p.Expiry.IsZero() {
			return Grant{}, failed("A field of the SAS is given both by the token and by its stored access policy " + si + ".")
		}
		if g.perms == "" {
			g.perms = p.Permissions
		}
		if start.IsZero() {
			start = p.Start
		}
		if expiry.IsZero() {
			expiry = p.Expiry
		}
	}
	now := r.now()
	if !start.IsZero() && now.Add(MaxClockSkew).Before(start) {
		return Grant{}, failed("The SAS is not valid yet.")
	}
	if expiry.IsZero() {
		return Grant{}, failed("The SAS expiry time is missing.")
	}
	if now.After(expiry) {
		return Grant{}, failed("The SAS has expired.")
	}
	if spr := q.Get("spr"); spr == "https" && r.Scheme != "https" {
		return Grant{}, svcerr.New(svcerr.AuthorizationProtocolMismatch)
	}
	if sip := q.Get("sip"); sip != "" && !ipAllowed(sip, r.RemoteIP) {
		return Grant{}, svcerr.New(svcerr.AuthorizationSourceIPMismatch)
	}
	return g, nil
}

// accountSASStrings returns the string an account SAS signs. From
// version 2020-12-06 it holds the encryption scope (ses); tokens of
// those versions without one are also checked in the older form, which
// some table clients still sign.
func accountSASStrings(account string, q urltext.Values) []string {
	fields := []string{account, q.Get("sp"), q.Get("ss"), q.Get("srt"), q.Get("st"), q.Get("se"), q.Get("sip"), q.Get("spr"), q.Get("sv")}
	old := strings.Join(fields, "\n") + "\n"
	if q.Get("sv") < "2020-12-06" {
		return []string{old}
	}
	current := strings.Join(append(fields, q.Get("ses")), "\n") + "\n"
	if q.Get("ses") != "" {
		return []string{current}
	}
	return []string{current, old}
}

// serviceSAS fills in what a service SAS grants and returns the string
// it must sign.
func (g *Grant) serviceSAS(r Request, q urltext.Values) ([]string, error) {
	common := func(resource string) []string {
		return []string{q.Get("sp"), q.Get("st"), q.Get("se"), resource, q.Get("si"), q.Get("sip"), q.Get("spr"), q.Get("sv")}
	}
	switch r.Service {
	case Blob:
		g.container, g.sr = r.Container, q.Get("sr")
		resource := "/blob/" + r.Account + "/" + r.Container
		var timestamp string
		switch g.sr {
		case "c":
		case "b", "bs", "bv":
			g.blob = r.Blob
			resource += "/" + r.Blob
			if g.sr == "bs" {
				timestamp = q.Get("snapshot")
			} else if g.sr == "bv" {
				timestamp = q.Get("versionid")
			}
		default:
			return nil, failed("The signed resource " + strconv.Quote(g.sr) + " is not supported.")
		}
		if r.Container == "" {
			return nil, failed("The SAS is for a container or blob, and the request addresses neither.")
		}
		sv := q.Get("sv")
		fields := common(resource)
		switch {
		case sv >= "2020-12-06":
			fields = append(fields, g.sr, timestamp, q.Get("ses"))
		case sv >= "2018-11-09":
			fields = append(fields, g.sr, timestamp)
		case sv >= "2015-04-05":
		default:
			return nil, failed("The SAS version " + strconv.Quote(sv) + " is not supported.")
		}
		fields = append(fields, q.Get("rscc"), q.Get("rscd"), q.Get("rsce"), q.Get("rscl"), q.Get("rsct"))
		for _, o := range [...][2]string{{"rscc", "Cache-Control"}, {"rscd", "Content-Disposition"}, {"rsce", "Content-Encoding"},
			{"rscl", "Content-Language"}, {"rsct", "Content-Type"}} {
			if v := q.Get(o[0]); v != "" {
				g.overrides = append(g.overrides, [2]string{o[1], v})
			}
		}
		return []string{strings.Join(fields, "\n")}, nil
	case Queue:
		if r.Container == "" {
			return nil, failed("The SAS is for a queue, and the request addresses none.")
		}
		g.container = r.Container
		return []string{strings.Join(common("/queue/"+r.Account+"/"+r.Container), "\n")}, nil
	}
	if q.Get("tn") == "" {
		return nil, failed("The SAS names no table.")
	}
	g.table = strings.ToLower(q.Get("tn"))
	g.lo = Key{q.Get("spk"), q.Get("srk")}
	g.hi = Key{q.Get("epk"), q.Get("erk")}
	g.ranged = g.lo.PartitionKey != "" || g.hi.PartitionKey != ""
	return []string{strings.Join([]string{q.Get("sp"), q.Get("st"), q.Get("se"), "/table/" + r.Account + "/" + g.table,
		q.Get("si"), q.Get("sip"), q.Get("spr"), q.Get("sv"), q.Get("spk"), q.Get("srk"), q.Get("epk"), q.Get("erk")}, "\n")}, nil
}

// parseSASTime reads the ISO 8601 UTC times of a SAS; the date alone is
// allowed too.
func parseSASTime(s string) (time.Time, bool) {
	for _, layout := range [...]timefmt.Layout{timefmt.ISO, timefmt.ISOMinutes, timefmt.RFC3339Nano, timefmt.ISODate} {
		if t, ok := timefmt.Parse(layout, s); ok {
			return t, true
		}
	}
	return time.Time{}, false
}

// ipAllowed checks an address against a SAS's sip: one address or a
// range a-b.
func ipAllowed(sip, remote string) bool {
	ip, ok := urltext.ParseIP(remote)
	if !ok {
		return false
	}
	ip = ip.Unmap()
	lo, hi, isRange := strings.Cut(sip, "-")
	l, ok := urltext.ParseIP(strings.TrimSpace(lo))
	if !ok {
		return false
	}
	if !isRange {
		return l.Unmap().Compare(ip) == 0
	}
	h, ok := urltext.ParseIP(strings.TrimSpace(hi))
	if !ok {
		return false
	}
	return ip.Compare(l.Unmap()) >= 0 && ip.Compare(h.Unmap()) <= 0
}

// sasTimes formats a SAS's start (empty when unset) and expiry.
func sasTimes(start, expiry time.Time) (st, se string) {
	if !start.IsZero() {
		st = start.UTC().Format("2006-01-02T15:04:05Z")
	}
	if !expiry.IsZero() {
		se = expiry.UTC().Format("2006-01-02T15:04:05Z")
	}
	return st, se
}

// TableSAS describes a service SAS to create.
type TableSAS struct {
	Table       string
	Permissions string // in the order raud
	Start       time.Time
	Expiry      time.Time
	Version     string // default 2019-02-02
	Protocol    string // "", "https" or "https,http"
	IP          string
	// The key range, all optional.
	StartPartitionKey, StartRowKey, EndPartitionKey, EndRowKey string
	// Identifier names one of the table's stored access policies, which
	// gives what the token leaves out (permissions, start, expiry).
	Identifier string
}

// NewTableSAS returns the query string of a service SAS signed with key,
// key range included (the Go SDK signs the range but leaves it out of the
// URL, so its tokens fail; this one does not).
func NewTableSAS(account string, key []byte, s TableSAS) string {
	if s.Version == "" {
		s.Version = "2019-02-02"
	}
	st, se := sasTimes(s.Start, s.Expiry)
	toSign := strings.Join([]string{s.Permissions, st, se, "/table/" + account + "/" + strings.ToLower(s.Table),
		s.Identifier, s.IP, s.Protocol, s.Version, s.StartPartitionKey, s.StartRowKey, s.EndPartitionKey, s.EndRowKey}, "\n")
	return sasToken(key, toSign, "sv", s.Version, "tn", s.Table, "si", s.Identifier, "sp", s.Permissions, "st", st, "se", se,
		"sip", s.IP, "spr", s.Protocol, "spk", s.StartPartitionKey, "srk", s.StartRowKey, "epk", s.EndPartitionKey, "erk", s.EndRowKey)
}

// sasToken signs toSign with key and returns the token's query string:
// the fields given as name and value pairs, those that have a value, and
// the signature.
func sasToken(key []byte, toSign string, fields ...string) string {
	q := urltext.Values{}
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] != "" {
			q.Set(fields[i], fields[i+1])
		}
	}
	q.Set("sig", Sign(key, toSign))
	return q.Encode()
}

// AccountSAS describes an account SAS to create.
type AccountSAS struct {
	Permissions   string // in the order rwdlacup
	ResourceTypes string // s, c, o
	// Services are the services the token is good for, from "bqt";
	// empty means "t", the Table service.
	Services      string
	Start, Expiry time.Time
	Version       string // default 2019-02-02
	Protocol      string
	IP            string
}

// NewAccountSAS returns the query string of an account SAS signed with
// key.
func NewAccountSAS(account string, key []byte, s AccountSAS) string {
	if s.Version == "" {
		s.Version = "2019-02-02"
	}
	if s.Services == "" {
		s.Services = "t"
	}
	st, se := sasTimes(s.Start, s.Expiry)
	fields := []string{account, s.Permissions, s.Services, s.ResourceTypes, st, se, s.IP, s.Protocol, s.Version}
	if s.Version >= "2020-12-06" {
		fields = append(fields, "") // no encryption scope
	}
	toSign := strings.Join(fields, "\n") + "\n"
	return sasToken(key, toSign, "sv", s.Version, "ss", s.Services, "srt", s.ResourceTypes, "sp", s.Permissions,
		"st", st, "se", se, "sip", s.IP, "spr", s.Protocol)
}

// SASVersion is the version NewBlobSAS and NewQueueSAS sign with unless
// told otherwise.
const SASVersion = "2025-01-05"

// BlobSAS describes a service SAS for a container or one blob.
type BlobSAS struct {
	Container string
	// Blob names the blob the token is for; empty makes a container SAS.
	Blob        string
	Permissions string // container: in the order racwdl; blob: racwd
	Start       time.Time
	Expiry      time.Time
	Version     string // default SASVersion
	Protocol    string // "", "https" or "https,http"
	IP          string
	// Response header overrides the service applies to a download
	// (rscc, rscd, rsce, rscl, rsct).
	CacheControl, ContentDisposition, ContentEncoding, ContentLanguage, ContentType string
}

// NewBlobSAS returns the query string of a container or blob SAS signed
// with key.
func NewBlobSAS(account string, key []byte, s BlobSAS) string {
	if s.Version == "" {
		s.Version = SASVersion
	}
	sr, resource := "c", "/blob/"+account+"/"+s.Container
	if s.Blob != "" {
		sr, resource = "b", resource+"/"+s.Blob
	}
	st, se := sasTimes(s.Start, s.Expiry)
	fields := []string{s.Permissions, st, se, resource, "", s.IP, s.Protocol, s.Version}
	switch {
	case s.Version >= "2020-12-06":
		fields = append(fields, sr, "", "")
	case s.Version >= "2018-11-09":
		fields = append(fields, sr, "")
	}
	fields = append(fields, s.CacheControl, s.ContentDisposition, s.ContentEncoding, s.ContentLanguage, s.ContentType)
	return sasToken(key, strings.Join(fields, "\n"), "sv", s.Version, "sr", sr, "sp", s.Permissions, "st", st, "se", se,
		"sip", s.IP, "spr", s.Protocol, "rscc", s.CacheControl, "rscd", s.ContentDisposition,
		"rsce", s.ContentEncoding, "rscl", s.ContentLanguage, "rsct", s.ContentType)
}

// QueueSAS describes a service SAS for one queue.
type QueueSAS struct {
	Queue       string
	Permissions string // in the order raup
	Start       time.Time
	Expiry      time.Time
	Version     string // default SASVersion
	Protocol    string // "", "https" or "https,http"
	IP          string
}

// NewQueueSAS returns the query string of a queue SAS signed with key.
func NewQueueSAS(account string, key []byte, s QueueSAS) string {
	if s.Version == "" {
		s.Version = SASVersion
	}
	st, se := sasTimes(s.Start, s.Expiry)
	toSign := strings.Join([]string{s.Permissions, st, se, "/queue/" + account + "/" + s.Queue, "", s.IP, s.Protocol, s.Version}, "\n")
	return sasToken(key, toSign, "sv", s.Version, "sp", s.Permissions, "st", st, "se", se, "sip", s.IP, "spr", s.Protocol)
}

// sasParam reports whether a query parameter is part of a shared access
// signature, as the three services define them.
func sasParam(name string) bool {
	switch name {
	case "sv", "ss", "srt", "sp", "st", "se", "sip", "spr", "sig", "si", "sr", "sdd",
		"skoid", "sktid", "skt", "ske", "sks", "skv", "saoid", "suoid", "scid", "ses",
		"tn", "spk", "srk", "epk", "erk", "rscc", "rscd", "rsce", "rscl", "rsct":
		return true
	}
	return false
}

// A Policy is one of a table's stored access policies: what a SAS naming
// it with si may do, and when. A field left zero must come from the token.
type Policy struct {
	ID            string
	Start, Expiry time.Time
	Permissions   string
}

// ParseTime reads a time as SAS tokens and stored access policies write
// them: ISO 8601 in UTC, to the second or finer, or the date alone.
func ParseTime(s string) (time.Time, bool) { return parseSASTime(s) }
