package site

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// searchTokens splits text into words: runs of letters and digits, so
// that "$filter" is "filter", "odata`PartitionKey" is "odata" and
// "partitionkey", and "412", "DateTime" and "EntityAlreadyExists" stay
// whole. MiniSearch's default split (on white space and punctuation)
// would keep "$filter", "odata=nometadata" and a template's backtick
// stuck to their words, which code is full of. site/static/search-options.js
// splits the same way in the browser: an empty string where the text
// starts or ends with a separator, as JavaScript's String.split gives.
var searchTokens = regexp.MustCompile(`[^\p{L}\p{N}]+`)

// A miniSearch is an index built the way MiniSearch 7's add builds one
// (with the tokenizer above and lower-cased terms), held in the form its
// toJSON writes and its loadJSON reads: no search runs here, the browser's
// MiniSearch does that. The quirks of MiniSearch are kept, since loadJSON
// trusts what it reads: a field's length is its number of distinct
// tokens before lower-casing, the empty token counted; an average field
// length is a running mean over every document added so far, those
// without the field included in the count; a document's field lengths
// are an array up to its last field present, with null for absent ones.
type miniSearch struct {
	fields []string // indexed, in the order of their ids
	store  []string // stored for results

	ids         []string
	fieldLength [][]*int
	average     []*float64
	stored      []map[string]string
	// index maps a term to its field ids, each to the documents (by
	// short id) holding the term there and how often.
	index map[string]map[int]map[int]int
}

func newMiniSearch(fields, store []string) *miniSearch {
	return &miniSearch{fields: fields, store: store, index: make(map[string]map[int]map[int]int)}
}

// add indexes a document: id is its id, fields its values by field name
// (a name absent is a field the document lacks).
func (m *miniSearch) add(id string, fields map[string]string) {
	short := len(m.ids)
	m.ids = append(m.ids, id)
	stored := make(map[string]string)
	for _, name := range m.store {
		if v, ok := fields[name]; ok {
			stored[name] = v
		}
	}
	m.stored = append(m.stored, stored)

	var lengths []*int
	for fieldID, name := range m.fields {
		v, ok := fields[name]
		if !ok {
			continue
		}
		tokens := searchTokens.Split(v, -1)
		distinct := make(map[string]bool, len(tokens))
		for _, t := range tokens {
			distinct[t] = true
		}
		n := len(distinct)
		for len(lengths) <= fieldID {
			lengths = append(lengths, nil)
		}
		lengths[fieldID] = &n
		m.addLength(fieldID, short, n)

		for _, t := range tokens {
			term := strings.ToLower(t)
			if term == "" {
				continue
			}
			byField := m.index[term]
			if byField == nil {
				byField = make(map[int]map[int]int)
				m.index[term] = byField
			}
			if byField[fieldID] == nil {
				byField[fieldID] = make(map[int]int)
			}
			byField[fieldID][short]++
		}
	}
	m.fieldLength = append(m.fieldLength, lengths)
}

// addLength folds a document's field length into the field's running
// mean, count being the number of documents added before it, in the order
// of MiniSearch's float operations so that the result is the same double.
func (m *miniSearch) addLength(fieldID, count, length int) {
	for len(m.average) <= fieldID {
		m.average = append(m.average, nil)
	}
	var avg float64
	if m.average[fieldID] != nil {
		avg = *m.average[fieldID]
	}
	// The explicit conversion rounds the product, so that no platform
	// fuses the multiply and the add into one rounding.
	total := float64(avg*float64(count)) + float64(length)
	next := total / float64(count+1)
	m.average[fieldID] = &next
}

// A serializedIndex is the object MiniSearch.toJSON returns
// (serialization version 2) and MiniSearch.loadJSON reads.
type serializedIndex struct {
	DocumentCount        int                          `json:"documentCount"`
	NextID               int                          `json:"nextId"`
	DocumentIDs          map[string]string            `json:"documentIds"`
	FieldIDs             map[string]int               `json:"fieldIds"`
	FieldLength          map[string][]*int            `json:"fieldLength"`
	AverageFieldLength   []*float64                   `json:"averageFieldLength"`
	StoredFields         map[string]map[string]string `json:"storedFields"`
	DirtCount            int                          `json:"dirtCount"`
	Index                [][2]any                     `json:"index"`
	SerializationVersion int                          `json:"serializationVersion"`
}

// serialized is the index as MiniSearch.toJSON gives it, its terms in
// byte order: loadJSON reads them in any order.
func (m *miniSearch) serialized() serializedIndex {
	ids := make(map[string]string, len(m.ids))
	lengths := make(map[string][]*int, len(m.ids))
	stored := make(map[string]map[string]string, len(m.ids))
	for i, id := range m.ids {
		k := strconv.Itoa(i)
		ids[k] = id
		if m.fieldLength[i] != nil {
			lengths[k] = m.fieldLength[i]
		}
		if len(m.store) > 0 {
			stored[k] = m.stored[i]
		}
	}
	fieldIDs := make(map[string]int, len(m.fields))
	for i, f := range m.fields {
		fieldIDs[f] = i
	}
	terms := make([]string, 0, len(m.index))
	for t := range m.index {
		terms = append(terms, t)
	}
	slices.Sort(terms)
	index := make([][2]any, 0, len(terms))
	for _, t := range terms {
		e := make(map[string]map[string]int, len(m.index[t]))
		for fieldID, docs := range m.index[t] {
			freqs := make(map[string]int, len(docs))
			for short, n := range docs {
				freqs[strconv.Itoa(short)] = n
			}
			e[strconv.Itoa(fieldID)] = freqs
		}
		index = append(index, [2]any{t, e})
	}
	average := m.average
	if average == nil {
		average = []*float64{}
	}
	return serializedIndex{
		DocumentCount:        len(m.ids),
		NextID:               len(m.ids),
		DocumentIDs:          ids,
		FieldIDs:             fieldIDs,
		FieldLength:          lengths,
		AverageFieldLength:   average,
		StoredFields:         stored,
		Index:                index,
		SerializationVersion: 2,
	}
}
