package auth

import (
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// verifySAS checks a shared access signature in the query string: a
// service SAS for one table (tn) or an account SAS (ss, srt).
func (v *Verifier) verifySAS(r Request, q url.Values) (Grant, error) {
	acct := v.account(r.Account)
	if acct == nil {
		return Grant{}, failed("The account %s is unknown.", r.Account)
	}
	g := Grant{perms: q.Get("sp")}
	var toSign string
	if q.Has("ss") || q.Has("srt") {
		if !strings.Contains(q.Get("ss"), "t") {
			return Grant{}, svcerr.Newf(svcerr.AuthorizationFailure, "The account SAS does not cover the Table service.")
		}
		g.account, g.resourceTypes = true, q.Get("srt")
		toSign = strings.Join([]string{r.Account, q.Get("sp"), q.Get("ss"), q.Get("srt"), q.Get("st"), q.Get("se"), q.Get("sip"), q.Get("spr"), q.Get("sv")}, "\n") + "\n"
	} else {
		if q.Get("tn") == "" {
			return Grant{}, failed("The SAS names no table.")
		}
		if q.Get("si") != "" {
			return Grant{}, failed("Stored access policies are not supported; the identifier %s is unknown.", q.Get("si"))
		}
		g.table = strings.ToLower(q.Get("tn"))
		g.lo = Key{q.Get("spk"), q.Get("srk")}
		g.hi = Key{q.Get("epk"), q.Get("erk")}
		g.ranged = g.lo.PartitionKey != "" || g.hi.PartitionKey != ""
		toSign = strings.Join([]string{q.Get("sp"), q.Get("st"), q.Get("se"), "/table/" + r.Account + "/" + g.table,
			q.Get("si"), q.Get("sip"), q.Get("spr"), q.Get("sv"), q.Get("spk"), q.Get("srk"), q.Get("epk"), q.Get("erk")}, "\n")
	}
	if !v.signedSAS(acct, toSign, q.Get("sig")) {
		return Grant{}, failed("The signature does not match.")
	}
	now := r.now()
	if st := q.Get("st"); st != "" {
		t, ok := parseSASTime(st)
		if !ok {
			return Grant{}, failed("The SAS start time is malformed.")
		}
		if now.Add(MaxClockSkew).Before(t) {
			return Grant{}, failed("The SAS is not valid yet.")
		}
	}
	se, ok := parseSASTime(q.Get("se"))
	if !ok {
		return Grant{}, failed("The SAS expiry time is missing or malformed.")
	}
	if now.After(se) {
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

// parseSASTime reads the ISO 8601 UTC times of a SAS; the date alone is
// allowed too.
func parseSASTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04:05Z", "2006-01-02T15:04Z", time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// ipAllowed checks an address against a SAS's sip: one address or a
// range a-b.
func ipAllowed(sip, remote string) bool {
	ip, err := netip.ParseAddr(remote)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	lo, hi, isRange := strings.Cut(sip, "-")
	l, err := netip.ParseAddr(strings.TrimSpace(lo))
	if err != nil {
		return false
	}
	if !isRange {
		return l.Unmap() == ip
	}
	h, err := netip.ParseAddr(strings.TrimSpace(hi))
	if err != nil {
		return false
	}
	return ip.Compare(l.Unmap()) >= 0 && ip.Compare(h.Unmap()) <= 0
}

// sasTimes formats a SAS's start (empty when unset) and expiry.
func sasTimes(start, expiry time.Time) (st, se string) {
	if !start.IsZero() {
		st = start.UTC().Format("2006-01-02T15:04:05Z")
	}
	return st, expiry.UTC().Format("2006-01-02T15:04:05Z")
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
		"", s.IP, s.Protocol, s.Version, s.StartPartitionKey, s.StartRowKey, s.EndPartitionKey, s.EndRowKey}, "\n")
	q := url.Values{}
	q.Set("sv", s.Version)
	q.Set("tn", s.Table)
	q.Set("sp", s.Permissions)
	if st != "" {
		q.Set("st", st)
	}
	q.Set("se", se)
	for k, v := range map[string]string{"sip": s.IP, "spr": s.Protocol, "spk": s.StartPartitionKey, "srk": s.StartRowKey, "epk": s.EndPartitionKey, "erk": s.EndRowKey} {
		if v != "" {
			q.Set(k, v)
		}
	}
	q.Set("sig", Sign(key, toSign))
	return q.Encode()
}

// AccountSAS describes an account SAS to create.
type AccountSAS struct {
	Permissions   string // in the order rwdlacup
	ResourceTypes string // s, c, o
	Start, Expiry time.Time
	Version       string
	Protocol      string
	IP            string
}

// NewAccountSAS returns the query string of an account SAS for the Table
// service signed with key.
func NewAccountSAS(account string, key []byte, s AccountSAS) string {
	if s.Version == "" {
		s.Version = "2019-02-02"
	}
	st, se := sasTimes(s.Start, s.Expiry)
	toSign := strings.Join([]string{account, s.Permissions, "t", s.ResourceTypes, st, se, s.IP, s.Protocol, s.Version}, "\n") + "\n"
	q := url.Values{}
	q.Set("sv", s.Version)
	q.Set("ss", "t")
	q.Set("srt", s.ResourceTypes)
	q.Set("sp", s.Permissions)
	if st != "" {
		q.Set("st", st)
	}
	q.Set("se", se)
	if s.IP != "" {
		q.Set("sip", s.IP)
	}
	if s.Protocol != "" {
		q.Set("spr", s.Protocol)
	}
	q.Set("sig", Sign(key, toSign))
	return q.Encode()
}
