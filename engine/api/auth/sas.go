package auth

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/internal/timefmt"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// A verifiedSAS is what a SAS whose signature has been found good fixes,
// whatever request presents it: what it grants before its stored access
// policy, its times, and the terms it sets the request. A request that
// presents the token again is judged from it (judge) without reading the
// token again or computing its HMAC.
type verifiedSAS struct {
	key           []byte // the account key that signed it
	grant         Grant
	start, expiry time.Time // zero when the token leaves them out
	si, spr, sip  string
}

// verifySAS checks a shared access signature in the query string: a
// service SAS for one table (tn), one blob container or blob (sr), or one
// queue, or an account SAS (ss, srt). It checks what the token holds, the
// signature above all; judge checks the rest.
func (v *Verifier) verifySAS(r Request, q *sasScan) (*verifiedSAS, error) {
	acct := v.account(r.Account)
	if acct == nil {
		return nil, failed("The account " + r.Account + " is unknown.")
	}
	// A parameter given twice could be signed with one value and read
	// with another; the service refuses the token rather than guess.
	if q.twice != "" {
		return nil, failed("The SAS parameter " + q.twice + " is given more than once.")
	}
	g := Grant{perms: q.get(fieldSP), service: r.Service}
	var toSigns []string
	if q.has(fieldSS) || q.has(fieldSRT) {
		if !strings.Contains(q.get(fieldSS), r.Service.letter()) {
			return nil, svcerr.New(svcerr.AuthorizationServiceMismatch)
		}
		g.account, g.resourceTypes = true, q.get(fieldSRT)
		toSigns = accountSASStrings(r.Account, q)
	} else {
		if q.get(fieldSI) != "" && r.Service != Table {
			return nil, failed("Stored access policies are not supported for this service; the identifier " + q.get(fieldSI) + " is unknown.")
		}
		var err error
		if toSigns, err = g.serviceSAS(r, q); err != nil {
			return nil, err
		}
	}
	t := &verifiedSAS{grant: g, si: q.get(fieldSI), spr: q.get(fieldSPR), sip: q.get(fieldSIP)}
	for _, s := range toSigns {
		if t.key = signingKey(acct, s, q.get(fieldSig)); t.key != nil {
			break
		}
	}
	if t.key == nil {
		return nil, failed("The signature does not match.")
	}
	if st := q.get(fieldST); st != "" {
		var ok bool
		if t.start, ok = parseSASTime(st); !ok {
			return nil, failed("The SAS start time is malformed.")
		}
	}
	if se := q.get(fieldSE); se != "" {
		var ok bool
		if t.expiry, ok = parseSASTime(se); !ok {
			return nil, failed("The SAS expiry time is malformed.")
		}
	}
	return t, nil
}

// judge checks what a verified SAS leaves to the request and the moment:
// its stored access policy, read now so that changing or removing it
// changes what the token may do at once; its start and expiry against
// the request's time; its protocol and address against the request's.
func (t *verifiedSAS) judge(v *Verifier, r Request) (Grant, error) {
	g, start, expiry := t.grant, t.start, t.expiry
	if t.si != "" {
		// The stored policy fills what the token leaves out; a field both
		// give is refused, as the service does.
		var p Policy
		ok := false
		if v.Policies != nil {
			p, ok = v.Policies(r.Account, g.table, t.si)
		}
		if !ok {
			return Grant{}, failed("The signed identifier " + t.si + " is not a stored access policy of the table " + g.table + ".")
		}
		if g.perms != "" && p.Permissions != "" || !start.IsZero() && !p.Start.IsZero() || !expiry.IsZero() && !p.Expiry.IsZero() {
			return Grant{}, failed("A field of the SAS is given both by the token and by its stored access policy " + t.si + ".")
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
	if t.spr == "https" && r.Scheme != "https" {
		return Grant{}, svcerr.New(svcerr.AuthorizationProtocolMismatch)
	}
	if t.sip != "" && !ipAllowed(t.sip, r.RemoteIP) {
		return Grant{}, svcerr.New(svcerr.AuthorizationSourceIPMismatch)
	}
	return g, nil
}

// accountSASStrings returns the string an account SAS signs. From
// version 2020-12-06 it holds the encryption scope (ses); tokens of
// those versions without one are also checked in the older form, which
// some table clients still sign.
func accountSASStrings(account string, q *sasScan) []string {
	fields := []string{account, q.get(fieldSP), q.get(fieldSS), q.get(fieldSRT), q.get(fieldST), q.get(fieldSE), q.get(fieldSIP), q.get(fieldSPR), q.get(fieldSV)}
	old := strings.Join(fields, "\n") + "\n"
	if q.get(fieldSV) < "2020-12-06" {
		return []string{old}
	}
	current := strings.Join(append(fields, q.get(fieldSES)), "\n") + "\n"
	if q.get(fieldSES) != "" {
		return []string{current}
	}
	return []string{current, old}
}

// serviceSAS fills in what a service SAS grants and returns the string
// it must sign.
func (g *Grant) serviceSAS(r Request, q *sasScan) ([]string, error) {
	common := func(resource string) []string {
		return []string{q.get(fieldSP), q.get(fieldST), q.get(fieldSE), resource, q.get(fieldSI), q.get(fieldSIP), q.get(fieldSPR), q.get(fieldSV)}
	}
	switch r.Service {
	case Blob:
		g.container, g.sr = r.Container, q.get(fieldSR)
		resource := "/blob/" + r.Account + "/" + r.Container
		var timestamp string
		switch g.sr {
		case "c":
		case "b", "bs", "bv":
			g.blob = r.Blob
			resource += "/" + r.Blob
			if g.sr == "bs" {
				timestamp = q.get(fieldSnapshot)
			} else if g.sr == "bv" {
				timestamp = q.get(fieldVersionID)
			}
		default:
			return nil, failed("The signed resource " + strconv.Quote(g.sr) + " is not supported.")
		}
		if r.Container == "" {
			return nil, failed("The SAS is for a container or blob, and the request addresses neither.")
		}
		sv := q.get(fieldSV)
		fields := common(resource)
		switch {
		case sv >= "2020-12-06":
			fields = append(fields, g.sr, timestamp, q.get(fieldSES))
		case sv >= "2018-11-09":
			fields = append(fields, g.sr, timestamp)
		case sv >= "2015-04-05":
		default:
			return nil, failed("The SAS version " + strconv.Quote(sv) + " is not supported.")
		}
		fields = append(fields, q.get(fieldRSCC), q.get(fieldRSCD), q.get(fieldRSCE), q.get(fieldRSCL), q.get(fieldRSCT))
		// rscc, rscd, rsce, rscl and rsct, numbered in this order.
		for i, name := range [...]string{"Cache-Control", "Content-Disposition", "Content-Encoding", "Content-Language", "Content-Type"} {
			if v := q.get(fieldRSCC + i); v != "" {
				g.overrides = append(g.overrides, [2]string{name, v})
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
	if q.get(fieldTN) == "" {
		return nil, failed("The SAS names no table.")
	}
	g.table = strings.ToLower(q.get(fieldTN))
	g.lo = Key{q.get(fieldSPK), q.get(fieldSRK)}
	g.hi = Key{q.get(fieldEPK), q.get(fieldERK)}
	g.ranged = g.lo.PartitionKey != "" || g.hi.PartitionKey != ""
	return []string{strings.Join([]string{q.get(fieldSP), q.get(fieldST), q.get(fieldSE), "/table/" + r.Account + "/" + g.table,
		q.get(fieldSI), q.get(fieldSIP), q.get(fieldSPR), q.get(fieldSV), q.get(fieldSPK), q.get(fieldSRK), q.get(fieldEPK), q.get(fieldERK)}, "\n")}, nil
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
	i := sasField(name)
	return i >= 0 && i < fieldSnapshot
}

// The query parameters a SAS's check reads, numbered for a cache id
// (sasScan): those of a SAS, then snapshot and versionid, which a blob
// SAS signs though they are not its own.
const (
	fieldSV = iota
	fieldSS
	fieldSRT
	fieldSP
	fieldST
	fieldSE
	fieldSIP
	fieldSPR
	fieldSig
	fieldSI
	fieldSR
	fieldSDD
	fieldSKOID
	fieldSKTID
	fieldSKT
	fieldSKE
	fieldSKS
	fieldSKV
	fieldSAOID
	fieldSUOID
	fieldSCID
	fieldSES
	fieldTN
	fieldSPK
	fieldSRK
	fieldEPK
	fieldERK
	fieldRSCC
	fieldRSCD
	fieldRSCE
	fieldRSCL
	fieldRSCT
	fieldSnapshot
	fieldVersionID
	numFields
)

// The parts of a cache id that the request gives (sasScan.id), numbered
// after the fields.
const (
	partAccount = numFields + iota
	partContainer
	partBlob
	numParts
)

// sasFieldNames holds the names of the fields in the order of their
// numbers, each in a slot of nine bytes padded with spaces.
const sasFieldNames = "sv       ss       srt      sp       st       se       sip      spr      " +
	"sig      si       sr       sdd      skoid    sktid    skt      ske      " +
	"sks      skv      saoid    suoid    scid     ses      tn       spk      " +
	"srk      epk      erk      rscc     rscd     rsce     rscl     rsct     " +
	"snapshot versionid"

// sasField returns the number of a query parameter a SAS's check reads,
// or -1. The most common come first, and a slot's first two bytes rule
// most out, so a search is short; it links far less code than a switch.
func sasField(name string) int {
	// No name ends in a space, which a slot's padding would match.
	if len(name) < 2 || len(name) > 9 || name[len(name)-1] == ' ' {
		return -1
	}
	for i := 0; i < len(sasFieldNames); i += 9 {
		if sasFieldNames[i] == name[0] && sasFieldNames[i+1] == name[1] && sasFieldNames[i:i+len(name)] == name &&
			(len(name) == 9 || sasFieldNames[i+len(name)] == ' ') {
			return i / 9
		}
	}
	return -1
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
