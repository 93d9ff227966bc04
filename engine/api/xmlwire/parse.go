package xmlwire

import (
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Bounds of a document Parse reads. The services' request bodies are a
// few levels deep; the largest (a block list of 50,000 ids) is a few MiB.
const (
	MaxDepth = 64
	MaxSize  = 16 << 20
)

// Element is one element of a parsed document.
type Element struct {
	Name  string
	Attrs []Attr
	// Text is the element's own character data, entities and references
	// decoded, CDATA sections included, line ends normalized to "\n".
	// The text between child elements is part of it, so for an element
	// with children it is usually only white space.
	Text     string
	Children []*Element
}

// Attr is one attribute of an element.
type Attr struct{ Name, Value string }

// Child returns the first child element named name, or nil.
func (e *Element) Child(name string) *Element {
	if e == nil {
		return nil
	}
	for _, c := range e.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// All returns the child elements named name, in document order.
func (e *Element) All(name string) []*Element {
	if e == nil {
		return nil
	}
	var out []*Element
	for _, c := range e.Children {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// Attr returns the value of the attribute named name and whether it is
// present.
func (e *Element) Attr(name string) (string, bool) {
	if e == nil {
		return "", false
	}
	for _, a := range e.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return "", false
}

// Parse reads a whole XML document and returns its root element. It is
// strict and small: an optional byte order mark and declaration (which
// must name UTF-8 if it names an encoding), comments and processing
// instructions around and inside the root, CDATA sections, the five
// predefined entities and numeric character references. A document type
// declaration, any other entity, text outside the root, a second root,
// bytes that are not UTF-8, and anything beyond MaxDepth or MaxSize fail,
// all with InvalidXmlDocument.
func Parse(doc []byte) (*Element, error) {
	if len(doc) > MaxSize {
		return nil, invalid()
	}
	p := parser{s: doc}
	if len(doc) >= 3 && doc[0] == 0xEF && doc[1] == 0xBB && doc[2] == 0xBF {
		p.i = 3
	}
	if p.hasPrefix("<?xml") && p.i+5 < len(p.s) && isSpace(p.s[p.i+5]) {
		if !p.declaration() {
			return nil, invalid()
		}
	}
	if !p.misc() || !p.hasPrefix("<") {
		return nil, invalid()
	}
	root := p.element(1)
	if root == nil || !p.misc() || p.i != len(p.s) {
		return nil, invalid()
	}
	return root, nil
}

func invalid() error { return svcerr.New(svcerr.InvalidXMLDocument) }

// parser reads s from i; its methods report failure with false or nil
// and leave the caller to give up.
type parser struct {
	s    []byte
	i    int
	text []byte // scratch for decoding character data
}

// hasPrefix and skipSpace are not inlined: the reader calls them at
// every step, and a copy at each call site weighs more in the browser
// build than the call costs (docs/benchmarks.md).
//
//go:noinline
func (p *parser) hasPrefix(pre string) bool {
	return len(p.s)-p.i >= len(pre) && string(p.s[p.i:p.i+len(pre)]) == pre
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

//go:noinline
func (p *parser) skipSpace() bool {
	start := p.i
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
	return p.i > start
}

// declaration reads <?xml version="1.x" encoding="…" standalone="…"?>.
func (p *parser) declaration() bool {
	p.i += len("<?xml")
	seen := 0
	for {
		spaced := p.skipSpace()
		if p.hasPrefix("?>") {
			p.i += 2
			return seen&1 != 0
		}
		if !spaced {
			return false
		}
		name, value, ok := p.attribute()
		if !ok {
			return false
		}
		switch {
		case name == "version" && seen == 0:
			if len(value) < 3 || value[:2] != "1." {
				return false
			}
			seen |= 1
		case name == "encoding" && seen == 1:
			if !equalFold(value, "utf-8") && !equalFold(value, "utf8") && !equalFold(value, "us-ascii") {
				return false
			}
			seen |= 2
		case name == "standalone" && seen&1 != 0 && seen&4 == 0:
			if value != "yes" && value != "no" {
				return false
			}
			seen |= 4
		default:
			return false
		}
	}
}

// equalFold compares ASCII strings without regard to case.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// misc skips white space, comments and processing instructions.
func (p *parser) misc() bool {
	for {
		p.skipSpace()
		switch {
		case p.hasPrefix("<!--"):
			if !p.comment() {
				return false
			}
		case p.hasPrefix("<?"):
			if !p.pi() {
				return false
			}
		default:
			return true
		}
	}
}

// comment skips <!-- … -->, which may not hold "--".
func (p *parser) comment() bool {
	p.i += 4
	for p.i < len(p.s) {
		if p.hasPrefix("--") {
			if !p.hasPrefix("-->") {
				return false
			}
			p.i += 3
			return true
		}
		if !p.char() {
			return false
		}
	}
	return false
}

// pi skips a processing instruction <?target …?>; the target may not be
// "xml" in any case, which only the declaration may use.
func (p *parser) pi() bool {
	p.i += 2
	name := p.name()
	if name == "" || equalFold(name, "xml") {
		return false
	}
	if p.hasPrefix("?>") {
		p.i += 2
		return true
	}
	if !p.skipSpace() {
		return false
	}
	for p.i < len(p.s) {
		if p.hasPrefix("?>") {
			p.i += 2
			return true
		}
		if !p.char() {
			return false
		}
	}
	return false
}

// char steps over one character, failing on bytes that are not UTF-8
// and on characters XML does not allow.
func (p *parser) char() bool {
	c := p.s[p.i]
	if c < utf8.RuneSelf {
		if c < 0x20 && !isSpace(c) {
			return false
		}
		p.i++
		return true
	}
	r, n := utf8.DecodeRune(p.s[p.i:])
	if r == utf8.RuneError && n == 1 || !isChar(r) {
		return false
	}
	p.i += n
	return true
}

// isNameByte reports whether c may appear in a name; first is whether
// it starts one. Any non-ASCII letter is allowed; the services' names
// are all ASCII.
func isNameByte(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_', c == ':', c >= utf8.RuneSelf:
		return true
	case '0' <= c && c <= '9', c == '-', c == '.':
		return !first
	}
	return false
}

// name reads a name, or returns "" if none starts here.
func (p *parser) name() string {
	start := p.i
	for p.i < len(p.s) && isNameByte(p.s[p.i], p.i == start) {
		p.i++
	}
	if !utf8.Valid(p.s[start:p.i]) {
		p.i = start
		return ""
	}
	return string(p.s[start:p.i])
}

// attribute reads name = "value" (or 'value').
func (p *parser) attribute() (name, value string, ok bool) {
	name = p.name()
	if name == "" {
		return "", "", false
	}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '=' {
		return "", "", false
	}
	p.i++
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != '"' && p.s[p.i] != '\'' {
		return "", "", false
	}
	quote := p.s[p.i]
	p.i++
	p.text = p.text[:0]
	for {
		if p.i >= len(p.s) {
			return "", "", false
		}
		switch c := p.s[p.i]; c {
		case quote:
			p.i++
			return name, string(p.text), true
		case '<':
			return "", "", false
		case '&':
			if !p.reference() {
				return "", "", false
			}
		case '\t', '\n':
			// Attribute-value normalization: white space becomes a space.
			p.text = append(p.text, ' ')
			p.i++
		case '\r':
			p.text = append(p.text, ' ')
			p.i++
			if p.i < len(p.s) && p.s[p.i] == '\n' {
				p.i++
			}
		default:
			start := p.i
			if !p.char() {
				return "", "", false
			}
			p.text = append(p.text, p.s[start:p.i]...)
		}
	}
}

// reference decodes &name; or &#…; onto p.text.
func (p *parser) reference() bool {
	end := p.i + 1
	for end < len(p.s) && end-p.i < 12 && p.s[end] != ';' {
		end++
	}
	if end >= len(p.s) || p.s[end] != ';' {
		return false
	}
	ref := string(p.s[p.i+1 : end])
	p.i = end + 1
	switch ref {
	case "lt":
		p.text = append(p.text, '<')
	case "gt":
		p.text = append(p.text, '>')
	case "amp":
		p.text = append(p.text, '&')
	case "apos":
		p.text = append(p.text, '\'')
	case "quot":
		p.text = append(p.text, '"')
	default:
		if len(ref) < 2 || ref[0] != '#' {
			return false
		}
		digits, base := ref[1:], rune(10)
		if digits[0] == 'x' {
			digits, base = digits[1:], 16
		}
		if digits == "" {
			return false
		}
		var r rune
		for i := 0; i < len(digits); i++ {
			c := digits[i]
			var d rune
			switch {
			case '0' <= c && c <= '9':
				d = rune(c - '0')
			case base == 16 && 'a' <= c && c <= 'f':
				d = rune(c-'a') + 10
			case base == 16 && 'A' <= c && c <= 'F':
				d = rune(c-'A') + 10
			default:
				return false
			}
			r = r*base + d
			if r > utf8.MaxRune {
				return false
			}
		}
		if !isChar(r) {
			return false
		}
		p.text = utf8.AppendRune(p.text, r)
	}
	return true
}

// element reads an element starting at '<', at the given depth.
func (p *parser) element(depth int) *Element {
	if depth > MaxDepth {
		return nil
	}
	p.i++ // '<'
	e := &Element{Name: p.name()}
	if e.Name == "" {
		return nil
	}
	for {
		spaced := p.skipSpace()
		if p.hasPrefix("/>") {
			p.i += 2
			return e
		}
		if p.hasPrefix(">") {
			p.i++
			break
		}
		if !spaced {
			return nil
		}
		name, value, ok := p.attribute()
		if !ok {
			return nil
		}
		if _, dup := e.Attr(name); dup {
			return nil
		}
		e.Attrs = append(e.Attrs, Attr{name, value})
	}
	// Content. Child elements reuse p.text, so this element's text is
	// gathered on its own and copied out once.
	var text []byte
	for {
		if p.i >= len(p.s) {
			return nil
		}
		switch {
		case p.hasPrefix("</"):
			p.i += 2
			if p.name() != e.Name {
				return nil
			}
			p.skipSpace()
			if !p.hasPrefix(">") {
				return nil
			}
			p.i++
			e.Text = string(text)
			return e
		case p.hasPrefix("<!--"):
			if !p.comment() {
				return nil
			}
		case p.hasPrefix("<![CDATA["):
			p.i += len("<![CDATA[")
			for !p.hasPrefix("]]>") {
				if p.i >= len(p.s) {
					return nil
				}
				start := p.i
				if !p.char() {
					return nil
				}
				text = appendNormalized(text, p.s[start:p.i], p.s, p.i)
			}
			p.i += 3
		case p.hasPrefix("<?"):
			if !p.pi() {
				return nil
			}
		case p.s[p.i] == '<':
			child := p.element(depth + 1)
			if child == nil {
				return nil
			}
			e.Children = append(e.Children, child)
		case p.s[p.i] == '&':
			p.text = p.text[:0]
			if !p.reference() {
				return nil
			}
			text = append(text, p.text...)
		default:
			if p.hasPrefix("]]>") {
				return nil
			}
			start := p.i
			if !p.char() {
				return nil
			}
			text = appendNormalized(text, p.s[start:p.i], p.s, p.i)
		}
	}
}

// appendNormalized appends one character c of character data, turning
// a line end ("\r\n" or a lone "\r") into "\n" as XML readers must; next
// is the position after c in s.
func appendNormalized(text, c, s []byte, next int) []byte {
	if len(c) == 1 && c[0] == '\r' {
		if next < len(s) && s[next] == '\n' {
			return text // the "\n" that follows is appended next
		}
		return append(text, '\n')
	}
	return append(text, c...)
}
