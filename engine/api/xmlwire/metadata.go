package xmlwire

import (
	"strconv"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// MetaPrefix starts the name of every metadata header.
const MetaPrefix = "x-ms-meta-"

// MaxMetadata is the most metadata a container, blob or queue may carry:
// the bytes of every name and value together.
const MaxMetadata = 8 << 10

// Headers is what Metadata reads and SetMetadata writes; *api.Header is
// one. An interface, so that the Table protocol in package api can use
// this package's XML reader without an import cycle.
type Headers interface {
	Each(func(name, value string))
	Set(name, value string)
}

// Pair is one metadata name and its value.
type Pair struct{ Name, Value string }

// Metadata reads the x-ms-meta-* headers of h, in the order they came,
// each name without the prefix and in the case it was sent in. A name
// that is empty fails with EmptyMetadataKey, one that is not a C#
// identifier with InvalidMetadata, and more than MaxMetadata in all with
// MetadataTooLarge.
func Metadata(h Headers) ([]Pair, error) {
	var (
		out  []Pair
		size int
		err  error
	)
	h.Each(func(name, value string) {
		if err != nil || len(name) < len(MetaPrefix) || !equalFold(name[:len(MetaPrefix)], MetaPrefix) {
			return
		}
		name = name[len(MetaPrefix):]
		switch {
		case name == "":
			err = svcerr.New(svcerr.EmptyMetadataKey)
			return
		case !isIdentifier(name):
			err = svcerr.With(svcerr.InvalidMetadata, svcerr.InvalidMetadata.Message()+" The name "+strconv.Quote(name)+" is not a valid C# identifier.")
			return
		}
		size += len(name) + len(value)
		out = append(out, Pair{name, value})
	})
	if err != nil {
		return nil, err
	}
	if size > MaxMetadata {
		return nil, svcerr.New(svcerr.MetadataTooLarge)
	}
	return out, nil
}

// SetMetadata sets an x-ms-meta-* header on h for each pair.
func SetMetadata(h Headers, m []Pair) {
	for _, p := range m {
		h.Set(MetaPrefix+p.Name, p.Value)
	}
}

// AppendMetadata appends the <Metadata> element of a listing:
// <Metadata><name>value</name>…</Metadata>.
func AppendMetadata(b []byte, m []Pair) []byte {
	b = append(b, "<Metadata>"...)
	for _, p := range m {
		b = AppendElement(b, p.Name, p.Value)
	}
	return append(b, "</Metadata>"...)
}

// isIdentifier reports whether s is a C# identifier as far as an HTTP
// header name can spell one: a letter or '_', then letters, digits and
// '_'. (A header name is ASCII, so the Unicode letters C# also allows
// cannot arrive.)
func isIdentifier(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		case '0' <= c && c <= '9':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return s != ""
}
