package site

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// convert renders src as a content page does, returning the HTML and the
// run-block errors.
func convert(t *testing.T, src string) (string, []*SourceError) {
	t.Helper()
	md := newMarkdown()
	pc := parser.NewContext()
	doc := md.Parser().Parse(text.NewReader([]byte(src)), parser.WithContext(pc))
	var b bytes.Buffer
	if err := md.Renderer().Render(&b, []byte(src), doc); err != nil {
		t.Fatal(err)
	}
	return b.String(), RunErrors(pc)
}

func TestRunBlockHTML(t *testing.T) {
	src := "Intro.\n\n```js run plans=point,range\nprint(\"a<b\" && 1);\n```\n\n```output\na<b & 1\n```\n"
	got, errs := convert(t, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := regexp.MustCompile(`(?s)^<p>Intro.</p>
<figure class="run-example" id="example-1" data-plans="point,range">
<div class="run-code"><pre tabindex="0" class="chroma"><code>.*print.*</code></pre></div>
<textarea class="run-source" hidden>print\(&#34;a&lt;b&#34; &amp;&amp; 1\);
</textarea>
<pre class="run-expected" hidden>a&lt;b &amp; 1
</pre>
<div class="run-output" aria-live="polite"></div>
</figure>
$`)
	if !want.MatchString(got) {
		t.Errorf("HTML of a run block:\n%s", got)
	}
	// The output block is part of the example, not a block of its own.
	if strings.Count(got, "<pre") != 2 {
		t.Errorf("want the highlighted code and the expected output only:\n%s", got)
	}
	// The code is highlighted with chroma's classes.
	if !strings.Contains(got, `<span class="nx">print</span>`) {
		t.Errorf("code not highlighted with classes:\n%s", got)
	}
}

func TestRunBlockOptions(t *testing.T) {
	for _, tc := range []struct {
		info, attr string
	}{
		{"js run", ""},
		{"js run plans=", ` data-plans=""`},
		{"js run plans=table-scan", ` data-plans="table-scan"`},
		{"js run plans=point,range,partition-scan,table-scan", ` data-plans="point,range,partition-scan,table-scan"`},
		{"js run heat", ` data-heat=""`},
		{"js run heat plans=point", ` data-plans="point" data-heat=""`},
		{"js run plans= heat", ` data-plans="" data-heat=""`},
	} {
		got, errs := convert(t, "```"+tc.info+"\nx\n```\n")
		if len(errs) > 0 {
			t.Errorf("%q: %v", tc.info, errs)
			continue
		}
		if !strings.Contains(got, `<figure class="run-example" id="example-1"`+tc.attr+">") {
			t.Errorf("%q: got\n%s", tc.info, got)
		}
	}
	for _, info := range []string{"js run plans=scan", "js run plans=point,", "js run fast", "js run heat=1"} {
		_, errs := convert(t, "\n\n```"+info+"\nx\n```\n")
		if len(errs) != 1 || errs[0].Line != 3 {
			t.Errorf("%q: want one error on line 3, got %v", info, errs)
		}
	}
}

func TestRunBlockWithoutOutput(t *testing.T) {
	got, errs := convert(t, "```js run\nprint(1)\n```\n\nText.\n\n```output\n1\n```\n")
	if !strings.Contains(got, `<figure class="run-example" id="example-1">`) || strings.Contains(got, "run-expected") {
		t.Errorf("a run block without its output right after it has no expected output:\n%s", got)
	}
	if len(errs) != 1 || errs[0].Line != 7 || !strings.Contains(errs[0].Msg, "output block") {
		t.Fatalf("want an error for the stray output block on line 7, got %v", errs)
	}
}

func TestStrayOutputBlockFailsTheBuild(t *testing.T) {
	md := newMarkdown()
	_, errs := renderPage(md, "guide/x.md", []byte("---\ntitle: X\n---\n\n```js\nprint(1)\n```\n\n```output\n1\n```\n"))
	if len(errs) != 1 {
		t.Fatalf("want one error, got %v", errs)
	}
	var se *SourceError
	if !errors.As(errs[0], &se) || se.Error() != "content/guide/x.md:9: an output block must follow a js run block" {
		t.Errorf("got %v", errs[0])
	}
}

func TestRunBlockIDsUniquePerPage(t *testing.T) {
	src := "## Example 1\n\n```js run\na\n```\n\n```js run\nb\n```\n\n- item\n\n  ```js run\n  c\n  ```\n"
	got, errs := convert(t, src)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ids := regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(got, -1)
	seen := make(map[string]bool)
	for _, m := range ids {
		if seen[m[1]] {
			t.Errorf("id %q twice in\n%s", m[1], got)
		}
		seen[m[1]] = true
	}
	if len(ids) != 4 || !seen["example-2"] || !strings.Contains(got, "<textarea class=\"run-source\" hidden>c\n</textarea>") {
		t.Errorf("want a heading and three examples, the nested one included:\n%s", got)
	}
	// A second page numbers its examples from 1 again.
	again, _ := convert(t, "```js run\na\n```\n")
	if !strings.Contains(again, `id="example-1"`) {
		t.Errorf("ids restart per page:\n%s", again)
	}
}

func TestRunBlockKeepsLeadingBlankLine(t *testing.T) {
	got, _ := convert(t, "```js run\n\nx\n```\n\n```output\n\ny\n```\n")
	// The HTML parser drops one newline after <textarea> and <pre>.
	if !strings.Contains(got, "<textarea class=\"run-source\" hidden>\n\nx\n</textarea>") ||
		!strings.Contains(got, "<pre class=\"run-expected\" hidden>\n\ny\n</pre>") {
		t.Errorf("leading blank lines lost:\n%s", got)
	}
}

func TestOrdinaryFencedBlocksStayHighlighted(t *testing.T) {
	got, errs := convert(t, "```go\nfunc f() {}\n```\n")
	if len(errs) > 0 || strings.Contains(got, "run-example") || !strings.Contains(got, `<span class="kd">func</span>`) {
		t.Errorf("got %v\n%s", errs, got)
	}
}
