package site

import (
	"strings"
	"testing"
)

func TestRunBlockCosmosToggle(t *testing.T) {
	src := "```js run plans=table-scan cosmos-plans=index\nprint(1)\n```\n\n```output\na\n```\n\n```output cosmos\nb<c\n```\n"
	got, errs := convert(t, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, frag := range []string{
		`<figure class="run-example" id="example-1" data-plans="table-scan" data-cosmos-plans="index">`,
		"<pre class=\"run-expected\" hidden>a\n</pre>\n<pre class=\"run-expected-cosmos\" hidden>b&lt;c\n</pre>\n",
	} {
		if !strings.Contains(got, frag) {
			t.Errorf("missing %q in\n%s", frag, got)
		}
	}
	// Both output blocks belong to the example: no other <pre> is left.
	if strings.Count(got, "<pre") != 3 {
		t.Errorf("want the code and the two expected outputs only:\n%s", got)
	}
	// A block without the toggle says nothing of Cosmos DB.
	plain, _ := convert(t, "```js run plans=point\nx\n```\n\n```output\n1\n```\n")
	if strings.Contains(plain, "cosmos") {
		t.Errorf("a plain block mentions cosmos:\n%s", plain)
	}
}

func TestRunBlockCosmosMistakes(t *testing.T) {
	for _, tc := range []struct{ src, msg string }{
		// index is Cosmos DB's plan only.
		{"```js run plans=index\nx\n```\n", `plan "index" is Cosmos DB for Table's`},
		{"```js run cosmos-plans=scan\nx\n```\n\n```output\n1\n```\n\n```output cosmos\n2\n```\n", `unknown plan "scan"`},
		// The two halves of the toggle go together.
		{"```js run plans=point cosmos-plans=point\nx\n```\n\n```output\n1\n```\n", "needs an output cosmos block"},
		{"```js run plans=point\nx\n```\n\n```output\n1\n```\n\n```output cosmos\n2\n```\n", "needs cosmos-plans="},
		// The Cosmos output follows the plain one, never stands alone.
		{"```js run plans=point cosmos-plans=point\nx\n```\n\n```output cosmos\n2\n```\n", "must follow a js run block's output block"},
		{"```js run plans=point\nx\n```\n\n```output azure\n2\n```\n", "only option is cosmos"},
	} {
		_, errs := convert(t, tc.src)
		found := false
		for _, e := range errs {
			found = found || strings.Contains(e.Msg, tc.msg)
		}
		if !found {
			t.Errorf("%q: want an error saying %q, got %v", tc.src, tc.msg, errs)
		}
	}
	// A toggled block's plans may name index among its Cosmos plans.
	if _, errs := convert(t, "```js run plans=table-scan,point cosmos-plans=index,point\nx\n```\n\n```output\n1\n```\n\n```output cosmos\n1\n```\n"); len(errs) > 0 {
		t.Errorf("a valid toggle: %v", errs)
	}
}
