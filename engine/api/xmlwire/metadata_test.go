package xmlwire_test

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// TestMetadata reads and writes x-ms-meta-* headers through api.Header,
// the type the services hand it; an external test, since package api
// itself reads XML with this package.
func TestMetadata(t *testing.T) {
	var h api.Header
	h.Set("Content-Type", "text/plain")
	h.Set("x-ms-meta-Alpha", "one")
	h.Set("X-Ms-Meta-beta_2", "")
	h.Set("x-ms-meta-_c", "three four")
	h.Set("x-ms-metadata", "not metadata")
	m, err := xmlwire.Metadata(&h)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 3 || m[0] != (xmlwire.Pair{"Alpha", "one"}) || m[1] != (xmlwire.Pair{"beta_2", ""}) || m[2] != (xmlwire.Pair{"_c", "three four"}) {
		t.Fatalf("%+v", m)
	}
	var out api.Header
	xmlwire.SetMetadata(&out, m)
	if out.Len() != 3 || out.Get("x-ms-meta-alpha") != "one" || !out.Has("x-ms-meta-beta_2") {
		t.Fatalf("SetMetadata: %+v", out)
	}
	back, err := xmlwire.Metadata(&out)
	if err != nil || len(back) != 3 || back[0] != m[0] {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if got := string(xmlwire.AppendMetadata(nil, m)); got != "<Metadata><Alpha>one</Alpha><beta_2></beta_2><_c>three four</_c></Metadata>" {
		t.Error(got)
	}

	for name, c := range map[string]struct {
		headers map[string]string
		code    svcerr.Code
	}{
		"empty key":    {map[string]string{"x-ms-meta-": "v"}, svcerr.EmptyMetadataKey},
		"digit first":  {map[string]string{"x-ms-meta-1a": "v"}, svcerr.InvalidMetadata},
		"dash":         {map[string]string{"x-ms-meta-a-b": "v"}, svcerr.InvalidMetadata},
		"dot":          {map[string]string{"x-ms-meta-a.b": "v"}, svcerr.InvalidMetadata},
		"too large":    {map[string]string{"x-ms-meta-a": strings.Repeat("v", xmlwire.MaxMetadata)}, svcerr.MetadataTooLarge},
		"large, split": {map[string]string{"x-ms-meta-a": strings.Repeat("v", xmlwire.MaxMetadata/2), "x-ms-meta-b": strings.Repeat("v", xmlwire.MaxMetadata/2)}, svcerr.MetadataTooLarge},
	} {
		var h api.Header
		for k, v := range c.headers {
			h.Set(k, v)
		}
		if _, err := xmlwire.Metadata(&h); !svcerr.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	var h2 api.Header
	h2.Set("x-ms-meta-ab", strings.Repeat("v", xmlwire.MaxMetadata-2)) // exactly the limit
	if _, err := xmlwire.Metadata(&h2); err != nil {
		t.Errorf("metadata of exactly %d bytes: %v", xmlwire.MaxMetadata, err)
	}
}
