package settings

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Properties are an account's Table service properties, as Set Table
// Service Properties writes them: analytics logging and metrics
// (recorded and answered; tablelab writes no analytics) and the CORS
// rules every request is held to.
type Properties struct {
	Logging       Logging
	HourMetrics   Metrics
	MinuteMetrics Metrics
	Cors          []api.CorsRule
}

// Logging is the <Logging> element.
type Logging struct {
	Version             string
	Read, Write, Delete bool
	Retention           Retention
}

// Metrics is the <HourMetrics> or <MinuteMetrics> element.
type Metrics struct {
	Version     string
	Enabled     bool
	IncludeAPIs bool
	Retention   Retention
}

// Retention is a <RetentionPolicy>: Days only when Enabled.
type Retention struct {
	Enabled bool
	Days    int
}

// The service's limits on CORS rules.
const (
	maxCorsRules       = 5
	maxCorsOrigins     = 64
	maxCorsHeaders     = 64
	maxCorsPrefixed    = 2
	maxCorsValueLength = 256
)

// corsMethods are the methods a rule may allow.
var corsMethods = []string{"DELETE", "GET", "HEAD", "MERGE", "POST", "OPTIONS", "PUT", "PATCH"}

// defaultProperties are an account's properties before any Set.
func defaultProperties() *Properties {
	return &Properties{
		Logging:       Logging{Version: "1.0"},
		HourMetrics:   Metrics{Version: "1.0"},
		MinuteMetrics: Metrics{Version: "1.0"},
	}
}

// AppendXML appends p as the body of Get Table Service Properties.
func (p *Properties) AppendXML(b []byte) []byte {
	b = append(b, `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Logging>`...)
	b = xmlwire.AppendElement(b, "Version", p.Logging.Version)
	b = appendBool(b, "Delete", p.Logging.Delete)
	b = appendBool(b, "Read", p.Logging.Read)
	b = appendBool(b, "Write", p.Logging.Write)
	b = p.Logging.Retention.appendXML(b)
	b = append(b, "</Logging><HourMetrics>"...)
	b = p.HourMetrics.appendXML(b)
	b = append(b, "</HourMetrics><MinuteMetrics>"...)
	b = p.MinuteMetrics.appendXML(b)
	b = append(b, "</MinuteMetrics>"...)
	if len(p.Cors) == 0 {
		b = append(b, "<Cors />"...)
	} else {
		b = append(b, "<Cors>"...)
		for _, r := range p.Cors {
			b = append(b, "<CorsRule>"...)
			b = xmlwire.AppendElement(b, "AllowedMethods", strings.Join(r.AllowedMethods, ","))
			b = xmlwire.AppendElement(b, "AllowedOrigins", strings.Join(r.AllowedOrigins, ","))
			b = xmlwire.AppendElement(b, "AllowedHeaders", strings.Join(r.AllowedHeaders, ","))
			b = xmlwire.AppendElement(b, "ExposedHeaders", strings.Join(r.ExposedHeaders, ","))
			b = xmlwire.AppendElement(b, "MaxAgeInSeconds", strconv.Itoa(r.MaxAge))
			b = append(b, "</CorsRule>"...)
		}
		b = append(b, "</Cors>"...)
	}
	return append(b, "</StorageServiceProperties>"...)
}

func (m Metrics) appendXML(b []byte) []byte {
	b = xmlwire.AppendElement(b, "Version", m.Version)
	b = appendBool(b, "Enabled", m.Enabled)
	if m.Enabled {
		b = appendBool(b, "IncludeAPIs", m.IncludeAPIs)
	}
	return m.Retention.appendXML(b)
}

func (r Retention) appendXML(b []byte) []byte {
	b = append(b, "<RetentionPolicy>"...)
	b = appendBool(b, "Enabled", r.Enabled)
	if r.Enabled {
		b = xmlwire.AppendElement(b, "Days", strconv.Itoa(r.Days))
	}
	return append(b, "</RetentionPolicy>"...)
}

func appendBool(b []byte, name string, v bool) []byte {
	return xmlwire.AppendElement(b, name, strconv.FormatBool(v))
}

// ParseProperties reads a Set Table Service Properties body over cur: an
// element the body leaves out keeps its current setting, as the service
// does, and a <Cors> element present replaces every rule.
func ParseProperties(body []byte, cur *Properties) (*Properties, error) {
	root, err := xmlwire.Parse(body)
	if err != nil {
		return nil, err
	}
	if root.Name != "StorageServiceProperties" {
		return nil, nodeValue("the root element must be StorageServiceProperties, not " + root.Name)
	}
	p := *cur
	p.Cors = append([]api.CorsRule(nil), cur.Cors...)
	if e := root.Child("Logging"); e != nil {
		var l Logging
		if l.Version, err = version(e); err != nil {
			return nil, err
		}
		for name, dst := range map[string]*bool{"Read": &l.Read, "Write": &l.Write, "Delete": &l.Delete} {
			if *dst, err = boolChild(e, "Logging", name); err != nil {
				return nil, err
			}
		}
		if l.Retention, err = retention(e, "Logging"); err != nil {
			return nil, err
		}
		p.Logging = l
	}
	for name, dst := range map[string]*Metrics{"HourMetrics": &p.HourMetrics, "MinuteMetrics": &p.MinuteMetrics} {
		e := root.Child(name)
		if e == nil {
			continue
		}
		var m Metrics
		if m.Version, err = version(e); err != nil {
			return nil, err
		}
		if m.Enabled, err = boolChild(e, name, "Enabled"); err != nil {
			return nil, err
		}
		if m.Enabled {
			if m.IncludeAPIs, err = boolChild(e, name, "IncludeAPIs"); err != nil {
				return nil, err
			}
		}
		if m.Retention, err = retention(e, name); err != nil {
			return nil, err
		}
		*dst = m
	}
	if e := root.Child("Cors"); e != nil {
		rules := e.All("CorsRule")
		if len(rules) > maxCorsRules {
			return nil, nodeValue("at most " + strconv.Itoa(maxCorsRules) + " CORS rules, not " + strconv.Itoa(len(rules)))
		}
		p.Cors = p.Cors[:0]
		for _, r := range rules {
			rule, err := corsRule(r)
			if err != nil {
				return nil, err
			}
			p.Cors = append(p.Cors, rule)
		}
	}
	return &p, nil
}

func nodeValue(why string) error {
	return svcerr.With(svcerr.InvalidXMLNodeValue, svcerr.InvalidXMLNodeValue.Message()+" ("+why+")")
}

func version(e *xmlwire.Element) (string, error) {
	v := e.Child("Version")
	if v == nil {
		return "", nodeValue(e.Name + " needs a Version")
	}
	switch t := strings.TrimSpace(v.Text); t {
	case "1.0", "2.0":
		return t, nil
	default:
		return "", nodeValue(e.Name + " Version " + strconv.Quote(t) + " is not 1.0 or 2.0")
	}
}

func boolChild(e *xmlwire.Element, parent, name string) (bool, error) {
	c := e.Child(name)
	if c == nil {
		return false, nodeValue(parent + " needs " + name)
	}
	switch strings.TrimSpace(c.Text) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, nodeValue(parent + "/" + name + " must be true or false")
}

func retention(e *xmlwire.Element, parent string) (Retention, error) {
	r := e.Child("RetentionPolicy")
	if r == nil {
		return Retention{}, nodeValue(parent + " needs a RetentionPolicy")
	}
	on, err := boolChild(r, parent+"/RetentionPolicy", "Enabled")
	if err != nil || !on {
		return Retention{}, err
	}
	d := r.Child("Days")
	if d == nil {
		return Retention{}, nodeValue(parent + "/RetentionPolicy needs Days when enabled")
	}
	days, err := strconv.Atoi(strings.TrimSpace(d.Text))
	if err != nil || days < 1 || days > 365 {
		return Retention{}, nodeValue(parent + "/RetentionPolicy/Days must be 1 to 365")
	}
	return Retention{Enabled: true, Days: days}, nil
}

func corsRule(e *xmlwire.Element) (api.CorsRule, error) {
	text := func(name string) (string, bool) {
		c := e.Child(name)
		if c == nil {
			return "", false
		}
		return strings.TrimSpace(c.Text), true
	}
	var r api.CorsRule
	origins, ok := text("AllowedOrigins")
	if !ok || origins == "" {
		return r, nodeValue("a CorsRule needs AllowedOrigins")
	}
	r.AllowedOrigins = splitList(origins)
	if len(r.AllowedOrigins) > maxCorsOrigins {
		return r, nodeValue("at most " + strconv.Itoa(maxCorsOrigins) + " allowed origins in a rule")
	}
	for _, o := range r.AllowedOrigins {
		if len(o) > maxCorsValueLength || o == "*" && len(r.AllowedOrigins) > 1 {
			return r, nodeValue("allowed origin " + strconv.Quote(o) + " is longer than 256 characters or * among others")
		}
	}
	methods, ok := text("AllowedMethods")
	if !ok || methods == "" {
		return r, nodeValue("a CorsRule needs AllowedMethods")
	}
	for _, m := range splitList(methods) {
		known := false
		for _, k := range corsMethods {
			if strings.EqualFold(m, k) {
				r.AllowedMethods, known = append(r.AllowedMethods, k), true
				break
			}
		}
		if !known {
			return r, nodeValue("the method " + strconv.Quote(m) + " cannot be allowed")
		}
	}
	for name, dst := range map[string]*[]string{"AllowedHeaders": &r.AllowedHeaders, "ExposedHeaders": &r.ExposedHeaders} {
		v, ok := text(name)
		if !ok {
			return r, nodeValue("a CorsRule needs " + name + ", empty or not")
		}
		list := splitList(v)
		prefixed := 0
		for _, h := range list {
			if strings.HasSuffix(h, "*") {
				prefixed++
			}
			if len(h) > maxCorsValueLength {
				return r, nodeValue(name + " holds a name longer than 256 characters")
			}
		}
		if len(list)-prefixed > maxCorsHeaders || prefixed > maxCorsPrefixed {
			return r, nodeValue(name + " holds more than 64 names or more than 2 prefixes")
		}
		*dst = list
	}
	age, ok := text("MaxAgeInSeconds")
	if !ok {
		return r, nodeValue("a CorsRule needs MaxAgeInSeconds")
	}
	n, err := strconv.Atoi(age)
	if err != nil || n < 0 {
		return r, nodeValue("MaxAgeInSeconds must be a whole number of seconds")
	}
	r.MaxAge = n
	return r, nil
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
