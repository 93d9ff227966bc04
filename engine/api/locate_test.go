package api

import "testing"

func TestLocate(t *testing.T) {
	for _, c := range []struct {
		target string
		want   Target
	}{
		{"/acct/Tables", Target{Account: "acct", Kind: KindTables}},
		{"/acct/Tables('t1')", Target{Account: "acct", Kind: KindTable, Table: "t1"}},
		{"/acct/$batch", Target{Account: "acct", Kind: KindBatch}},
		{"/acct/t1()?$filter=PartitionKey%20eq%20'a'", Target{Account: "acct", Kind: KindEntities, Table: "t1"}},
		{"/acct/t1(PartitionKey='a%2Fb',RowKey='it''s')", Target{Account: "acct", Kind: KindEntity, Table: "t1", PartitionKey: "a/b", RowKey: "it's"}},
		{"/acct?restype=service&comp=properties", Target{Account: "acct", Kind: KindService}},
	} {
		got, err := Locate(&Request{Method: "GET", Target: c.target, Host: "127.0.0.1:10002"})
		if err != nil {
			t.Errorf("%s: %v", c.target, err)
			continue
		}
		if got.Account != c.want.Account || got.Kind != c.want.Kind || got.Table != c.want.Table ||
			got.PartitionKey != c.want.PartitionKey || got.RowKey != c.want.RowKey {
			t.Errorf("%s: %+v, want %+v", c.target, got, c.want)
		}
	}
	got, err := Locate(&Request{Target: "/acct/t1()?$filter=PartitionKey%20eq%20'a'&NextPartitionKey=" + ContinuationToken("p/1"), Host: "127.0.0.1:10002"})
	if err != nil || got.Param("$filter") != "PartitionKey eq 'a'" {
		t.Fatalf("filter: %q %v", got.Param("$filter"), err)
	}
	if k, err := ContinuationKey(got.Param("NextPartitionKey")); err != nil || k != "p/1" {
		t.Errorf("token: %q %v", k, err)
	}
	if _, err := Locate(&Request{Target: "/acct/t1(PartitionKey='a')", Host: "127.0.0.1:10002"}); err == nil {
		t.Error("a key predicate without RowKey was located")
	}
	op, err := LocateIn("127.0.0.1:10002", "http", "http://127.0.0.1:10002/acct/t1(PartitionKey='p',RowKey='r')")
	if err != nil || op.Kind != KindEntity || op.PartitionKey != "p" || op.Account != "acct" {
		t.Errorf("batch op: %+v %v", op, err)
	}
	op, err = LocateIn("127.0.0.1:10002", "http", "http://acct.table.example.com/t1")
	if err != nil || op.Kind != KindEntities || op.Account != "acct" || op.Table != "t1" {
		t.Errorf("batch op, host style: %+v %v", op, err)
	}
}

// TestAccount: Account names the account Address does, path style and
// host style, for every service's paths, and "" where Address fails.
func TestAccount(t *testing.T) {
	for _, c := range []struct {
		host, target, want string
	}{
		{"127.0.0.1:10002", "/acct/Tables", "acct"},
		{"127.0.0.1:10000", "/acct/photos/a/b.png?comp=block", "acct"},
		{"[::1]:10001", "/acct?comp=list", "acct"},
		{"localhost:10002", "/acct-secondary/Tables", "acct-secondary"},
		{"acct.blob.core.windows.net", "/photos/a.png", "acct"},
		{"acct.table.example.com", "/Tables", "acct"},
		{"127.0.0.1:10002", "/", ""},
		{"127.0.0.1:10002", "//Tables", ""},
		{".table.example.com", "/Tables", ""},
	} {
		r := &Request{Method: "GET", Host: c.host, Target: c.target}
		got := Account(r)
		account, _, _, err := Address(r)
		if got != c.want || got != account || (err == nil) != (c.want != "") {
			t.Errorf("%s%s: Account %q, Address %q %v; want %q", c.host, c.target, got, account, err, c.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Account(&Request{Host: "127.0.0.1:10002", Target: "/acct/t(PartitionKey='p',RowKey='r')"}) }); n != 0 {
		t.Errorf("Account allocates %v times", n)
	}
}
