package xmlwire

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/tablelab/tablelab/engine/svcerr"
)

func TestAppendEscaped(t *testing.T) {
	for in, want := range map[string]string{
		"":               "",
		"plain":          "plain",
		`a<b>&"c'`:       "a&lt;b&gt;&amp;&quot;c&apos;",
		"line\nand\ttab": "line\nand\ttab",
		"cr\r\n":         "cr&#xD;\n",
		"nul\x00x":       "nul\uFFFDx",
		"bad\xffutf8":    "bad\uFFFDutf8",
		"héllo 😀":        "héllo 😀",
		"\uFFFE":         "\uFFFD",
		"tail&":          "tail&amp;",
	} {
		if got := string(AppendEscaped(nil, in)); got != want {
			t.Errorf("AppendEscaped(%q) = %q, want %q", in, got, want)
		}
	}
	// What it writes, any reader gives back (up to the characters XML
	// cannot carry), in text and in attributes.
	for _, s := range []string{"a<b>&\"c'", "cr\rlf\ncrlf\r\n", "tab\t", "😀"} {
		doc := "<a v=\"" + string(AppendEscaped(nil, s)) + "\">" + string(AppendEscaped(nil, s)) + "</a>"
		e, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if e.Text != s {
			t.Errorf("text %q came back as %q", s, e.Text)
		}
		var std struct {
			V    string `xml:"v,attr"`
			Text string `xml:",chardata"`
		}
		if err := xml.Unmarshal([]byte(doc), &std); err != nil || std.Text != s {
			t.Errorf("encoding/xml reads %q as %q, %v", s, std.Text, err)
		}
	}
}

func TestAppendError(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 123456789, time.FixedZone("x", 3600))
	got := string(AppendError([]byte("x"), svcerr.QueueNotFound, "The specified queue does not exist.", "id-1", at))
	want := "x" + `<?xml version="1.0" encoding="utf-8"?><Error><Code>QueueNotFound</Code><Message>The specified queue does not exist.` +
		"\nRequestId:id-1\nTime:2026-03-04T04:06:07.1234567Z</Message></Error>"
	if got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	// The SDKs read it with an XML parser: the code and message come back.
	var body struct {
		Code, Message string
	}
	if err := xml.Unmarshal([]byte(got[1:]), &body); err != nil || body.Code != "QueueNotFound" || !strings.HasPrefix(body.Message, "The specified queue does not exist.\nRequestId:id-1\nTime:") {
		t.Fatalf("%+v %v", body, err)
	}
	if got := string(AppendError(nil, svcerr.InvalidXMLDocument, "a<b", "", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))); !strings.Contains(got, "a&lt;b\nRequestId:\nTime:2026-01-01T00:00:00.0000000Z") {
		t.Fatal(got)
	}
}

func TestParse(t *testing.T) {
	doc := "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\r\n" +
		"<!-- a comment --><?pi data?>\n" +
		"<BlockList a='1' b = \"x&amp;y\tz\">\n" +
		"  <Latest>AAA=</Latest>\n" +
		"  <Uncommitted>&#x41;&#66;&lt;&gt;&apos;&quot;</Uncommitted><!-- inside -->\n" +
		"  <Committed><![CDATA[<raw> & ]] stuff]]></Committed>\n" +
		"  <Latest/><Empty></Empty>\n" +
		"  <Line>one\r\ntwo\rthree</Line>\n" +
		"</BlockList >\n<!-- after -->\n"
	e, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if e.Name != "BlockList" || len(e.Children) != 6 || len(e.Attrs) != 2 {
		t.Fatalf("root %+v", e)
	}
	if v, ok := e.Attr("b"); !ok || v != "x&y z" {
		t.Errorf("attribute b = %q", v)
	}
	if _, ok := e.Attr("c"); ok {
		t.Error("absent attribute found")
	}
	latest := e.All("Latest")
	if len(latest) != 2 || latest[0].Text != "AAA=" || latest[1].Text != "" || len(latest[1].Children) != 0 {
		t.Errorf("Latest: %+v", latest)
	}
	for name, want := range map[string]string{"Uncommitted": "AB<>'\"", "Committed": "<raw> & ]] stuff", "Empty": "", "Line": "one\ntwo\nthree"} {
		if c := e.Child(name); c == nil || c.Text != want {
			t.Errorf("%s: %+v, want %q", name, c, want)
		}
	}
	if e.Child("Nope") != nil || e.All("Nope") != nil {
		t.Error("absent child found")
	}
	var nilElem *Element
	if nilElem.Child("x") != nil || nilElem.All("x") != nil {
		t.Error("a nil element has no children")
	}
	// Nested children and a bare root.
	e, err = Parse([]byte(`<QueueMessage><MessageText>  hi there  </MessageText></QueueMessage>`))
	if err != nil || e.Child("MessageText").Text != "  hi there  " {
		t.Fatalf("%+v %v", e, err)
	}
	if e, err := Parse([]byte(`<a/>`)); err != nil || e.Name != "a" {
		t.Fatal(err)
	}
}

func TestParseRefuses(t *testing.T) {
	deep := strings.Repeat("<a>", MaxDepth+1) + strings.Repeat("</a>", MaxDepth+1)
	ok := strings.Repeat("<a>", MaxDepth) + strings.Repeat("</a>", MaxDepth)
	if _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("MaxDepth deep: %v", err)
	}
	for _, doc := range []string{
		"", "   ", "text", "<", "<a", "<a>", "<a></b>", "<a></a><b/>", "<a/>text", "text<a/>",
		"<a b=1/>", "<a b='1' b='2'/>", "<a b='1'c='2'/>", "<a b='<'/>", "<a b='1/>",
		"<a>&unknown;</a>", "<a>&amp</a>", "<a>&#;</a>", "<a>&#x;</a>", "<a>&#0;</a>", "<a>&#xD800;</a>", "<a>&#x110000;</a>", "<a>&#12a;</a>",
		"<a>\x00</a>", "<a>\x01</a>", "<a>\xff</a>", "<a>\xed\xa0\x80</a>", "<a>\uFFFE</a>",
		"<a>]]></a>", "<a><![CDATA[x</a>", "<a><!-- x -- y --></a>", "<a><!-- x</a>",
		"<!DOCTYPE a><a/>", `<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>`,
		`<?xml version="1.0" encoding="UTF-16"?><a/>`, `<?xml encoding="utf-8"?><a/>`, `<?xml version="2.0"?><a/>`,
		`<?xml version="1.0" standalone="maybe"?><a/>`, `<?xml version="1.0" encoding="utf-8" version="1.0"?><a/>`,
		`<a/><?xml version="1.0"?>`, "<a><?xml x?></a>", "<a><?pi", "< a/>", "<1a/>", "<a></a >x",
		"<a>" + "\xEF\xBB\xBF" + "</a></a>",
		deep,
	} {
		if e, err := Parse([]byte(doc)); !svcerr.Is(err, svcerr.InvalidXMLDocument) {
			t.Errorf("%q: got %+v, %v; want InvalidXmlDocument", doc, e, err)
		}
	}
	big := make([]byte, MaxSize+1)
	if _, err := Parse(big); !svcerr.Is(err, svcerr.InvalidXMLDocument) {
		t.Error("an oversized document accepted")
	}
}

func TestParseSDKBodies(t *testing.T) {
	// Bodies as the SDKs send them: Go azqueue (encoding/xml, no
	// declaration) and JS (xml2js, with one).
	for _, c := range []struct{ doc, child, text string }{
		{`<QueueMessage><MessageText>hello &amp; bye</MessageText></QueueMessage>`, "MessageText", "hello & bye"},
		{`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><QueueMessage><MessageText>x</MessageText></QueueMessage>`, "MessageText", "x"},
		{`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><BlockList><Latest>MDAwMDA=</Latest></BlockList>`, "Latest", "MDAwMDA="},
	} {
		e, err := Parse([]byte(c.doc))
		if err != nil || e.Child(c.child).Text != c.text {
			t.Errorf("%s: %+v %v", c.doc, e, err)
		}
	}
}

// stdTree reads doc with encoding/xml into the shape Parse returns, for
// comparing the two readers.
func stdTree(doc []byte) (*Element, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	var stack []*Element
	var texts [][]byte
	var root *Element
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			return nil, err
		}
		name := func(n xml.Name) string {
			if n.Space != "" {
				return n.Space + ":" + n.Local
			}
			return n.Local
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &Element{Name: name(tok.Name)}
			for _, a := range tok.Attr {
				e.Attrs = append(e.Attrs, Attr{name(a.Name), a.Value})
			}
			if len(stack) > 0 {
				stack[len(stack)-1].Children = append(stack[len(stack)-1].Children, e)
			} else {
				root = e
			}
			stack = append(stack, e)
			texts = append(texts, nil)
		case xml.EndElement:
			stack[len(stack)-1].Text = string(texts[len(texts)-1])
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		case xml.CharData:
			if len(texts) > 0 {
				texts[len(texts)-1] = append(texts[len(texts)-1], tok...)
			}
		}
	}
}

// same compares two trees; attribute values holding white space are
// left out, as encoding/xml does not normalize them.
func same(a, b *Element) bool {
	if a.Name != b.Name || a.Text != b.Text || len(a.Attrs) != len(b.Attrs) || len(a.Children) != len(b.Children) {
		return false
	}
	for i := range a.Attrs {
		if a.Attrs[i].Name != b.Attrs[i].Name || !strings.ContainsAny(b.Attrs[i].Value, "\t\r\n") && a.Attrs[i].Value != b.Attrs[i].Value {
			return false
		}
	}
	for i := range a.Children {
		if !same(a.Children[i], b.Children[i]) {
			return false
		}
	}
	return true
}

// FuzzParse checks that Parse never panics, fails only with
// InvalidXmlDocument, and that whatever it accepts encoding/xml reads
// the same way.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>AAA=</Latest><Committed>QkI=</Committed></BlockList>`))
	f.Add([]byte(`<QueueMessage><MessageText>a &amp; b &#x41;</MessageText></QueueMessage>`))
	f.Add([]byte("<a x='1' y=\"&lt;\"><!-- c --><![CDATA[<>]]><b/>\r\n</a>"))
	f.Add([]byte("<!DOCTYPE a><a/>"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		e, err := Parse(doc)
		if err != nil {
			if !svcerr.Is(err, svcerr.InvalidXMLDocument) {
				t.Fatalf("error %v", err)
			}
			return
		}
		std, err := stdTree(doc)
		if err != nil {
			t.Fatalf("Parse accepted what encoding/xml refuses (%v): %q", err, doc)
		}
		if std == nil || !same(e, std) {
			t.Fatalf("readers differ on %q", doc)
		}
	})
}
