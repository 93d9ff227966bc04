package edm

import (
	"encoding/json"
	"testing"
)

// The hand-written JSON string and number readers must agree with
// encoding/json, which they replace to keep it out of the browser build.

var jsonDecodeSeeds = []string{
	`""`, `"abc"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u00e9\u20AC"`, `"\ud83d\ude80"`, `"\ud83d"`, `"\ude80x"`,
	`"\ud83d\u0041"`, `"\ud83dx"`, "\"caf\xc3\xa9\"", "\"bad\xff\xfebytes\"", "\"\x01\"", `"\x"`, `"\u12"`, `"\u12G4"`,
	`"abc`, `abc"`, `"`, `"a"b"`, `"tab	here"`, `"\`, `"\"`,
	`0`, `-0`, `12`, `-12.5`, `1e10`, `1E+3`, `2.5e-3`, `01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `1.5.2`, `0x10`, `- 1`, `1 `, `1,`,
}

func FuzzUnquote(f *testing.F) {
	for _, s := range jsonDecodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkAgainstEncodingJSON(t, raw)
	})
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, raw := range jsonDecodeSeeds {
		checkAgainstEncodingJSON(t, raw)
	}
}

func checkAgainstEncodingJSON(t *testing.T, raw string) {
	t.Helper()
	if len(raw) > 0 && raw[0] == '"' {
		var want string
		wantErr := json.Unmarshal([]byte(raw), &want)
		got, ok := unquote([]byte(raw))
		if ok != (wantErr == nil) {
			t.Fatalf("unquote(%q) ok=%v, encoding/json err=%v", raw, ok, wantErr)
		}
		if ok && got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json %q", raw, got, want)
		}
		return
	}
	if raw == "" || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		return // DecodeJSON reads these as neither strings nor numbers
	}
	var n json.Number
	wantOK := json.Unmarshal([]byte(raw), &n) == nil
	if got := validNumber([]byte(raw)); got != wantOK {
		t.Fatalf("validNumber(%q) = %v, encoding/json %v", raw, got, wantOK)
	}
}

func TestDecodeJSONStrings(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`:           "plain",
		`"a\nb"`:            "a\nb",
		`"\ud83d\ude80 go"`: "\U0001F680 go",
		`"\u00e9t\u00e9"`:   "été",
	} {
		v, err := DecodeJSON([]byte(raw), "")
		if err != nil || v.Kind() != String || v.Str() != want {
			t.Errorf("DecodeJSON(%s) = %v %q, %v; want String %q", raw, v.Kind(), v.Str(), err, want)
		}
	}
	for _, raw := range []string{`"\q"`, "\"a\x01\"", `"open`, `01`, `1.`, `-`} {
		if _, err := DecodeJSON([]byte(raw), ""); err == nil {
			t.Errorf("DecodeJSON(%s) accepted invalid JSON", raw)
		}
	}
}
