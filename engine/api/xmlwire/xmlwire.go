// Package xmlwire holds the XML wire pieces the Queue and Blob services
// share: escaping, a small strict reader for request bodies, the
// services' error body, and the x-ms-meta-* metadata headers.
//
// It uses no encoding/xml, fmt or reflection: it is linked into the
// browser build, whose size budget has no room for them.
package xmlwire

import (
	"time"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Declaration is the XML declaration the services start every body with.
const Declaration = `<?xml version="1.0" encoding="utf-8"?>`

// AppendEscaped appends s to b escaped for XML character data and for
// attribute values alike. A carriage return is written as a reference so
// that it survives a reader's line-end normalization; bytes that are not
// UTF-8, and characters XML 1.0 cannot carry at all, become U+FFFD.
func AppendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'' {
			i++
			continue
		}
		var esc string
		width := 1
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&quot;"
		case '\'':
			esc = "&apos;"
		case '\r':
			esc = "&#xD;"
		case '\n', '\t':
			i++
			continue
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			width = n
			if r == utf8.RuneError && n == 1 || !isChar(r) {
				esc = "\uFFFD"
			} else {
				i += n
				continue
			}
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		i += width
		last = i
	}
	return append(b, s[last:]...)
}

// AppendElement appends <name>text</name>, text escaped.
func AppendElement(b []byte, name, text string) []byte {
	b = append(b, '<')
	b = append(b, name...)
	b = append(b, '>')
	b = AppendEscaped(b, text)
	b = append(b, "</"...)
	b = append(b, name...)
	return append(b, '>')
}

// TimeLayout is the form of the time in an error body: seven fractional
// digits, always written, in UTC.
const TimeLayout = "2006-01-02T15:04:05.0000000Z"

// AppendError appends the Queue and Blob services' error body: the code,
// and a message followed by the request id and the time on lines of
// their own, as the service writes them.
func AppendError(b []byte, code svcerr.Code, message, requestID string, now time.Time) []byte {
	b = append(b, Declaration...)
	b = append(b, "<Error>"...)
	b = AppendElement(b, "Code", string(code))
	b = append(b, "<Message>"...)
	b = AppendEscaped(b, message)
	b = append(b, "\nRequestId:"...)
	b = AppendEscaped(b, requestID)
	b = append(b, "\nTime:"...)
	b = now.UTC().AppendFormat(b, TimeLayout)
	return append(b, "</Message></Error>"...)
}

// isChar reports whether r is a character XML 1.0 allows in a document.
func isChar(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}
