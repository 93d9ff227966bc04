package odata

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/edm"
)

// Parse reads a $filter. Errors are *svcerr.Error with the code
// InvalidInput and a message naming the problem and its position.
func Parse(filter string) (*Filter, error) {
	p := &parser{lex: lexer{src: filter}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tokEOF {
		return nil, syntaxError(filter, 0, "empty filter")
	}
	root, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tokEOF {
		return nil, syntaxError(filter, p.tok.pos, "unexpected "+describe(p.tok))
	}
	if p.comparisons > MaxComparisons {
		return nil, syntaxError(filter, 0, "the filter has "+strconv.Itoa(p.comparisons)+" comparisons, more than the "+strconv.Itoa(MaxComparisons)+" allowed")
	}
	return newFilter(root, p.comparisons), nil
}

type parser struct {
	lex         lexer
	tok         token
	comparisons int
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of filter"
	case tokLiteral:
		return "literal " + shorten(t.text)
	}
	return "'" + shorten(t.text) + "'"
}

func (p *parser) keyword(w string) bool { return p.tok.kind == tokIdent && p.tok.text == w }

func (p *parser) or(depth int) (node, error) {
	if depth > maxDepth {
		return nil, syntaxError(p.lex.src, p.tok.pos, "the filter is nested too deeply")
	}
	l, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		l = &orNode{l, r}
	}
	return l, nil
}

func (p *parser) and(depth int) (node, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = &andNode{l, r}
	}
	return l, nil
}

func (p *parser) unary(depth int) (node, error) {
	if p.keyword("not") {
		if depth > maxDepth {
			return nil, syntaxError(p.lex.src, p.tok.pos, "the filter is nested too deeply")
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	}
	return p.primary(depth)
}

var comparisonOps = map[string]Op{"eq": Eq, "ne": Ne, "gt": Gt, "ge": Ge, "lt": Lt, "le": Le}

var reserved = map[string]bool{"and": true, "or": true, "not": true, "eq": true, "ne": true, "gt": true, "ge": true, "lt": true, "le": true}

func (p *parser) primary(depth int) (node, error) {
	switch p.tok.kind {
	case tokLParen:
		open := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tokRParen {
			return nil, syntaxError(p.lex.src, p.tok.pos, "expected ')' to close the '(' at position "+strconv.Itoa(open+1)+", found "+describe(p.tok))
		}
		return x, p.advance()
	case tokIdent, tokLiteral:
		left := p.tok
		if left.kind == tokIdent && reserved[left.text] {
			return nil, syntaxError(p.lex.src, left.pos, "unexpected '"+left.text+"'")
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		op, isCmp := Op(0), false
		if p.tok.kind == tokIdent {
			op, isCmp = comparisonOps[p.tok.text]
			if !isCmp {
				if _, upper := comparisonOps[strings.ToLower(p.tok.text)]; upper {
					return nil, syntaxError(p.lex.src, p.tok.pos, "operators are lower-case: '"+p.tok.text+"'")
				}
			}
		}
		if !isCmp {
			if left.kind == tokLiteral {
				if left.val.Kind() == edm.Boolean {
					return &constNode{left.val.Bool()}, nil
				}
				return nil, syntaxError(p.lex.src, left.pos, "a literal is not a condition; expected a comparison")
			}
			return &propNode{name: left.text}, nil
		}
		opPos := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		right := p.tok
		if right.kind != tokIdent && right.kind != tokLiteral {
			return nil, syntaxError(p.lex.src, right.pos, "expected a value after '"+op.String()+"', found "+describe(right))
		}
		if right.kind == tokIdent && reserved[right.text] {
			return nil, syntaxError(p.lex.src, right.pos, "expected a value after '"+op.String()+"', found '"+right.text+"'")
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		p.comparisons++
		switch {
		case left.kind == tokIdent && right.kind == tokLiteral:
			return &cmpNode{name: left.text, op: op, lit: right.val}, nil
		case left.kind == tokLiteral && right.kind == tokIdent:
			return &cmpNode{name: right.text, op: op.mirror(), lit: left.val}, nil
		case left.kind == tokLiteral && right.kind == tokLiteral:
			return &constNode{compare(left.val, op, right.val)}, nil
		}
		return nil, syntaxError(p.lex.src, opPos, "a comparison needs a constant on one side; '"+op.String()+"' compares two properties, "+left.text+" and "+right.text+" (a string constant is written in quotes)")
	case tokEOF:
		return nil, syntaxError(p.lex.src, p.tok.pos, "unexpected end of filter")
	}
	return nil, syntaxError(p.lex.src, p.tok.pos, "unexpected "+describe(p.tok))
}
