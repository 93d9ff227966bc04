package odata

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// tokenKind classifies the tokens of a $filter.
type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokLParen
	tokRParen
	tokIdent   // a property name, or a keyword (and, or, not, eq, ...)
	tokLiteral // any literal, already parsed
)

type token struct {
	kind tokenKind
	text string
	pos  int // 0-based byte offset in the filter
	val  edm.Value
}

// lexer splits a $filter into tokens. It finds where each literal ends
// (quotes with ” escapes, typed prefixes such as datetime'…', numbers
// with an exponent or an L suffix) and hands the text to edm.ParseLiteral.
type lexer struct {
	src string
	pos int
}

// syntaxError is a failure to read the filter src at pos. The message
// may end in a sentence of its own, such as a literal's error: the
// position continues it, as one sentence.
func syntaxError(src string, pos int, msg string) error {
	msg = svcerr.Clause(strings.ReplaceAll(msg, "\n", " "))
	return svcerr.With(svcerr.InvalidInput, msg+" at position "+strconv.Itoa(pos+1)+" in $filter (positions count from 1).")
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// literalPrefixes are the identifiers that start a typed literal when a
// quote follows them directly.
var literalPrefixes = [...]string{"datetime", "guid", "X", "binary"}

func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) && (l.src[l.pos] == ' ' || l.src[l.pos] == '\t' || l.src[l.pos] == '\r' || l.src[l.pos] == '\n') {
		l.pos++
	}
	start := l.pos
	if l.pos >= len(l.src) {
		return token{kind: tokEOF, pos: start}, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '(':
		l.pos++
		return token{kind: tokLParen, text: "(", pos: start}, nil
	case c == ')':
		l.pos++
		return token{kind: tokRParen, text: ")", pos: start}, nil
	case c == '\'':
		end, err := l.quoted(l.pos)
		if err != nil {
			return token{}, err
		}
		return l.literal(start, end)
	case c == '-' || c == '+' || c >= '0' && c <= '9' || c == '.':
		l.pos++
		for l.pos < len(l.src) {
			d := l.src[l.pos]
			if d >= '0' && d <= '9' || d == '.' || d == 'e' || d == 'E' || (d == '-' || d == '+') && (l.src[l.pos-1] == 'e' || l.src[l.pos-1] == 'E') {
				l.pos++
				continue
			}
			if d == 'L' || d == 'l' {
				l.pos++
			} else if c == '-' && l.pos == start+1 && strings.HasPrefix(l.src[l.pos:], "INF") {
				l.pos += 3
			}
			break
		}
		return l.literal(start, l.pos)
	case isIdentStart(c):
		for l.pos < len(l.src) && isIdentPart(l.src[l.pos]) {
			l.pos++
		}
		word := l.src[start:l.pos]
		if l.pos < len(l.src) && l.src[l.pos] == '\'' {
			for _, p := range literalPrefixes {
				if strings.EqualFold(word, p) {
					end, err := l.quoted(l.pos)
					if err != nil {
						return token{}, err
					}
					return l.literal(start, end)
				}
			}
		}
		switch {
		case word == "NaN" || word == "INF":
			return l.literal(start, l.pos)
		case strings.EqualFold(word, "true"), strings.EqualFold(word, "false"):
			// The service reads True and FALSE as the booleans, so a
			// property cannot be named like them in a filter.
			return token{kind: tokLiteral, text: word, pos: start, val: edm.BoolValue(strings.EqualFold(word, "true"))}, nil
		}
		return token{kind: tokIdent, text: word, pos: start}, nil
	}
	return token{}, syntaxError(l.src, start, "unexpected character "+strconv.Quote(string(rune(c))))
}

// quoted finds the end of a quoted part starting at the quote at i.
func (l *lexer) quoted(i int) (int, error) {
	for j := i + 1; j < len(l.src); j++ {
		if l.src[j] == '\'' {
			if j+1 < len(l.src) && l.src[j+1] == '\'' {
				j++
				continue
			}
			l.pos = j + 1
			return j + 1, nil
		}
	}
	return 0, syntaxError(l.src, i, "unterminated string literal")
}

func (l *lexer) literal(start, end int) (token, error) {
	text := l.src[start:end]
	v, err := edm.ParseLiteral(text)
	if err != nil {
		return token{}, syntaxError(l.src, start, "invalid literal "+shorten(text)+": "+svcerr.From(err).Message)
	}
	l.pos = end
	return token{kind: tokLiteral, text: text, pos: start, val: v}, nil
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
