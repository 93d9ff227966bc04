package odata

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"PartitionKey eq 'pk1' and N ge 1 and RowKey ne 'it''s'",
		"(PartitionKey eq 'Sales') and (RowKey eq '2')",
		"PartitionKey eq 'Garden' and (RowKey eq '017' or RowKey eq '930')",
		"not (Age lt 30L) or Active",
		"When ge datetime'2024-01-02T03:04:05Z' and Id eq guid'c9da6455-213d-42c9-9a79-3e9149a57833'",
		"Bin eq X'0A0B' or Score gt -1.5e3",
		"TableName ge 'a' and TableName lt 'b'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := Parse(s)
		if err != nil {
			return
		}
		_ = flt.Plan()
		again, err := Parse(flt.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, flt.String(), err)
		}
		if again.String() != flt.String() {
			t.Fatalf("%q → %q → %q", s, flt.String(), again.String())
		}
	})
}
