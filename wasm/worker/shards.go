package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/batchwire"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/odata"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// shards is the Table service of the Durable Object mode as the front
// sees it: it reads where each request goes, as the server's router
// reads it, and sends it to the object that holds what it addresses.
//
//   - An entity's request, an insert, a batch (one partition by the
//     rules) and a query naming one PartitionKey go to that partition's
//     object, which checks the request and answers it whole.
//   - The tables, the service's properties, and what cannot be routed go
//     to the account's directory object.
//   - A query naming no single PartitionKey goes to the directory first,
//     which checks it and lists the table's partitions in key order, and
//     then to each partition in turn, its page merged into one.
type shards struct {
	call caller

	mu   sync.Mutex
	gens map[string]tableGen // by account/table in lower case
}

// tableGen is a table as its directory made it.
type tableGen struct{ gen, name string }

// maxFan is how many partitions one page of a cross-partition query
// visits before it answers with a continuation: each visit is a
// subrequest, and the free plan allows 50 per request.
const maxFan = 32

// pageMax is the service's largest page.
const pageMax = 1000

func newShards(call caller) *shards { return &shards{call: call, gens: map[string]tableGen{}} }

func (s *shards) serve(rec *recorder, r *http.Request) {
	var body []byte
	if r.Body != nil {
		var err error
		if body, err = io.ReadAll(r.Body); err != nil {
			writeError(rec, r, svcerr.With(svcerr.InvalidInput, "The body could not be read: "+err.Error()))
			return
		}
	}
	s.route(rec, r, body, 0)
}

// route sends r to its object; tries counts the times the table's
// generation was found out of date.
func (s *shards) route(rec *recorder, r *http.Request, body []byte, tries int) {
	areq := &api.Request{Method: r.Method, Target: targetOf(r), Host: r.Host, Scheme: schemeOf(r)}
	account, _, _, err := api.Address(areq)
	if err != nil {
		writeError(rec, r, err)
		return
	}
	account, _ = auth.Primary(account)
	account = strings.ToLower(account)
	t, err := api.Locate(areq)
	if err != nil || r.Method == "OPTIONS" {
		s.toDir(rec, r, body, account, "", tries)
		return
	}
	reading := r.Method == "GET" || r.Method == "HEAD"
	if t.Param("comp") != "" {
		// A table's access policies (comp=acl) are the directory's.
		s.toDir(rec, r, body, account, "", tries)
		return
	}
	switch t.Kind {
	case api.KindEntity:
		s.toPartition(rec, r, body, account, t.Table, t.PartitionKey, !reading, tries)
		return
	case api.KindEntities:
		switch {
		case r.Method == "POST":
			// A body without a PartitionKey fails in any partition's
			// server as it would in the table's; the empty key's
			// partition answers it, not registered by a read.
			e, k, err := jsonwire.DecodeEntity(body)
			ok := err == nil && k.PartitionKey
			pk := ""
			if ok {
				pk = e.PartitionKey
			}
			s.toPartition(rec, r, body, account, t.Table, pk, ok, tries)
			return
		case reading:
			plan := odata.Plan{Class: odata.TableScan}
			if f := t.Param("$filter"); f != "" {
				pf, err := odata.Parse(f)
				if err != nil {
					break // the directory answers with the parser's error
				}
				plan = pf.Plan()
			}
			if plan.PartitionKey.Point() {
				s.toPartition(rec, r, body, account, t.Table, plan.PartitionKey.Lo, false, tries)
				return
			}
			s.fanOut(rec, r, account, t, plan, tries)
			return
		}
		s.toDir(rec, r, body, account, t.Table, tries)
		return
	case api.KindBatch:
		if table, pk, ok := batchPartition(r, body); ok {
			s.toPartition(rec, r, body, account, table, pk, true, tries)
			return
		}
	}
	s.toDir(rec, r, body, account, "", tries)
}

// batchPartition reads the table and PartitionKey of a batch's first
// operation. Its server refuses a batch whose operations name other
// ones; one it cannot read here fails there too, before any write.
func batchPartition(r *http.Request, body []byte) (table, pk string, ok bool) {
	b, err := batchwire.Parse(r.Header.Get("Content-Type"), body)
	if err != nil || len(b.Requests) == 0 {
		return "", "", false
	}
	op := b.Requests[0]
	t, err := api.LocateIn(r.Host, schemeOf(r), op.URL)
	switch {
	case err != nil:
		return "", "", false
	case t.Kind == api.KindEntity:
		return t.Table, t.PartitionKey, true
	case t.Kind == api.KindEntities && op.Method == "POST":
		if e, k, err := jsonwire.DecodeEntity(op.Body); err == nil && k.PartitionKey {
			return t.Table, e.PartitionKey, true
		}
	}
	return "", "", false
}

// toDir sends r to the account's directory. For an entity's request
// that means the table did not exist: the directory answers as the
// service does (authentication first, then TableNotFound), or says that
// the table exists by now.
func (s *shards) toDir(rec *recorder, r *http.Request, body []byte, account, table string, tries int) {
	ans, err := s.call(dirName(account), forward(r, "", body, hdrTable, table))
	if err != nil {
		writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the account's directory did not answer: "+err.Error()))
		return
	}
	if ans.hdr.Get(hdrRetry) != "" && tries < 2 {
		s.route(rec, r, body, tries+1)
		return
	}
	answer(rec, ans)
}

// toPartition sends r to the object of the partition pk of table.
func (s *shards) toPartition(rec *recorder, r *http.Request, body []byte, account, table, pk string, write bool, tries int) {
	g, ok, err := s.lookup(account, table)
	if err != nil {
		writeError(rec, r, err)
		return
	}
	if !ok {
		s.toDir(rec, r, body, account, table, tries)
		return
	}
	w := "0"
	if write {
		w = "1"
	}
	ans, err := s.call(partName(account, g.gen, pk), forward(r, "", body, hdrTable, g.name, hdrWrite, w))
	if err != nil {
		writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the partition's object did not answer: "+err.Error()))
		return
	}
	if ans.hdr.Get(hdrDropped) != "" {
		// The table was deleted, and perhaps made again, since this
		// isolate learnt its generation.
		s.forget(account, table)
		if tries < 2 {
			s.route(rec, r, body, tries+1)
		} else {
			s.toDir(rec, r, body, account, table, tries)
		}
		return
	}
	answer(rec, ans)
}

// lookup returns the generation of account's table, from what this
// isolate has learnt or from the directory. A generation never changes
// meaning, so a remembered one can only be out of date, which its
// partitions say (hdrDropped).
func (s *shards) lookup(account, table string) (tableGen, bool, error) {
	key := account + "/" + strings.ToLower(table)
	s.mu.Lock()
	g, ok := s.gens[key]
	s.mu.Unlock()
	if ok {
		return g, true, nil
	}
	ans, err := s.call(dirName(account), internal(opLookup, hdrTable, table))
	if err != nil {
		return g, false, svcerr.With(svcerr.InternalError, "tablelab: the account's directory did not answer: "+err.Error())
	}
	switch ans.status {
	case 404:
		return g, false, nil
	case 204:
	default:
		return g, false, errStatus(ans)
	}
	g = tableGen{gen: ans.hdr.Get(hdrGen), name: ans.hdr.Get(hdrTable)}
	s.mu.Lock()
	if len(s.gens) >= 10000 {
		clear(s.gens) // a bound, not a policy: lookups are cheap
	}
	s.gens[key] = g
	s.mu.Unlock()
	return g, true, nil
}

func (s *shards) forget(account, table string) {
	s.mu.Lock()
	delete(s.gens, account+"/"+strings.ToLower(table))
	s.mu.Unlock()
}

// fanOut answers a query that names no single PartitionKey: its
// partitions in key order, each queried for what the page still lacks,
// the pages merged, the plans' examined counts summed, and a
// continuation where the page stopped: inside a partition (that
// partition's own), or at the next partition.
func (s *shards) fanOut(rec *recorder, r *http.Request, account string, t api.Target, plan odata.Plan, tries int) {
	top, zero := pageMax, false
	if v := t.Param("$top"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 && n < pageMax {
			top, zero = n, n == 0
		}
	}
	var from, resumePK, resumeRK string
	var resume bool
	if tok := t.Param("NextPartitionKey"); tok != "" {
		resumePK, _ = api.ContinuationKey(tok)
		resumeRK, _ = api.ContinuationKey(t.Param("NextRowKey"))
		resume = true
	}
	pkRange := plan.PartitionKey
	if pkRange.HasLo {
		from = pkRange.Lo
	}
	if resume && resumePK > from {
		from = resumePK
	}
	// The directory checks the request as the table's own store would,
	// answers its empty page, and lists the partitions from there.
	dir, err := s.call(dirName(account), forward(r, "", nil, hdrOp, opPartitions,
		hdrFrom, api.ContinuationToken(from), hdrLimit, strconv.Itoa(maxFan+1)))
	if err != nil {
		writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the account's directory did not answer: "+err.Error()))
		return
	}
	if dir.status != 200 {
		answer(rec, dir)
		return
	}
	var parts []string
	if list := dir.hdr.Get(hdrParts); list != "" {
		for _, tok := range strings.Split(list, ",") {
			pk, _ := api.ContinuationKey(tok)
			parts = append(parts, pk)
		}
	}
	gen, name := dir.hdr.Get(hdrGen), dir.hdr.Get(hdrTable)
	var (
		items              [][]byte
		returned, examined int
		next               *[2]string
		visited            int
	)
	beyond := func(pk string) bool {
		return pkRange.HasHi && (pk > pkRange.Hi || pk == pkRange.Hi && !pkRange.HiInclusive)
	}
	full := func() bool { return !zero && returned >= top }
	last := ""
parts:
	for i, pk := range parts {
		last = pk
		if beyond(pk) || pkRange.Empty {
			break
		}
		if !pkRange.Contains(pk) {
			continue
		}
		if visited == maxFan {
			next = &[2]string{pk, ""}
			break
		}
		visited++
		var npk, nrk string
		if resume && pk == resumePK && resumeRK != "" {
			npk, nrk = resumePK, resumeRK
		}
		for {
			n := top - returned
			ans, err := s.call(partName(account, gen, pk), forward(r, pageQuery(r, n, npk, nrk), nil, hdrTable, name, hdrWrite, "0"))
			if err != nil {
				writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: a partition's object did not answer: "+err.Error()))
				return
			}
			if ans.hdr.Get(hdrDropped) != "" {
				// Deleted while the query ran.
				s.forget(account, t.Table)
				s.toDir(rec, r, nil, account, t.Table, tries)
				return
			}
			if ans.status != 200 {
				answer(rec, ans)
				return
			}
			ex, _ := strconv.Atoi(ans.hdr.Get("X-Tablelab-Examined"))
			got, _ := strconv.Atoi(ans.hdr.Get("X-Tablelab-Returned"))
			examined += ex
			returned += got
			if v := pageItems(ans.body.Bytes()); len(v) > 0 {
				items = append(items, v)
			}
			cpk := ans.hdr.Get("X-Ms-Continuation-Nextpartitionkey")
			if cpk == "" {
				break
			}
			ck, _ := api.ContinuationKey(cpk)
			crk, _ := api.ContinuationKey(ans.hdr.Get("X-Ms-Continuation-Nextrowkey"))
			if zero || full() {
				next = &[2]string{ck, crk}
				break parts
			}
			npk, nrk = ck, crk
		}
		if full() {
			if i+1 < len(parts) && !beyond(parts[i+1]) {
				next = &[2]string{parts[i+1], ""}
			} else if i+1 == len(parts) && dir.hdr.Get(hdrMore) != "" {
				next = &[2]string{pk + "\x00", ""}
			}
			break
		}
	}
	if next == nil && !full() && dir.hdr.Get(hdrMore) != "" && last != "" && !beyond(last) && visited < maxFan {
		// Every partition listed was out of the range or visited, and
		// the directory has more: resume after the last one listed.
		next = &[2]string{last + "\x00", ""}
	}
	strip(dir)
	for k, v := range dir.hdr {
		rec.hdr[k] = v
	}
	rec.hdr.Del("X-Ms-Continuation-Nextpartitionkey")
	rec.hdr.Del("X-Ms-Continuation-Nextrowkey")
	if next != nil {
		rec.hdr.Set("X-Ms-Continuation-Nextpartitionkey", api.ContinuationToken(next[0]))
		rec.hdr.Set("X-Ms-Continuation-Nextrowkey", api.ContinuationToken(next[1]))
	}
	rec.hdr.Set("X-Tablelab-Plan", odata.TableScan.String())
	rec.hdr.Set("X-Tablelab-Examined", strconv.Itoa(examined))
	rec.hdr.Set("X-Tablelab-Returned", strconv.Itoa(returned))
	rec.WriteHeader(200)
	rec.Write(mergePage(dir.body.Bytes(), items))
}

// pageQuery is r's query string with $top set to top and the
// continuation set to npk and nrk (none when npk is empty).
func pageQuery(r *http.Request, top int, npk, nrk string) string {
	_, raw, _ := strings.Cut(targetOf(r), "?")
	var out []string
	for _, p := range strings.Split(raw, "&") {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); p == "" || err == nil && (n == "$top" || n == "NextPartitionKey" || n == "NextRowKey") {
			continue
		}
		out = append(out, p)
	}
	out = append(out, "$top="+strconv.Itoa(top))
	if npk != "" {
		out = append(out, "NextPartitionKey="+url.QueryEscape(api.ContinuationToken(npk)), "NextRowKey="+url.QueryEscape(api.ContinuationToken(nrk)))
	}
	return strings.Join(out, "&")
}

// valueStart opens the array of a page of entities (jsonwire's
// AppendEntities), which ends the page with "]}".
var valueStart = []byte(`"value":[`)

// pageItems returns the entities of a page as written, without the
// brackets around them.
func pageItems(page []byte) []byte {
	i := bytes.Index(page, valueStart)
	if i < 0 || !bytes.HasSuffix(page, []byte("]}")) {
		return nil
	}
	return page[i+len(valueStart) : len(page)-2]
}

// mergePage writes the entities of items into the page empty.
func mergePage(empty []byte, items [][]byte) []byte {
	i := bytes.Index(empty, valueStart)
	if i < 0 {
		return empty
	}
	out := append([]byte(nil), empty[:i+len(valueStart)]...)
	out = append(out, bytes.Join(items, []byte(","))...)
	return append(out, "]}"...)
}

// forward is r sent on to an object, with its query replaced by query
// when that is not empty, its body, and the headers named in pairs (one
// with an empty value is left out).
func forward(r *http.Request, query string, body []byte, pairs ...string) *http.Request {
	target := targetOf(r)
	if query != "" {
		path, _, _ := strings.Cut(target, "?")
		target = path + "?" + query
	}
	out, _ := http.NewRequest(r.Method, schemeOf(r)+"://"+r.Host+target, bytes.NewReader(body))
	out.RequestURI = target
	out.Host = r.Host
	for k, v := range r.Header {
		out.Header[k] = v
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			out.Header.Set(pairs[i], pairs[i+1])
		}
	}
	if len(body) == 0 {
		out.Body = http.NoBody
	}
	return out
}

func schemeOf(r *http.Request) string {
	if r.URL != nil && r.URL.Scheme != "" {
		return r.URL.Scheme
	}
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// answer copies an object's answer into rec, without the headers the
// objects speak to the front in.
func answer(rec *recorder, ans *recorder) {
	strip(ans)
	for k, v := range ans.hdr {
		rec.hdr[k] = v
	}
	rec.WriteHeader(ans.status)
	rec.Write(ans.body.Bytes())
}

func strip(ans *recorder) {
	for _, h := range []string{hdrDropped, hdrParts, hdrMore, hdrRetry, hdrGen, hdrTable} {
		ans.hdr.Del(h)
	}
}
