package jsonwire

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/internal/urltext"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Metadata is the amount of OData metadata a response carries.
type Metadata uint8

// The three metadata levels of the JSON format.
const (
	NoMetadata Metadata = iota + 1
	MinimalMetadata
	FullMetadata
)

// ContentType is the response Content-Type for the level.
func (m Metadata) ContentType() string {
	if m < NoMetadata || m > FullMetadata {
		m = MinimalMetadata
	}
	return contentTypes[m]
}

// contentTypes are the levels' Content-Types, written once rather than
// concatenated for every response.
var contentTypes = [...]string{
	NoMetadata:      "application/json;odata=nometadata;streaming=true;charset=utf-8",
	MinimalMetadata: "application/json;odata=minimalmetadata;streaming=true;charset=utf-8",
	FullMetadata:    "application/json;odata=fullmetadata;streaming=true;charset=utf-8",
}

// ParseFormat picks the metadata level from the $format query parameter,
// which wins, or else from the Accept header. application/json alone,
// */* and nothing at all mean minimal metadata. A request that accepts
// only Atom or XML is refused: the service no longer writes Atom.
func ParseFormat(accept, format string) (Metadata, error) {
	if format != "" {
		if m, ok := level(format); ok {
			return m, nil
		}
		if strings.EqualFold(strings.TrimSpace(format), "atom") {
			return 0, svcerr.New(svcerr.AtomFormatNotSupported)
		}
		return 0, svcerr.With(svcerr.InvalidInput, "The $format value '"+format+"' is not supported.")
	}
	if strings.TrimSpace(accept) == "" {
		return MinimalMetadata, nil
	}
	// Cut rather than Split: every request has an Accept header, and the
	// slices Split made were garbage the collector paid for under wasm.
	for rest, more := accept, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, ",")
		if m, ok := level(part); ok {
			return m, nil
		}
	}
	return 0, svcerr.New(svcerr.AtomFormatNotSupported)
}

// level reads one media range such as application/json;odata=nometadata.
func level(s string) (Metadata, bool) {
	first, params, more := strings.Cut(s, ";")
	mt := strings.ToLower(strings.TrimSpace(first))
	switch mt {
	case "application/json", "*/*", "application/*", "json":
	default:
		return 0, false
	}
	m := MinimalMetadata
	for more {
		var p string
		p, params, more = strings.Cut(params, ";")
		k, v, _ := strings.Cut(p, "=")
		if strings.EqualFold(strings.TrimSpace(k), "odata") {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "nometadata":
				m = NoMetadata
			case "minimalmetadata":
				m = MinimalMetadata
			case "fullmetadata":
				m = FullMetadata
			default:
				return 0, false
			}
		}
	}
	return m, true
}

// Options shape an encoded response.
type Options struct {
	Metadata Metadata
	// BaseURL is the account's URL, e.g.
	// http://127.0.0.1:10002/devstoreaccount1; odata.metadata and odata.id
	// hang off it.
	BaseURL string
	// Account names the account in odata.type.
	Account string
	// Table is the table's name as created.
	Table string
	// Select lists the properties to return ($select); nil means all.
	Select []string
}

// EntityPath is the path of one entity under the account, quoted as the
// service writes it in Location, DataServiceId and odata.id: quotes in
// keys doubled, then the keys percent-encoded as path text (the doubled
// quotes left as they are).
func EntityPath(table, pk, rk string) string {
	return table + "(PartitionKey='" + QuoteKey(pk) + "',RowKey='" + QuoteKey(rk) + "')"
}

// QuoteKey writes a key for a resource path: ” for each quote, and
// percent-escapes for what a path segment cannot hold.
func QuoteKey(k string) string {
	// Most keys are letters and digits, which neither step changes: the
	// three passes over them showed in every insert's profile under wasm.
	plain := true
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~'
	}
	if plain {
		return k
	}
	return strings.ReplaceAll(urltext.PathEscape(strings.ReplaceAll(k, "'", "''")), "%27", "'")
}

// TablePath is the path of a table resource: Tables('name').
func TablePath(name string) string { return "Tables('" + name + "')" }

// AppendEntity appends a single-entity response (insert, get).
func AppendEntity(dst []byte, e *engine.Entity, o Options) []byte {
	if dst == nil {
		// One allocation near the body's size instead of the doublings
		// from nothing (five or six for a small entity): allocation is
		// what costs most under wasm. The metadata and the names'
		// quoting take a few hundred bytes besides the text, the rest
		// a few dozen a property.
		n := 96 + 2*(len(e.PartitionKey)+len(e.RowKey))
		per := 32
		if o.Metadata != NoMetadata {
			n += 320 + len(o.BaseURL) + len(o.Table)
			per = 48
		}
		for _, p := range e.Properties {
			n += len(p.Name) + len(p.Value.Str()) + per
		}
		dst = make([]byte, 0, n)
	}
	return appendEntity(dst, e, o, true)
}

// AppendEntities appends a query response: the entities in "value".
func AppendEntities(dst []byte, es []*engine.Entity, o Options) []byte {
	dst = append(dst, '{')
	if o.Metadata != NoMetadata {
		dst = append(dst, `"odata.metadata":`...)
		dst = edm.AppendQuoted(dst, o.BaseURL+"/$metadata#"+o.Table)
		dst = append(dst, ',')
	}
	dst = append(dst, `"value":[`...)
	start := len(dst)
	for i, e := range es {
		if i > 0 {
			dst = append(dst, ',')
		}
		if i == 1 {
			// One growth sized from the first entity, instead of the
			// doublings (each a copy) of a page that may reach megabytes.
			dst = slices.Grow(dst, (len(dst)-start)*(len(es)-1)*9/8+2)
		}
		dst = appendEntity(dst, e, o, false)
	}
	return append(dst, "]}"...)
}

func member(dst []byte, first *bool, name string) []byte {
	if !*first {
		dst = append(dst, ',')
	}
	*first = false
	dst = edm.AppendQuoted(dst, name)
	return append(dst, ':')
}

func appendEntity(dst []byte, e *engine.Entity, o Options, element bool) []byte {
	dst = append(dst, '{')
	first := true
	if o.Metadata != NoMetadata {
		if element {
			dst = member(dst, &first, "odata.metadata")
			dst = edm.AppendQuoted(dst, o.BaseURL+"/$metadata#"+o.Table+"/@Element")
		}
		if o.Metadata == FullMetadata {
			path := EntityPath(o.Table, e.PartitionKey, e.RowKey)
			dst = member(dst, &first, "odata.type")
			dst = edm.AppendQuoted(dst, o.Account+"."+o.Table)
			dst = member(dst, &first, "odata.id")
			dst = edm.AppendQuoted(dst, o.BaseURL+"/"+path)
		}
		dst = member(dst, &first, "odata.etag")
		dst = edm.AppendQuoted(dst, e.ETag())
		if o.Metadata == FullMetadata {
			dst = member(dst, &first, "odata.editLink")
			dst = edm.AppendQuoted(dst, EntityPath(o.Table, e.PartitionKey, e.RowKey))
		}
	}
	if o.Select == nil {
		dst = member(dst, &first, engine.PartitionKeyName)
		dst = edm.AppendQuoted(dst, e.PartitionKey)
		dst = member(dst, &first, engine.RowKeyName)
		dst = edm.AppendQuoted(dst, e.RowKey)
		dst = appendTimestamp(dst, &first, e, o)
		for i := range e.Properties {
			dst = appendProperty(dst, &first, e.Properties[i].Name, e.Properties[i].Value, o)
		}
		return append(dst, '}')
	}
	// $select: the named properties only, in the order asked, and null for
	// those the entity lacks (the service writes them so).
	for _, name := range o.Select {
		if name == engine.TimestampName {
			dst = appendTimestamp(dst, &first, e, o)
			continue
		}
		v, ok := e.Property(name)
		if !ok {
			dst = member(dst, &first, name)
			dst = append(dst, "null"...)
			continue
		}
		dst = appendProperty(dst, &first, name, v, o)
	}
	return append(dst, '}')
}

func appendTimestamp(dst []byte, first *bool, e *engine.Entity, o Options) []byte {
	if o.Metadata == FullMetadata {
		dst = member(dst, first, "Timestamp@odata.type")
		dst = append(dst, `"Edm.DateTime"`...)
	}
	dst = member(dst, first, engine.TimestampName)
	return edm.AppendJSON(dst, edm.DateTimeTicks(e.Timestamp))
}

func appendProperty(dst []byte, first *bool, name string, v edm.Value, o Options) []byte {
	if o.Metadata != NoMetadata && v.NeedsAnnotation() {
		dst = member(dst, first, name+"@odata.type")
		dst = edm.AppendQuoted(dst, v.Kind().String())
	}
	dst = member(dst, first, name)
	return edm.AppendJSON(dst, v)
}

// AppendTable appends a single table (create table, get table).
func AppendTable(dst []byte, name string, o Options) []byte {
	dst = append(dst, '{')
	first := true
	if o.Metadata != NoMetadata {
		dst = member(dst, &first, "odata.metadata")
		dst = edm.AppendQuoted(dst, o.BaseURL+"/$metadata#Tables/@Element")
	}
	dst = appendTableMembers(dst, &first, name, o)
	return append(dst, '}')
}

func appendTableMembers(dst []byte, first *bool, name string, o Options) []byte {
	if o.Metadata == FullMetadata {
		dst = member(dst, first, "odata.type")
		dst = edm.AppendQuoted(dst, o.Account+".Tables")
		dst = member(dst, first, "odata.id")
		dst = edm.AppendQuoted(dst, o.BaseURL+"/"+TablePath(name))
		dst = member(dst, first, "odata.editLink")
		dst = edm.AppendQuoted(dst, TablePath(name))
	}
	dst = member(dst, first, "TableName")
	return edm.AppendQuoted(dst, name)
}

// AppendTables appends a table listing.
func AppendTables(dst []byte, names []string, o Options) []byte {
	dst = append(dst, '{')
	if o.Metadata != NoMetadata {
		dst = append(dst, `"odata.metadata":`...)
		dst = edm.AppendQuoted(dst, o.BaseURL+"/$metadata#Tables")
		dst = append(dst, ',')
	}
	dst = append(dst, `"value":[`...)
	for i, n := range names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		first := true
		dst = appendTableMembers(dst, &first, n, o)
		dst = append(dst, '}')
	}
	return append(dst, "]}"...)
}

// AppendError appends the service's JSON error body. The message ends with
// the request id and time, as the service's do; inside a batch it starts
// with the failing operation's index.
func AppendError(dst []byte, err *svcerr.Error, requestID string, now time.Time) []byte {
	msg := err.Message
	if err.Index >= 0 {
		msg = strconv.Itoa(err.Index) + ":" + msg
	}
	msg += "\nRequestId:" + requestID + "\nTime:" + now.UTC().Format("2006-01-02T15:04:05.0000000Z")
	dst = append(dst, `{"odata.error":{"code":`...)
	dst = edm.AppendQuoted(dst, string(err.Code))
	dst = append(dst, `,"message":{"lang":"en-US","value":`...)
	dst = edm.AppendQuoted(dst, msg)
	return append(dst, "}}}"...)
}
