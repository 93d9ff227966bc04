package settings_test

import (
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/settings"
)

// TestStoredAccessPolicies checks Set and Get Table ACL and SAS tokens
// naming a policy with si: the policy gives what the token leaves out,
// a field both give is refused, and changing or removing the policy
// changes what the token may do at once; deleting the table removes its
// policies.
func TestStoredAccessPolicies(t *testing.T) {
	store := engine.New(engine.Options{})
	srv := api.NewServer(store, api.Options{Verifier: &auth.Verifier{Accounts: []auth.Account{auth.DevAccount()}, SharedKey: auth.VerifySharedKey}, Settings: settings.New(nil)})
	key := auth.DevAccount().Keys[0]
	// The owner's requests: signed with the account key (SharedKeyLite).
	owner := func(method, target, body string) *api.Response {
		r := &api.Request{Method: method, Target: "/devstoreaccount1" + target, Host: "127.0.0.1:10002", Body: []byte(body)}
		date := store.Now().UTC().Format("Mon, 02 Jan 2006 15:04:05 GMT")
		path, _, _ := strings.Cut(r.Target, "?")
		comp := ""
		if strings.Contains(target, "comp=acl") {
			comp = "acl"
		}
		r.Header.Set("x-ms-date", date)
		r.Header.Set("Authorization", auth.SignSharedKeyLite(auth.DevAccountName, key, date, path, comp))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json;odata=nometadata")
		return srv.Serve(r)
	}
	with := func(token, method, target, body string) *api.Response {
		r := &api.Request{Method: method, Target: "/devstoreaccount1" + target + "?" + token, Host: "127.0.0.1:10002", Body: []byte(body)}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json;odata=nometadata")
		return srv.Serve(r)
	}
	want := func(r *api.Response, status int, code string) {
		t.Helper()
		if r.Status != status || code != "" && !strings.Contains(string(r.Body), code) {
			t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
		}
	}
	want(owner("POST", "/Tables", `{"TableName":"Lockers"}`), 201, "")
	future := store.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	acl := `<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>` +
		`<SignedIdentifier><Id>readers</Id><AccessPolicy><Expiry>` + future + `</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>open-ended</Id><AccessPolicy><Permission>ra</Permission></AccessPolicy></SignedIdentifier>` +
		`</SignedIdentifiers>`
	want(owner("PUT", "/Lockers?comp=acl", acl), 204, "")
	got := owner("GET", "/Lockers?comp=acl", "")
	want(got, 200, "")
	for _, s := range []string{"<Id>readers</Id>", "<Permission>r</Permission>", "<Expiry>" + strings.TrimSuffix(future, "Z") + ".0000000Z</Expiry>", "<Id>open-ended</Id>"} {
		if !strings.Contains(string(got.Body), s) {
			t.Errorf("ACL lacks %s: %s", s, got.Body)
		}
	}
	want(owner("POST", "/Lockers", `{"PartitionKey":"b1","RowKey":"07","Holder":"Ines"}`), 201, "")

	readers := auth.NewTableSAS(auth.DevAccountName, key, auth.TableSAS{Table: "Lockers", Identifier: "readers"})
	want(with(readers, "GET", "/Lockers(PartitionKey='b1',RowKey='07')", ""), 200, "")
	want(with(readers, "POST", "/Lockers", `{"PartitionKey":"b1","RowKey":"08"}`), 403, "AuthorizationPermissionMismatch")
	// The token sets its own expiry; the other policy has none.
	openEnded := auth.NewTableSAS(auth.DevAccountName, key, auth.TableSAS{Table: "Lockers", Identifier: "open-ended", Expiry: store.Now().Add(time.Hour)})
	want(with(openEnded, "POST", "/Lockers", `{"PartitionKey":"b1","RowKey":"08"}`), 201, "")
	// Both give permissions, or both an expiry: refused.
	both := auth.NewTableSAS(auth.DevAccountName, key, auth.TableSAS{Table: "Lockers", Identifier: "readers", Permissions: "r"})
	want(with(both, "GET", "/Lockers()", ""), 403, "AuthenticationFailed")
	// An identifier the table does not have, and one of another table.
	nobody := auth.NewTableSAS(auth.DevAccountName, key, auth.TableSAS{Table: "Lockers", Identifier: "nobody"})
	want(with(nobody, "GET", "/Lockers()", ""), 403, "AuthenticationFailed")

	// The policy changes: readers may now add too, and the same token can.
	acl2 := strings.Replace(acl, "<Permission>r</Permission>", "<Permission>ra</Permission>", 1)
	want(owner("PUT", "/Lockers?comp=acl", acl2), 204, "")
	want(with(readers, "POST", "/Lockers", `{"PartitionKey":"b1","RowKey":"09"}`), 201, "")
	// Removed: the token stops working.
	want(owner("PUT", "/Lockers?comp=acl", `<SignedIdentifiers />`), 204, "")
	want(with(readers, "GET", "/Lockers()", ""), 403, "AuthenticationFailed")
	if r := owner("GET", "/Lockers?comp=acl", ""); !strings.Contains(string(r.Body), "<SignedIdentifiers />") {
		t.Fatalf("after removal: %s", r.Body)
	}

	// Bad ACLs change nothing.
	want(owner("PUT", "/Lockers?comp=acl", acl), 204, "")
	six := "<SignedIdentifiers>" + strings.Repeat("<SignedIdentifier><Id>x</Id></SignedIdentifier>", 6) + "</SignedIdentifiers>"
	for body, code := range map[string]string{
		strings.Replace(six, "<Id>x</Id>", "<Id>a</Id>", 1):                                                                                              "InvalidXmlDocument",
		`<SignedIdentifiers><SignedIdentifier><Id>` + strings.Repeat("i", 65) + `</Id></SignedIdentifier></SignedIdentifiers>`:                           "InvalidXmlNodeValue",
		`<SignedIdentifiers><SignedIdentifier><Id>w</Id><AccessPolicy><Permission>rw</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`: "InvalidXmlNodeValue",
		`<SignedIdentifiers><SignedIdentifier><Id>t</Id><AccessPolicy><Expiry>next week</Expiry></AccessPolicy></SignedIdentifier></SignedIdentifiers>`:  "InvalidXmlNodeValue",
		`<SignedIdentifiers><SignedIdentifier><Id>d</Id></SignedIdentifier><SignedIdentifier><Id>d</Id></SignedIdentifier></SignedIdentifiers>`:          "InvalidXmlNodeValue",
		`<SignedIdentifiers>`: "InvalidXmlDocument",
	} {
		want(owner("PUT", "/Lockers?comp=acl", body), 400, code)
	}
	want(with(readers, "GET", "/Lockers()", ""), 200, "")
	// Only the owner reads or sets policies: not a token, even one of its own.
	r := with(readers+"&comp=acl", "GET", "/Lockers", "")
	want(r, 403, "AuthorizationFailure")

	// Deleting the table removes its policies: made again, it has none.
	want(owner("DELETE", "/Tables('Lockers')", ""), 204, "")
	want(owner("POST", "/Tables", `{"TableName":"Lockers"}`), 201, "")
	if r := owner("GET", "/Lockers?comp=acl", ""); !strings.Contains(string(r.Body), "<SignedIdentifiers />") {
		t.Fatalf("a table made again kept its policies: %s", r.Body)
	}
	want(with(readers, "GET", "/Lockers()", ""), 403, "AuthenticationFailed")
}
