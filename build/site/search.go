package site

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
)

// A Section is a part of a page that search results land on: the page's
// opening, before its first h2 or h3 (ID ""), or an h2 or h3 heading and
// what follows it up to the next one.
type Section struct {
	ID      string
	Heading string
	// Text is the section's prose without markup (inline code included),
	// Code its code blocks and examples, each with its white space
	// collapsed to single spaces.
	Text, Code string
}

// pageSections splits doc, a parsed page, into its sections. Only
// headings at the top level of the page start one; an h4 and deeper, and
// a heading inside a list or a quote, are text of the section they are in.
func pageSections(doc ast.Node, source []byte, headings []Heading) []Section {
	text := make(map[string]string, len(headings))
	for _, h := range headings {
		text[h.ID] = h.Text
	}
	sections := []Section{{}}
	var prose, code strings.Builder
	end := func() {
		s := &sections[len(sections)-1]
		s.Text = strings.Join(strings.Fields(prose.String()), " ")
		s.Code = strings.Join(strings.Fields(code.String()), " ")
		prose.Reset()
		code.Reset()
	}
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && (h.Level == 2 || h.Level == 3) {
			if id, ok := h.AttributeString("id"); ok {
				if id, ok := id.([]byte); ok {
					end()
					sections = append(sections, Section{ID: string(id), Heading: text[string(id)]})
					continue
				}
			}
		}
		writeSearchText(&prose, &code, n, source)
	}
	end()
	return sections
}

// writeSearchText writes the text a reader sees in n: its words to prose
// (without a heading's "#" anchor), its code blocks and a run block's code
// (not its hidden expected output) to code. Blocks and table cells are
// kept apart by a space.
func writeSearchText(prose, code *strings.Builder, n ast.Node, source []byte) {
	b := prose
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		if c.Type() == ast.TypeBlock || c.Kind() == extast.KindTableCell {
			b.WriteByte(' ')
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(source))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.URL(source))
			return ast.WalkSkipChildren, nil
		case *ast.Link:
			if class, _ := c.AttributeString("class"); string(toBytes(class)) == "anchor" {
				return ast.WalkSkipChildren, nil
			}
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			lines := c.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				code.Write(seg.Value(source))
			}
			code.WriteByte(' ')
			return ast.WalkSkipChildren, nil
		case *RunBlock:
			code.WriteString(c.Source)
			code.WriteByte(' ')
			return ast.WalkSkipChildren, nil
		case *Exercise:
			// The task is prose; the design is code. The solution stays
			// out: a search should not hand over the answer.
			b.WriteString(c.Check.Task)
			b.WriteByte(' ')
			code.WriteString(c.Start)
			code.WriteByte(' ')
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock, *ast.RawHTML, *MapBlock:
			// Raw HTML is not rendered (goldmark's default), and the
			// pattern map draws the titles of pages indexed anyway.
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

// toBytes is v as bytes when it is an attribute value goldmark stored as
// []byte, and nil otherwise.
func toBytes(v any) []byte {
	b, _ := v.([]byte)
	return b
}

// The search index's fields. A document is one section: its title field
// is the page's title and is set on the page's opening section only, so a
// word of a title ranks that page's top above its sections; heading is
// the section's heading, text its prose and code its code, apart so that
// a section that explains a word can rank above one whose code only uses
// it. The page's URL, with #anchor for a heading's section, is the
// document's id. The browser shows every field of a result (a snippet of
// the code when the prose lacks the words), so the index stores them:
// results need no second file. site/static/search-options.js passes
// MiniSearch the same lists.
var (
	searchFields      = []string{"title", "heading", "text", "code"}
	searchStoreFields = []string{"title", "heading", "text", "code"}
)

// A searchDoc is a section as a document of the index; a field left
// empty is absent from the document, as MiniSearch sees it.
type searchDoc struct {
	ID      string `json:"id"`
	Title   string `json:"title,omitempty"`
	Heading string `json:"heading,omitempty"`
	Text    string `json:"text,omitempty"`
	Code    string `json:"code,omitempty"`
}

// fields are d's fields by name, the empty ones left out.
func (d searchDoc) fields() map[string]string {
	f := make(map[string]string, 4)
	put := func(name, v string) {
		if v != "" {
			f[name] = v
		}
	}
	put("title", d.Title)
	put("heading", d.Heading)
	put("text", d.Text)
	put("code", d.Code)
	return f
}

// searchDocs lists every section of pages (in their order) as a document.
func searchDocs(pages []*Page) []searchDoc {
	var docs []searchDoc
	for _, p := range pages {
		for _, s := range p.Sections {
			d := searchDoc{ID: p.URL, Heading: s.Heading, Text: s.Text, Code: s.Code}
			if s.ID == "" {
				d.Title = p.Title
			} else {
				d.ID += "#" + s.ID
			}
			docs = append(docs, d)
		}
	}
	return docs
}

// buildSearchIndex indexes docs as MiniSearch does with the site's
// options.
func buildSearchIndex(docs []searchDoc) *miniSearch {
	m := newMiniSearch(searchFields, searchStoreFields)
	for _, d := range docs {
		m.add(d.ID, d.fields())
	}
	return m
}

// writeSearchIndex writes search.json: the index of every section of
// every page in MiniSearch's serialized form, which the search box loads
// with MiniSearch.loadJSON when the reader first reaches for it.
func writeSearchIndex(out string, pages []*Page) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// Code is full of "<", ">" and "&": as they are, not as \u003c.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(buildSearchIndex(searchDocs(pages)).serialized()); err != nil {
		return err
	}
	return writeFile(filepath.Join(out, "search.json"), b.Bytes())
}
