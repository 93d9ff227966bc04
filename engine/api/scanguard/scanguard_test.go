package scanguard

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/internal/apitest"
)

// guarded is a Table service with a table People of partitions a and b,
// behind a guard with o, and the lines the guard logged.
func guarded(t *testing.T, o Options) (*Guard, *[]string) {
	t.Helper()
	core := api.NewServer(engine.New(engine.Options{}), api.Options{Verifier: apitest.Anonymous()})
	var lines []string
	o.Logf = func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	g, err := New(core, o)
	if err != nil {
		t.Fatal(err)
	}
	apitest.Do(g, "POST", "/Tables", `{"TableName":"People"}`)
	for _, e := range []string{`"a","RowKey":"1","N":1`, `"a","RowKey":"2","N":2`, `"b","RowKey":"1","N":3`} {
		if r := apitest.Do(g, "POST", "/People", `{"PartitionKey":`+e+`}`); r.Status != 201 {
			t.Fatalf("insert: %d %s", r.Status, r.Body)
		}
	}
	lines = nil
	return g, &lines
}

func query(filter string) string { return "/People()?$filter=" + url.QueryEscape(filter) }

// TestReport checks -scan report: a table scan is answered as usual with
// the warning header and a log line naming the table, the filter and the
// way around it; other plans are left alone, and partition scans count
// only when asked for.
func TestReport(t *testing.T) {
	g, lines := guarded(t, Options{Mode: Report})
	resp := apitest.Do(g, "GET", query("N gt 1"), "")
	if resp.Status != 200 || !strings.Contains(string(resp.Body), `"N":3`) {
		t.Fatalf("reported scan: %d %s, want the page", resp.Status, resp.Body)
	}
	if w := resp.Header.Get(Header); !strings.HasPrefix(w, "table-scan; name one PartitionKey with eq") {
		t.Errorf("%s: %q", Header, w)
	}
	if len(*lines) != 1 || !strings.Contains((*lines)[0], `table-scan of People, $filter "N gt 1", examined 3, returned 2`) {
		t.Errorf("log %q", *lines)
	}
	for _, target := range []string{query("PartitionKey eq 'a'"), query("PartitionKey eq 'a' and RowKey ge '2'"), "/People(PartitionKey='a',RowKey='1')", "/Tables"} {
		if resp := apitest.Do(g, "GET", target, ""); resp.Status != 200 || resp.Header.Has(Header) {
			t.Errorf("%s: %d, warning %q; want 200 and none", target, resp.Status, resp.Header.Get(Header))
		}
	}
	if len(*lines) != 1 {
		t.Errorf("logged %q, want the table scan alone", *lines)
	}

	g, lines = guarded(t, Options{Mode: Report, Plans: []string{TableScan, PartitionScan}})
	resp = apitest.Do(g, "GET", query("PartitionKey eq 'a'"), "")
	if w := resp.Header.Get(Header); resp.Status != 200 || !strings.HasPrefix(w, "partition-scan; bound RowKey") {
		t.Errorf("partition scan counted: %d %q", resp.Status, w)
	}
	if resp := apitest.Do(g, "GET", "/People()", ""); !strings.HasPrefix(resp.Header.Get(Header), "table-scan;") {
		t.Errorf("no filter: warning %q", resp.Header.Get(Header))
	}
	if len(*lines) != 2 || !strings.Contains((*lines)[1], "no $filter") {
		t.Errorf("log %q", *lines)
	}
}

// TestRefuse checks -scan fail: a table scan is 400 TableScanRefused in
// the Table service's JSON error format, its message naming the filter,
// the table and the way around it, with the plan headers kept; a request
// the service refuses for another reason keeps its own error.
func TestRefuse(t *testing.T) {
	g, lines := guarded(t, Options{Mode: Refuse})
	resp := apitest.Do(g, "GET", query("N gt 1"), "")
	var body struct {
		Err struct {
			Code    string
			Message struct{ Value string }
		} `json:"odata.error"`
	}
	if err := json.Unmarshal(resp.Body, &body); err != nil {
		t.Fatalf("%d %s: %v", resp.Status, resp.Body, err)
	}
	msg := body.Err.Message.Value
	if resp.Status != 400 || body.Err.Code != "TableScanRefused" {
		t.Fatalf("refused scan: %d %s", resp.Status, resp.Body)
	}
	for _, want := range []string{`$filter "N gt 1"`, "table-scan", "every partition of table People", "PartitionKey with eq", "-scan fail", "\nRequestId:"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	h := resp.Header
	if h.Get("X-Tablelab-Plan") != "table-scan" || h.Get("X-Tablelab-Examined") != "3" || h.Get("X-Tablelab-Returned") != "0" || !h.Has(Header) {
		t.Errorf("plan headers %q %q %q, warning %q", h.Get("X-Tablelab-Plan"), h.Get("X-Tablelab-Examined"), h.Get("X-Tablelab-Returned"), h.Get(Header))
	}
	if len(*lines) != 1 || !strings.Contains((*lines)[0], "scan refused: table-scan of People") {
		t.Errorf("log %q", *lines)
	}
	if resp := apitest.Do(g, "GET", query("PartitionKey eq 'a'"), ""); resp.Status != 200 {
		t.Errorf("partition scan under the default plans: %d %s", resp.Status, resp.Body)
	}
	for target, code := range map[string]string{"/Missing()": "TableNotFound", query("N gt"): "InvalidInput"} {
		if resp := apitest.Do(g, "GET", target, ""); resp.Status == 200 || !strings.Contains(string(resp.Body), `"code":"`+code+`"`) {
			t.Errorf("%s: %d %s, want %s", target, resp.Status, resp.Body, code)
		}
	}
	strict := api.NewServer(engine.New(engine.Options{}), api.Options{})
	sg, _ := New(strict, Options{Mode: Refuse})
	if resp := apitest.Do(sg, "GET", "/People()", ""); resp.Status != 403 {
		t.Errorf("unsigned scan: %d %s, want 403 before any refusal of the scan", resp.Status, resp.Body)
	}
}

func TestOptions(t *testing.T) {
	core := api.NewServer(nil, api.Options{})
	for _, o := range []Options{{}, {Mode: Report, Plans: []string{"point"}}, {Mode: Refuse, Plans: []string{"table-scan", "range"}}} {
		if _, err := New(core, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
