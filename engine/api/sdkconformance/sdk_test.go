package sdkconformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablelab/tablelab/engine/api/auth"
)

var ctx = context.Background()

// wantErr checks a failed call's status and error code.
func wantErr(t *testing.T, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, want a ResponseError %d %s", err, status, code)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("got %d %s, want %d %s", re.StatusCode, re.ErrorCode, status, code)
	}
}

func marshal(t *testing.T, e aztables.EDMEntity) []byte {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func entity(pk, rk string, props map[string]any) []byte {
	b, _ := json.Marshal(aztables.EDMEntity{Entity: aztables.Entity{PartitionKey: pk, RowKey: rk}, Properties: props})
	return b
}

func decode(t *testing.T, b []byte) aztables.EDMEntity {
	t.Helper()
	var e aztables.EDMEntity
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return e
}

func TestTables(t *testing.T) {
	svc, _, _ := newService(t)
	if _, err := svc.CreateTable(ctx, "Customers", nil); err != nil {
		t.Fatal(err)
	}
	_, err := svc.CreateTable(ctx, "customers", nil)
	wantErr(t, err, 409, "TableAlreadyExists")
	for name, code := range map[string]string{"ab": "OutOfRangeInput", "1abc": "InvalidResourceName", "Tables": "InvalidInput", "has-dash": "InvalidResourceName"} {
		_, err := svc.CreateTable(ctx, name, nil)
		wantErr(t, err, 400, code)
	}
	for _, n := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
		if _, err := svc.CreateTable(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Paging by two, all tables, in name order.
	var names []string
	pages := 0
	pager := svc.NewListTablesPager(&aztables.ListTablesOptions{Top: to.Ptr(int32(2))})
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, tbl := range p.Tables {
			names = append(names, *tbl.Name)
		}
	}
	if fmt.Sprint(names) != "[alpha bravo charlie Customers delta echo]" || pages != 3 {
		t.Fatalf("tables %v in %d pages", names, pages)
	}
	pager = svc.NewListTablesPager(&aztables.ListTablesOptions{Filter: to.Ptr("TableName ge 'c' and TableName lt 'd'")})
	p, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tables) != 1 || *p.Tables[0].Name != "charlie" {
		t.Fatalf("filtered tables: %d", len(p.Tables))
	}
	if _, err := svc.DeleteTable(ctx, "CUSTOMERS", nil); err != nil {
		t.Fatal(err)
	}
	_, err = svc.DeleteTable(ctx, "customers", nil)
	wantErr(t, err, 404, "ResourceNotFound")
	_, err = svc.NewClient("customers").AddEntity(ctx, entity("a", "b", nil), nil)
	wantErr(t, err, 404, "TableNotFound")
}

func TestEntityOperations(t *testing.T) {
	svc, _, _ := newService(t)
	c := svc.NewClient("people")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	add, err := c.AddEntity(ctx, entity("Sales", "1", map[string]any{"Name": "Ann", "Age": int32(30)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if add.ETag == "" || !strings.Contains(string(add.Value), `"Name":"Ann"`) {
		t.Fatalf("insert answer: %q %s", add.ETag, add.Value)
	}
	_, err = c.AddEntity(ctx, entity("Sales", "1", nil), nil)
	wantErr(t, err, 409, "EntityAlreadyExists")

	got, err := c.GetEntity(ctx, "Sales", "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag != add.ETag {
		t.Fatalf("get etag %s, insert etag %s", got.ETag, add.ETag)
	}
	e := decode(t, got.Value)
	if e.Properties["Name"] != "Ann" || e.Properties["Age"] != int32(30) || e.Timestamp == (aztables.EDMDateTime{}) {
		t.Fatalf("entity %+v", e)
	}
	_, err = c.GetEntity(ctx, "Sales", "404", nil)
	wantErr(t, err, 404, "ResourceNotFound")

	// Merge with the current ETag keeps Age; a stale ETag is refused.
	merged, err := c.UpdateEntity(ctx, entity("Sales", "1", map[string]any{"Name": "Anne"}), &aztables.UpdateEntityOptions{IfMatch: &add.ETag, UpdateMode: aztables.UpdateModeMerge})
	if err != nil {
		t.Fatal(err)
	}
	if merged.ETag == add.ETag {
		t.Fatal("ETag unchanged by a merge")
	}
	_, err = c.UpdateEntity(ctx, entity("Sales", "1", map[string]any{"X": "y"}), &aztables.UpdateEntityOptions{IfMatch: &add.ETag, UpdateMode: aztables.UpdateModeReplace})
	wantErr(t, err, 412, "UpdateConditionNotSatisfied")
	got, _ = c.GetEntity(ctx, "Sales", "1", nil)
	if e := decode(t, got.Value); e.Properties["Name"] != "Anne" || e.Properties["Age"] != int32(30) {
		t.Fatalf("after merge: %v", e.Properties)
	}
	// Replace with * drops the other properties.
	if _, err := c.UpdateEntity(ctx, entity("Sales", "1", map[string]any{"Only": true}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeReplace}); err != nil {
		t.Fatal(err)
	}
	got, _ = c.GetEntity(ctx, "Sales", "1", nil)
	if e := decode(t, got.Value); len(e.Properties) != 1 || e.Properties["Only"] != true {
		t.Fatalf("after replace: %v", e.Properties)
	}
	_, err = c.UpdateEntity(ctx, entity("Sales", "404", nil), nil)
	wantErr(t, err, 404, "ResourceNotFound")

	// Upserts create, then update.
	for _, mode := range []aztables.UpdateMode{aztables.UpdateModeMerge, aztables.UpdateModeReplace} {
		rk := "up-" + string(mode)
		if _, err := c.UpsertEntity(ctx, entity("Sales", rk, map[string]any{"A": int32(1)}), &aztables.UpsertEntityOptions{UpdateMode: mode}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpsertEntity(ctx, entity("Sales", rk, map[string]any{"B": int32(2)}), &aztables.UpsertEntityOptions{UpdateMode: mode}); err != nil {
			t.Fatal(err)
		}
		got, _ := c.GetEntity(ctx, "Sales", rk, nil)
		e := decode(t, got.Value)
		_, hasA := e.Properties["A"]
		if hasA != (mode == aztables.UpdateModeMerge) || e.Properties["B"] != int32(2) {
			t.Fatalf("upsert %s: %v", mode, e.Properties)
		}
	}

	// Delete: stale ETag refused, current accepted, then gone.
	cur, _ := c.GetEntity(ctx, "Sales", "1", nil)
	_, err = c.DeleteEntity(ctx, "Sales", "1", &aztables.DeleteEntityOptions{IfMatch: &add.ETag})
	wantErr(t, err, 412, "UpdateConditionNotSatisfied")
	if _, err := c.DeleteEntity(ctx, "Sales", "1", &aztables.DeleteEntityOptions{IfMatch: &cur.ETag}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DeleteEntity(ctx, "Sales", "1", nil)
	wantErr(t, err, 404, "ResourceNotFound")

	// $select through the query path.
	pager := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq 'Sales'"), Select: to.Ptr("RowKey,B")})
	p, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range p.Entities {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		if _, ok := m["PartitionKey"]; ok || m["B"] != float64(2) {
			t.Fatalf("selected: %s", raw)
		}
	}
}

func TestEdmTypesRoundTrip(t *testing.T) {
	svc, _, _ := newService(t)
	c := svc.NewClient("types")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	when := time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC)
	props := map[string]any{
		"Str":     "héllo 'quoted' \"double\" 🚀",
		"Empty":   "",
		"I32":     int32(-2147483648),
		"I32max":  int32(2147483647),
		"I64":     aztables.EDMInt64(9007199254740993),
		"I64min":  aztables.EDMInt64(math.MinInt64),
		"I64max":  aztables.EDMInt64(math.MaxInt64),
		"Dbl":     3.5,
		"Bool":    true,
		"When":    aztables.EDMDateTime(when),
		"Id":      aztables.EDMGUID("c9da6455-213d-42c9-9a79-3e9149a57833"),
		"Bin":     aztables.EDMBinary([]byte{0, 1, 2, 255}),
		"EmptyBn": aztables.EDMBinary([]byte{}),
	}
	if _, err := c.AddEntity(ctx, entity("p", "r", props), nil); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetEntity(ctx, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	e := decode(t, got.Value)
	for k, want := range props {
		gotV := e.Properties[k]
		switch w := want.(type) {
		case aztables.EDMDateTime:
			if !time.Time(gotV.(aztables.EDMDateTime)).Equal(time.Time(w)) {
				t.Errorf("%s: %v, want %v", k, gotV, w)
			}
		case aztables.EDMBinary:
			if string(gotV.(aztables.EDMBinary)) != string(w) {
				t.Errorf("%s: %v", k, gotV)
			}
		default:
			if fmt.Sprint(gotV) != fmt.Sprint(want) || fmt.Sprintf("%T", gotV) != fmt.Sprintf("%T", want) {
				t.Errorf("%s: got %T %v, want %T %v", k, gotV, gotV, want, want)
			}
		}
	}
	// The 7-digit fraction is kept on the wire.
	if !strings.Contains(string(got.Value), `"When":"2024-01-02T03:04:05.1234567Z"`) {
		t.Errorf("DateTime on the wire: %s", got.Value)
	}
	// Non-finite doubles travel as annotated strings.
	raw := []byte(`{"PartitionKey":"p","RowKey":"nan","N":"NaN","N@odata.type":"Edm.Double","P":"Infinity","P@odata.type":"Edm.Double","M":"-Infinity","M@odata.type":"Edm.Double","W":"3","W@odata.type":"Edm.Double"}`)
	if _, err := c.AddEntity(ctx, raw, nil); err != nil {
		t.Fatal(err)
	}
	// The SDK re-encodes bodies it reads, so the exact wire form is
	// checked in engine/api's own tests; here the values must survive.
	got, _ = c.GetEntity(ctx, "p", "nan", nil)
	var m map[string]any
	if err := json.Unmarshal(got.Value, &m); err != nil {
		t.Fatal(err)
	}
	if m["N"] != "NaN" || m["P"] != "Infinity" || m["M"] != "-Infinity" || m["W"] != float64(3) {
		t.Errorf("non-finite doubles read back as %v", m)
	}
}

func TestKeysWithSpecialCharacters(t *testing.T) {
	svc, _, _ := newService(t)
	c := svc.NewClient("keys")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The SDK doubles quotes in keys of the JSON bodies EDMEntity writes
	// (the service stores what it is sent), so raw bodies carry the keys.
	rawEntity := func(k string, props string) []byte {
		pk, _ := json.Marshal(k)
		return []byte(`{"PartitionKey":` + string(pk) + `,"RowKey":` + string(pk) + props + `}`)
	}
	for _, k := range []string{"O'Brien & Co", "50% + tax", "ünïcødé 鍵", "sp ace", "a=b,c;d", "''"} {
		kj, _ := json.Marshal(k)
		if _, err := c.AddEntity(ctx, rawEntity(k, `,"K":`+string(kj)), nil); err != nil {
			t.Fatalf("%q: %v", k, err)
		}
		got, err := c.GetEntity(ctx, k, k, nil)
		if err != nil {
			t.Fatalf("get %q: %v", k, err)
		}
		if e := decode(t, got.Value); e.Properties["K"] != k {
			t.Fatalf("%q read back as %v", k, e.Properties["K"])
		}
		if _, err := c.UpdateEntity(ctx, rawEntity(k, `,"U":true`), nil); err != nil {
			t.Fatalf("update %q: %v", k, err)
		}
		if _, err := c.DeleteEntity(ctx, k, k, nil); err != nil {
			t.Fatalf("delete %q: %v", k, err)
		}
	}
	// The quirk itself, as the service shows it: EDMEntity's body stores
	// the doubled key.
	if _, err := c.AddEntity(ctx, entity("it's", "r", nil), nil); err != nil {
		t.Fatal(err)
	}
	p, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("RowKey eq 'r'")}).NextPage(ctx)
	if err != nil || len(p.Entities) != 1 || decode(t, p.Entities[0]).PartitionKey != "it''s" {
		t.Fatalf("EDMEntity key quirk: %v %d", err, len(p.Entities))
	}
	for _, k := range []string{"a/b", `a\b`, "a#b", "a?b", "tab\there"} {
		_, err := c.AddEntity(ctx, entity(k, "r", nil), nil)
		wantErr(t, err, 400, "OutOfRangeInput")
	}
}

func TestLimitsAndBadInput(t *testing.T) {
	svc, _, _ := newService(t)
	c := svc.NewClient("limits")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	many := map[string]any{}
	for i := 0; i < 253; i++ {
		many[fmt.Sprintf("P%03d", i)] = int32(i)
	}
	huge := map[string]any{}
	for i := 0; i < 20; i++ {
		huge[fmt.Sprintf("S%02d", i)] = strings.Repeat("x", 32*1024)
	}
	cases := []struct {
		name string
		body []byte
		code string
	}{
		{"string over 32K", entity("p", "1", map[string]any{"S": strings.Repeat("x", 32*1024+1)}), "PropertyValueTooLarge"},
		{"binary over 64K", entity("p", "2", map[string]any{"B": aztables.EDMBinary(make([]byte, 64*1024+1))}), "PropertyValueTooLarge"},
		{"253 properties", entity("p", "3", many), "TooManyProperties"},
		{"long name", entity("p", "4", map[string]any{strings.Repeat("n", 256): int32(1)}), "PropertyNameTooLong"},
		{"entity over 1 MiB", entity("p", "5", huge), "EntityTooLarge"},
		{"key over 1 KiB", entity(strings.Repeat("k", 513), "6", nil), "PropertyValueTooLarge"},
		{"nested", []byte(`{"PartitionKey":"p","RowKey":"7","X":{"a":1}}`), "InvalidInput"},
		{"bad Int64", []byte(`{"PartitionKey":"p","RowKey":"8","X":"12x","X@odata.type":"Edm.Int64"}`), "InvalidInput"},
		{"datetime before 1601", []byte(`{"PartitionKey":"p","RowKey":"10","D":"1600-12-31T23:59:59Z","D@odata.type":"Edm.DateTime"}`), "OutOfRangeInput"},
	}
	for _, cs := range cases {
		_, err := c.AddEntity(ctx, cs.body, nil)
		var re *azcore.ResponseError
		if !errors.As(err, &re) || re.StatusCode != 400 || re.ErrorCode != cs.code {
			t.Errorf("%s: got %v, want 400 %s", cs.name, err, cs.code)
		}
	}
	pager := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq and")})
	_, err := pager.NextPage(ctx)
	wantErr(t, err, 400, "InvalidInput")
	pager = c.NewListEntitiesPager(nil)
	p, err := pager.NextPage(ctx)
	if err != nil || len(p.Entities) != 0 {
		t.Fatalf("a failed insert left entities behind: %d %v", len(p.Entities), err)
	}
}

func insertMany(t *testing.T, c *aztables.Client, n int, partition func(i int) string, props func(i int) map[string]any) {
	t.Helper()
	var batch []aztables.TransactionAction
	flush := func() {
		if len(batch) == 0 {
			return
		}
		if _, err := c.SubmitTransaction(ctx, batch, nil); err != nil {
			t.Fatal(err)
		}
		batch = nil
	}
	for i := 0; i < n; i++ {
		pk := partition(i)
		if len(batch) == 100 || len(batch) > 0 && !strings.Contains(string(batch[0].Entity), `"PartitionKey":"`+pk+`"`) {
			flush()
		}
		batch = append(batch, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity(pk, fmt.Sprintf("%05d", i), props(i))})
	}
	flush()
}

func TestQueriesAndPaging(t *testing.T) {
	svc, rec, _ := newService(t)
	c := svc.NewClient("paging")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	const n = 2600
	insertMany(t, c, n, func(i int) string { return fmt.Sprintf("p%02d", i%7) }, func(i int) map[string]any {
		return map[string]any{
			"N":    int32(i),
			"Big":  aztables.EDMInt64(int64(i) * 10_000_000_000),
			"Odd":  i%2 == 1,
			"When": aztables.EDMDateTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)),
			"Id":   aztables.EDMGUID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)),
			"Bin":  aztables.EDMBinary([]byte{byte(i), byte(i >> 8)}),
			"Dbl":  float64(i) + 0.5,
		}
	})
	// Every entity exactly once, in PartitionKey, RowKey order.
	var keys []string
	pages := 0
	pager := c.NewListEntitiesPager(nil)
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(p.Entities) > 1000 {
			t.Fatalf("page of %d", len(p.Entities))
		}
		for _, raw := range p.Entities {
			e := decode(t, raw)
			keys = append(keys, e.PartitionKey+"|"+e.RowKey)
		}
	}
	if len(keys) != n || pages != 3 {
		t.Fatalf("%d entities in %d pages", len(keys), pages)
	}
	seen := map[string]bool{}
	for i, k := range keys {
		if seen[k] || i > 0 && keys[i-1] >= k {
			t.Fatalf("%s repeated or out of order", k)
		}
		seen[k] = true
	}

	count := func(filter string, top int32) int {
		t.Helper()
		opts := &aztables.ListEntitiesOptions{Filter: &filter}
		if top > 0 {
			opts.Top = &top
		}
		pager := c.NewListEntitiesPager(opts)
		total := 0
		for pager.More() {
			p, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatalf("%s: %v", filter, err)
			}
			if top > 0 && len(p.Entities) > int(top) {
				t.Fatalf("%s: page of %d with top %d", filter, len(p.Entities), top)
			}
			total += len(p.Entities)
		}
		return total
	}
	for filter, want := range map[string]int{
		"N lt 100":                               100,
		"N ge 100 and N lt 200 or N eq 2599":     101,
		"not (N lt 2590)":                        10,
		"Big gt 25000000000000L":                 99,
		"Big gt 2500000000000":                   2349, // Int64 against an Int32 literal compares numerically
		"N gt 2599L":                             0,    // Int32 against Int64 literal: not comparable, gt is false
		"N lt 5L":                                n,    // ... and lt is true, as the service answers
		"Odd eq true":                            n / 2,
		"Odd":                                    n / 2,
		"When ge datetime'2020-01-02T00:00:00Z'": n - 24,
		"Id eq guid'00000000-0000-0000-0000-000000000042'": 1,
		"Bin eq X'0100'":               1,
		"Dbl gt 2598.0":                2,
		"Dbl gt 2598":                  2,
		"Missing eq 1 or Missing ne 1": 0,
		"PartitionKey eq 'p03' and RowKey ge '01000' and RowKey lt '02000'": 143,
		"RowKey eq '00042'": 1,
	} {
		if got := count(filter, 0); got != want {
			t.Errorf("%s: %d entities, want %d", filter, got, want)
		}
	}
	if got := count("PartitionKey eq 'p01'", 50); got != 372 {
		t.Errorf("top 50 over one partition: %d", got)
	}
	if got := count("N eq -1", 0); got != 0 {
		t.Errorf("empty result: %d", got)
	}
	_ = rec
}

func TestPlanHeaders(t *testing.T) {
	svc, rec, _ := newService(t)
	c := svc.NewClient("plans")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	insertMany(t, c, 1000, func(i int) string { return []string{"Sales", "Support"}[i%2] }, func(i int) map[string]any {
		last := "Jones"
		if i%10 == 0 {
			last = "Smith"
		}
		return map[string]any{"LastName": last}
	})
	// RowKeys are %05d of i: Sales has the even ones.
	for filter, want := range map[string][3]string{
		"(PartitionKey eq 'Sales') and (RowKey eq '00002')":                   {"point", "1", "1"},
		"PartitionKey eq 'Sales' and RowKey ge '00100' and RowKey lt '00200'": {"range", "50", "50"},
		"PartitionKey eq 'Sales' and LastName eq 'Smith'":                     {"partition-scan", "500", "100"},
		"LastName eq 'Jones'": {"table-scan", "1000", "900"},
		"PartitionKey eq 'Sales' and (RowKey eq '00120' or RowKey eq '00322')": {"partition-scan", "500", "2"},
	} {
		pager := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr(filter)})
		if _, err := pager.NextPage(ctx); err != nil {
			t.Fatal(err)
		}
		got := [3]string{rec.get("X-Tablelab-Plan"), rec.get("X-Tablelab-Examined"), rec.get("X-Tablelab-Returned")}
		if got != want {
			t.Errorf("%s: plan %v, want %v", filter, got, want)
		}
	}
}

func TestTransactions(t *testing.T) {
	svc, _, _ := newService(t)
	c := svc.NewClient("batches")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, rk := range []string{"upd", "mrg", "del", "dup"} {
		if _, err := c.AddEntity(ctx, entity("p", rk, map[string]any{"Old": true}), nil); err != nil {
			t.Fatal(err)
		}
	}
	cur, _ := c.GetEntity(ctx, "p", "upd", nil)
	_, err := c.SubmitTransaction(ctx, []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "new", map[string]any{"N": int32(1)})},
		{ActionType: aztables.TransactionTypeUpdateReplace, Entity: entity("p", "upd", map[string]any{"R": true}), IfMatch: &cur.ETag},
		{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("p", "mrg", map[string]any{"M": true})},
		{ActionType: aztables.TransactionTypeInsertReplace, Entity: entity("p", "ir", map[string]any{"I": true})},
		{ActionType: aztables.TransactionTypeInsertMerge, Entity: entity("p", "im", map[string]any{"I": true})},
		{ActionType: aztables.TransactionTypeDelete, Entity: entity("p", "del", nil)},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(rk string, present bool, props ...string) {
		t.Helper()
		got, err := c.GetEntity(ctx, "p", rk, nil)
		if !present {
			wantErr(t, err, 404, "ResourceNotFound")
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", rk, err)
		}
		e := decode(t, got.Value)
		for _, p := range props {
			if _, ok := e.Properties[p]; !ok {
				t.Fatalf("%s lacks %s: %v", rk, p, e.Properties)
			}
		}
		if len(e.Properties) != len(props) {
			t.Fatalf("%s: %v, want %v", rk, e.Properties, props)
		}
	}
	check("new", true, "N")
	check("upd", true, "R")
	check("mrg", true, "Old", "M")
	check("ir", true, "I")
	check("im", true, "I")
	check("del", false)

	// A failing transaction: the insert at index 3 collides. Nothing of
	// it may land.
	_, err = c.SubmitTransaction(ctx, []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "a1", nil)},
		{ActionType: aztables.TransactionTypeInsertMerge, Entity: entity("p", "mrg", map[string]any{"Z": true})},
		{ActionType: aztables.TransactionTypeDelete, Entity: entity("p", "upd", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "dup", nil)},
	}, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != 202 || !strings.Contains(err.Error(), "3:The specified entity already exists.") || !strings.Contains(err.Error(), "EntityAlreadyExists") {
		t.Fatalf("failed transaction: %v", err)
	}
	check("a1", false)
	check("mrg", true, "Old", "M")
	check("upd", true, "R")

	var tooMany []aztables.TransactionAction
	for i := 0; i < 101; i++ {
		tooMany = append(tooMany, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", fmt.Sprint("m", i), nil)})
	}
	_, err = c.SubmitTransaction(ctx, tooMany, nil)
	if err == nil || !strings.Contains(err.Error(), "InvalidInput") {
		t.Fatalf("101 operations: %v", err)
	}
	_, err = c.SubmitTransaction(ctx, []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "x1", nil)},
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("q", "x2", nil)},
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "CommandsInBatchActOnDifferentPartitions") || !strings.Contains(err.Error(), "1:") {
		t.Fatalf("two partitions: %v", err)
	}
	check("x1", false)
}

func TestSharedAccessSignatures(t *testing.T) {
	svc, _, endpoint := newService(t)
	c := svc.NewClient("secured")
	if _, err := c.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	insertMany(t, c, 40, func(i int) string { return fmt.Sprintf("p%d", i/10) }, func(i int) map[string]any { return map[string]any{"N": int32(i)} })

	// A read-only SAS made by the SDK: reads work, writes are refused.
	sasURL, err := c.GetTableSASURL(aztables.SASPermissions{Read: true}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	ro, err := aztables.NewClientWithNoCredential(sasURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ro.GetEntity(ctx, "p1", "00012", nil); err != nil {
		t.Fatalf("read with a read SAS: %v", err)
	}
	_, err = ro.AddEntity(ctx, entity("p1", "new", nil), nil)
	wantErr(t, err, 403, "AuthorizationPermissionMismatch")

	expired, _ := c.GetTableSASURL(aztables.SASPermissions{Read: true}, time.Now().Add(-2*time.Hour), time.Now().Add(-time.Hour))
	old, _ := aztables.NewClientWithNoCredential(expired, nil)
	_, err = old.GetEntity(ctx, "p1", "00012", nil)
	wantErr(t, err, 403, "AuthenticationFailed")

	// A key range, from p1 to p2 (the Go SDK leaves range fields out of
	// its URLs, so the token comes from tablelab's own signer).
	key := auth.DevAccount().Keys[0]
	q := auth.NewTableSAS("devstoreaccount1", key, auth.TableSAS{Table: "secured", Permissions: "raud", Expiry: time.Now().Add(time.Hour),
		StartPartitionKey: "p1", EndPartitionKey: "p2"})
	ranged, err := aztables.NewClientWithNoCredential(endpoint+"/secured?"+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	pager := ranged.NewListEntitiesPager(nil)
	total := 0
	for pager.More() {
		p, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, raw := range p.Entities {
			e := decode(t, raw)
			if e.PartitionKey != "p1" && e.PartitionKey != "p2" {
				t.Fatalf("read %s outside the SAS range", e.PartitionKey)
			}
			total++
		}
	}
	if total != 20 {
		t.Fatalf("%d entities through the ranged SAS, want 20", total)
	}
	// Outside the range a point read finds nothing, as Microsoft's own
	// cloud tests of table SAS expect (azure-storage-net,
	// TableSasUnitTests); every other operation is refused.
	_, err = ranged.GetEntity(ctx, "p0", "00001", nil)
	wantErr(t, err, 404, "ResourceNotFound")
	_, err = ranged.AddEntity(ctx, entity("p3", "new", nil), nil)
	wantErr(t, err, 403, "AuthorizationFailure")
	if _, err := ranged.AddEntity(ctx, entity("p2", "new", nil), nil); err != nil {
		t.Fatalf("write inside the range: %v", err)
	}
	if _, err := c.GetEntity(ctx, "p3", "new", nil); err == nil {
		t.Fatal("a refused write landed")
	}
	// A table SAS does not reach other tables or table operations.
	other, _ := aztables.NewClientWithNoCredential(endpoint+"/other?"+q, nil)
	_, err = other.GetEntity(ctx, "p1", "00012", nil)
	wantErr(t, err, 403, "AuthorizationFailure")

	// No credentials at all.
	anon, _ := aztables.NewClientWithNoCredential(endpoint+"/secured", nil)
	_, err = anon.GetEntity(ctx, "p1", "00012", nil)
	wantErr(t, err, 403, "AuthorizationFailure")

	// An account SAS from the SDK, for tables and entities. The SDK sets
	// spr=https; over plain http the service refuses that.
	accURL, err := svc.GetAccountSASURL(aztables.AccountSASResourceTypes{Service: true, Container: true, Object: true}, aztables.AccountSASPermissions{Read: true, List: true}, time.Now().Add(-time.Minute), time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(accURL)
	if u.Query().Get("spr") == "https" {
		acc, _ := aztables.NewServiceClientWithNoCredential(endpoint+"/?"+u.RawQuery, nil)
		_, err := acc.NewListTablesPager(nil).NextPage(ctx)
		wantErr(t, err, 403, "AuthorizationProtocolMismatch")
	}
}

// TestStatisticsOnTheSecondary checks service statistics as the Go SDK
// reaches them, on the account's secondary location
// (devstoreaccount1-secondary, signed with the account's key), and the
// primary refusing them; the secondary reads the same tables and refuses
// writes.
func TestStatisticsOnTheSecondary(t *testing.T) {
	primary, _, endpoint := newService(t)
	if _, err := primary.CreateTable(ctx, "Replicated", nil); err != nil {
		t.Fatal(err)
	}
	_, err := primary.GetStatistics(ctx, nil)
	wantErr(t, err, 400, "InvalidQueryParameterValue")

	cred, err := aztables.NewSharedKeyCredential("devstoreaccount1", devKey)
	if err != nil {
		t.Fatal(err)
	}
	secondaryURL := endpoint + "-secondary"
	secondary, err := aztables.NewServiceClientWithSharedKey(secondaryURL, cred, &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{InsecureAllowCredentialWithHTTP: true}})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := secondary.GetStatistics(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats.GeoReplication == nil || stats.GeoReplication.Status == nil || *stats.GeoReplication.Status != aztables.GeoReplicationStatusLive || stats.GeoReplication.LastSyncTime == nil {
		t.Fatalf("statistics %+v", stats.GeoReplication)
	}
	pager := secondary.NewListTablesPager(nil)
	page, err := pager.NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tables) != 1 || *page.Tables[0].Name != "Replicated" {
		t.Fatalf("the secondary lists %+v", page.Tables)
	}
	_, err = secondary.CreateTable(ctx, "Written", nil)
	wantErr(t, err, 403, "AuthorizationFailure")
}

// TestServicePropertiesAndCORS sets the service's properties with the Go
// SDK, reads them back, and checks over plain HTTP that the CORS rule set
// answers a browser's preflight and marks a response.
func TestServicePropertiesAndCORS(t *testing.T) {
	svc, _, endpoint := newService(t)
	props := aztables.ServiceProperties{
		Logging: &aztables.Logging{Version: to.Ptr("1.0"), Read: to.Ptr(true), Write: to.Ptr(true), Delete: to.Ptr(false),
			RetentionPolicy: &aztables.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr[int32](3)}},
		HourMetrics: &aztables.Metrics{Version: to.Ptr("1.0"), Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(true),
			RetentionPolicy: &aztables.RetentionPolicy{Enabled: to.Ptr(false)}},
		Cors: []*aztables.CorsRule{{
			AllowedOrigins: to.Ptr("http://localhost:5173"), AllowedMethods: to.Ptr("GET,POST,PUT,MERGE,DELETE,OPTIONS"),
			AllowedHeaders: to.Ptr("*"), ExposedHeaders: to.Ptr("*"), MaxAgeInSeconds: to.Ptr[int32](120),
		}},
	}
	if _, err := svc.SetProperties(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	got, err := svc.GetProperties(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !*got.Logging.Read || *got.Logging.Delete || *got.Logging.RetentionPolicy.Days != 3 || !*got.HourMetrics.IncludeAPIs ||
		len(got.Cors) != 1 || *got.Cors[0].AllowedOrigins != "http://localhost:5173" || *got.Cors[0].MaxAgeInSeconds != 120 {
		t.Fatalf("properties read back: %+v %+v %+v", got.Logging, got.HourMetrics, got.Cors)
	}
	req, _ := http.NewRequest("OPTIONS", endpoint+"/Tables", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("Access-Control-Request-Method", "POST")
	req.Header.Set("Access-Control-Request-Headers", "content-type,x-ms-date,authorization")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || resp.Header.Get("Access-Control-Max-Age") != "120" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req, _ = http.NewRequest("GET", endpoint+"/Tables", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" || resp.Header.Get("Vary") != "Origin" {
		t.Fatalf("unsigned request from the page: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestStoredAccessPolicy sets a table's stored access policy with the Go
// SDK, reads it back, and uses a SAS the SDK signs naming it: the token
// may do what the policy allows, and nothing once the policy is gone.
func TestStoredAccessPolicy(t *testing.T) {
	svc, _, endpoint := newService(t)
	if _, err := svc.CreateTable(ctx, "Vault", nil); err != nil {
		t.Fatal(err)
	}
	owner := svc.NewClient("Vault")
	if _, err := owner.AddEntity(ctx, entity("shelf", "a1", map[string]any{"Item": "atlas"}), nil); err != nil {
		t.Fatal(err)
	}
	start, expiry := time.Now().Add(-time.Minute).UTC().Truncate(time.Second), time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	acl := []*aztables.SignedIdentifier{{ID: to.Ptr("viewers"), AccessPolicy: &aztables.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("r")}}}
	if _, err := owner.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{TableACL: acl}); err != nil {
		t.Fatal(err)
	}
	got, err := owner.GetAccessPolicy(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.SignedIdentifiers) != 1 || *got.SignedIdentifiers[0].ID != "viewers" || *got.SignedIdentifiers[0].AccessPolicy.Permission != "r" ||
		!got.SignedIdentifiers[0].AccessPolicy.Expiry.Equal(expiry) || !got.SignedIdentifiers[0].AccessPolicy.Start.Equal(start) {
		t.Fatalf("policy read back: %+v", got.SignedIdentifiers[0].AccessPolicy)
	}
	cred, err := aztables.NewSharedKeyCredential("devstoreaccount1", devKey)
	if err != nil {
		t.Fatal(err)
	}
	sas, err := aztables.SASSignatureValues{TableName: "Vault", Identifier: "viewers"}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	viewer, err := aztables.NewClientWithNoCredential(endpoint+"/Vault?"+sas, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := viewer.GetEntity(ctx, "shelf", "a1", nil); err != nil {
		t.Fatalf("read under the policy: %v", err)
	}
	_, err = viewer.AddEntity(ctx, entity("shelf", "a2", nil), nil)
	wantErr(t, err, 403, "AuthorizationPermissionMismatch")
	if _, err := owner.SetAccessPolicy(ctx, &aztables.SetAccessPolicyOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = viewer.GetEntity(ctx, "shelf", "a1", nil)
	wantErr(t, err, 403, "AuthenticationFailed")
}
