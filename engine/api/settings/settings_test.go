package settings_test

import (
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/settings"
)

// serve answers one request to the development account on srv.
func serve(srv *api.Server, method, target, body string, headers ...string) *api.Response {
	r := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10002", Body: []byte(body)}
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return srv.Serve(r)
}

func want(t *testing.T, r *api.Response, status int, code string) *api.Response {
	t.Helper()
	if r.Status != status || code != "" && !strings.Contains(string(r.Body), code) {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	return r
}

const corsProps = `<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties>
<Cors>
  <CorsRule><AllowedOrigins>http://app.test, http://admin.test</AllowedOrigins><AllowedMethods>GET,PUT,DELETE,MERGE,POST</AllowedMethods>
    <AllowedHeaders>x-ms-*,content-type,accept</AllowedHeaders><ExposedHeaders>x-ms-*,etag</ExposedHeaders><MaxAgeInSeconds>600</MaxAgeInSeconds></CorsRule>
  <CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods><AllowedHeaders></AllowedHeaders><ExposedHeaders>date</ExposedHeaders><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule>
</Cors></StorageServiceProperties>`

// TestServicePropertiesRoundTrip checks Set and Get Table Service
// Properties: what is set is answered, an element left out keeps its
// setting, bad values are refused with the service's codes and change
// nothing, and the settings outlive the server over the same store.
func TestServicePropertiesRoundTrip(t *testing.T) {
	store := engine.New(engine.Options{})
	srv := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}, Settings: settings.New(store)})
	get := func() string {
		return string(want(t, serve(srv, "GET", "/?restype=service&comp=properties", ""), 200, "").Body)
	}
	if got := get(); !strings.Contains(got, "<Cors />") || !strings.Contains(got, "<Logging><Version>1.0</Version><Delete>false</Delete>") {
		t.Fatalf("defaults: %s", got)
	}
	logging := `<StorageServiceProperties><Logging><Version>1.0</Version><Read>true</Read><Write>false</Write><Delete>true</Delete>` +
		`<RetentionPolicy><Enabled>true</Enabled><Days>7</Days></RetentionPolicy></Logging>` +
		`<HourMetrics><Version>1.0</Version><Enabled>true</Enabled><IncludeAPIs>false</IncludeAPIs><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></HourMetrics></StorageServiceProperties>`
	want(t, serve(srv, "PUT", "/?restype=service&comp=properties", logging), 202, "")
	want(t, serve(srv, "PUT", "/?restype=service&comp=properties", corsProps), 202, "")
	got := get()
	for _, want := range []string{
		"<Read>true</Read>", "<Delete>true</Delete>", "<Days>7</Days>",
		"<HourMetrics><Version>1.0</Version><Enabled>true</Enabled><IncludeAPIs>false</IncludeAPIs>",
		"<AllowedOrigins>http://app.test,http://admin.test</AllowedOrigins>", "<MaxAgeInSeconds>600</MaxAgeInSeconds>",
		"<AllowedOrigins>*</AllowedOrigins>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("after two sets, no %s in %s", want, got)
		}
	}
	for body, code := range map[string]string{
		"<StorageServiceProperties><Cors>": "InvalidXmlDocument",
		"<Other/>":                         "InvalidXmlNodeValue",
		strings.Repeat("x", 3):             "InvalidXmlDocument",
		`<StorageServiceProperties><Cors>` + strings.Repeat(`<CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>GET</AllowedMethods><AllowedHeaders/><ExposedHeaders/><MaxAgeInSeconds>1</MaxAgeInSeconds></CorsRule>`, 6) + `</Cors></StorageServiceProperties>`: "InvalidXmlNodeValue",
		`<StorageServiceProperties><Cors><CorsRule><AllowedOrigins>*</AllowedOrigins><AllowedMethods>TRACE</AllowedMethods><AllowedHeaders/><ExposedHeaders/><MaxAgeInSeconds>1</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>`:                            "InvalidXmlNodeValue",
		`<StorageServiceProperties><Logging><Version>1.0</Version><Read>yes</Read><Write>false</Write><Delete>false</Delete><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></Logging></StorageServiceProperties>`:                                              "InvalidXmlNodeValue",
		`<StorageServiceProperties><MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>true</Enabled><Days>400</Days></RetentionPolicy></MinuteMetrics></StorageServiceProperties>`:                                                     "InvalidXmlNodeValue",
	} {
		r := serve(srv, "PUT", "/?restype=service&comp=properties", body)
		if r.Status != 400 || !strings.Contains(string(r.Body), code) {
			t.Errorf("%.60s: %d %s, want 400 %s", body, r.Status, r.Body, code)
		}
	}
	if again := get(); again != got {
		t.Fatalf("refused sets changed the properties:\n%s\n%s", got, again)
	}
	// A new server over the same settings store answers the same.
	srv2 := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: &auth.Verifier{AllowAnonymous: true}, Settings: settings.New(store)})
	if r := string(want(t, serve(srv2, "GET", "/?restype=service&comp=properties", ""), 200, "").Body); r != got {
		t.Fatalf("another server over the store:\n%s\nwant\n%s", r, got)
	}
}

// TestCORS checks the rules on requests from pages: preflights answered
// before authentication, allowed or refused; actual requests, errors
// included, carrying what the matching rule lets the page see.
func TestCORS(t *testing.T) {
	// Strict authentication: a preflight carries no credentials.
	st := settings.New(nil)
	if err := st.SetProperties("devstoreaccount1", []byte(corsProps)); err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(engine.New(engine.Options{}), api.Options{Settings: st})
	do := func(method, target string, headers ...string) *api.Response {
		return serve(srv, method, target, "", headers...)
	}
	r := do("OPTIONS", "/Tables", "Origin", "http://app.test", "Access-Control-Request-Method", "POST", "Access-Control-Request-Headers", "x-ms-date, Content-Type")
	if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != "http://app.test" || r.Header.Get("Access-Control-Allow-Methods") != "POST" ||
		r.Header.Get("Access-Control-Allow-Headers") != "x-ms-date, Content-Type" || r.Header.Get("Access-Control-Max-Age") != "600" ||
		r.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("allowed preflight: %d %v %s", r.Status, r.Header, r.Body)
	}
	for name, h := range map[string][]string{
		"unknown origin":     {"Origin", "http://evil.test", "Access-Control-Request-Method", "POST"},
		"method not allowed": {"Origin", "http://other.test", "Access-Control-Request-Method", "DELETE"},
		"header not allowed": {"Origin", "http://app.test", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "x-custom"},
	} {
		if r := do("OPTIONS", "/Tables", h...); r.Status != 403 || !strings.Contains(string(r.Body), "CorsPreflightFailure") {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// A preflight missing either header the service requires is 400
	// InvalidHeaderValue, as Azure and Azurite answer it.
	for name, h := range map[string][]string{
		"no Origin":                        {"Access-Control-Request-Method", "GET"},
		"no Access-Control-Request-Method": {"Origin", "http://app.test"},
	} {
		if r := do("OPTIONS", "/Tables", h...); r.Status != 400 || !strings.Contains(string(r.Body), `"code":"InvalidHeaderValue"`) ||
			!strings.Contains(string(r.Body), "A required CORS header is not present.") {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// An actual request from an allowed origin, refused for want of
	// credentials: the error still tells the page it may read it.
	r = do("GET", "/Tables", "Origin", "http://admin.test")
	if r.Status != 403 || r.Header.Get("Access-Control-Allow-Origin") != "http://admin.test" || r.Header.Get("Vary") != "Origin" ||
		r.Header.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(r.Header.Get("Access-Control-Expose-Headers"), "x-ms-request-id") {
		t.Fatalf("error to an allowed origin: %d %v", r.Status, r.Header)
	}
	// Any origin may GET under the second rule: *, no credentials.
	r = do("GET", "/Tables", "Origin", "http://anyone.test")
	if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("Access-Control-Allow-Credentials") != "" || r.Header.Get("Access-Control-Expose-Headers") != "Date" {
		t.Fatalf("wildcard rule: %v", r.Header)
	}
	// A rule that exposes the X-Tablelab-* headers exposes a query's
	// warning with its plan.
	if err := st.SetProperties("devstoreaccount1", []byte(`<StorageServiceProperties><Cors><CorsRule><AllowedOrigins>http://play.test</AllowedOrigins><AllowedMethods>GET</AllowedMethods><AllowedHeaders></AllowedHeaders><ExposedHeaders>x-tablelab-*</ExposedHeaders><MaxAgeInSeconds>5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>`)); err != nil {
		t.Fatal(err)
	}
	open := api.NewServer(engine.New(engine.Options{}), api.Options{Settings: st, Verifier: &auth.Verifier{AllowAnonymous: true}})
	want(t, serve(open, "POST", "/Tables", `{"TableName":"people"}`), 201, "")
	want(t, serve(open, "POST", "/people", `{"PartitionKey":"p","RowKey":"r","Age":3}`), 201, "")
	r = serve(open, "GET", "/people()?$filter=Age%20eq%20'3'", "", "Origin", "http://play.test")
	if exposed := r.Header.Get("Access-Control-Expose-Headers"); r.Header.Get(api.WarningHeader) == "" || !strings.Contains(exposed, api.WarningHeader) || !strings.Contains(exposed, "X-Tablelab-Plan") {
		t.Fatalf("a warning to a page: %v", r.Header)
	}
	if err := st.SetProperties("devstoreaccount1", []byte(corsProps)); err != nil {
		t.Fatal(err)
	}
	// No rule lets anyone.test POST: no CORS headers, but Vary.
	r = do("POST", "/Tables", "Origin", "http://anyone.test")
	if r.Header.Get("Access-Control-Allow-Origin") != "" || r.Header.Get("Vary") != "Origin" {
		t.Fatalf("no matching rule: %v", r.Header)
	}
	// No Origin, no CORS headers.
	if r := do("GET", "/Tables"); r.Header.Get("Vary") != "" || r.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("without Origin: %v", r.Header)
	}
}
