package auth

// The verifier as it was before it cached tokens by their fields as
// sent (sigcache.go): every request's query parsed in full, its string
// to sign built and its HMAC computed. The tests hold the verifier to
// answering every request as this does.

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// referenceVerify is Verify for a request without an Authorization
// header, as it was.
func (v *Verifier) referenceVerify(r Request) (Grant, error) {
	r.Account, _ = Primary(r.Account)
	q, err := ParseQuery(r.Query)
	if err != nil {
		return Grant{}, failed("The query string is malformed.")
	}
	if q.Get("sig") != "" {
		return v.refVerifySAS(r, q)
	}
	if v.AllowAnonymous {
		return Grant{full: true, service: r.Service}, nil
	}
	return Grant{}, svcerr.New(svcerr.AuthorizationFailure)
}

// verifySAS checks a shared access signature in the query string: a
// service SAS for one table (tn), one blob container or blob (sr), or one
// queue, or an account SAS (ss, srt).
func (v *Verifier) refVerifySAS(r Request, q urltext.Values) (Grant, error) {
	acct := v.account(r.Account)
	if acct == nil {
		return Grant{}, failed("The account " + r.Account + " is unknown.")
	}
	// A parameter given twice could be signed with one value and read
	// with another; the service refuses the token rather than guess.
	twice := ""
	for name, vals := range q {
		if len(vals) > 1 && sasParam(name) && (twice == "" || sasField(name) < sasField(twice)) {
			twice = name
		}
	}
	if twice != "" {
		return Grant{}, failed("The SAS parameter " + twice + " is given more than once.")
	}
	g := Grant{perms: q.Get("sp"), service: r.Service}
	var toSigns []string
	if q.Has("ss") || q.Has("srt") {
		if !strings.Contains(q.Get("ss"), r.Service.letter()) {
			return Grant{}, svcerr.New(svcerr.AuthorizationServiceMismatch)
		}
		g.account, g.resourceTypes = true, q.Get("srt")
		toSigns = refAccountSASStrings(r.Account, q)
	} else {
		if q.Get("si") != "" && r.Service != Table {
			return Grant{}, failed("Stored access policies are not supported for this service; the identifier " + q.Get("si") + " is unknown.")
		}
		var err error
		if toSigns, err = g.refServiceSAS(r, q); err != nil {
			return Grant{}, err
		}
	}
	signed := false
	for _, s := range toSigns {
		if signingKey(acct, s, q.Get("sig")) != nil {
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
func refAccountSASStrings(account string, q urltext.Values) []string {
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
func (g *Grant) refServiceSAS(r Request, q urltext.Values) ([]string, error) {
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
