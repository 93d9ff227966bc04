package api

import (
	"net/url"
	"strings"
	"testing"
)

// TestWarningHeader checks that a query whose filter compares a property
// with a literal of a type the property never had on the entities
// examined says so in X-Tablelab-Warning, under both profiles, and that a
// query that compares as the data allows carries no warning.
func TestWarningHeader(t *testing.T) {
	for _, c := range []*client{newClient(t), newCosmosClient(t)} {
		for i, age := range []string{"30", "40", "50"} {
			c.want(c.do("POST", "/people", `{"PartitionKey":"p","RowKey":"r`+age+`","Age":`+age+`,"Name":"n`+string(rune('a'+i))+`"}`), 201)
		}
		query := func(filter string) *Response {
			return c.want(c.do("GET", "/people()?$filter="+url.QueryEscape(filter), ""), 200)
		}
		r := query("Age gt 'x'")
		const want = "Age is Edm.Int32 on all 3 entities where the filter tested it, but Age gt 'x' compares it with an Edm.String literal: values of different types never compare, so the test was false for every one (a number or a Boolean is written without quotes)"
		if got := r.Header.Get(WarningHeader); got != want {
			t.Errorf("Age gt 'x': warning\n%q\nwant\n%q", got, want)
		}
		if got := rowKeys(t, r); len(got) != 0 {
			t.Errorf("Age gt 'x' returned %v", got)
		}
		// Two warnings, joined; printable ASCII, the separator escaped
		// inside one.
		r = query("Age eq 'é;x' or Name eq 7")
		got := r.Header.Get(WarningHeader)
		parts := strings.Split(got, "; ")
		if len(parts) != 2 || !strings.Contains(parts[0], `Age eq '\u00e9\u003bx' compares it with an Edm.String literal`) ||
			!strings.HasPrefix(parts[1], "Name is Edm.String on all 3 entities where the filter tested it, but Name eq 7 compares it with an Edm.Int32 literal") {
			t.Errorf("two warnings: %q", got)
		}
		for _, f := range []string{"Age gt 35", "Age ge 30L", "Name eq 'na'", "Nothing eq 'x'"} {
			if f == "Age ge 30L" {
				// An Int32 is never compared with an Int64 literal.
				if r := query(f); !strings.Contains(r.Header.Get(WarningHeader), "Edm.Int64 literal") {
					t.Errorf("%s: warning %q", f, r.Header.Get(WarningHeader))
				}
				continue
			}
			if r := query(f); r.Header.Has(WarningHeader) {
				t.Errorf("%s: warning %q", f, r.Header.Get(WarningHeader))
			}
		}
	}
}

// TestHeaderText checks the escaping of a warning for a header.
func TestHeaderText(t *testing.T) {
	for in, want := range map[string]string{
		"plain 'text'":   "plain 'text'",
		"a;b":            `a\u003bb`,
		"été\n🚀\x7f":     `\u00e9t\u00e9\u000a\ud83d\ude80\u007f`,
		"":               "",
		"tab\there, end": `tab\u0009here, end`,
	} {
		if got := string(appendHeaderText(nil, in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
