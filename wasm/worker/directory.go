package main

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/jsonwire"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// An account's directory object is its Table service's own store: the
// tables (created, listed and deleted there, with the service's
// properties and the tables' stored access policies), and for each
// table, in its storage's keyed values:
//
//	t/<table in lower case>  <generation>/<table as created>
//	g/<generation>           the table's name: the generation is alive
//	p/<generation>/<pk>      a partition that holds data
//	d/<generation>           a deleted table whose partitions are not all dropped yet
//	gen                      the last generation given
//
// Entities never live here: a partition's are in its own object.

// genKey is a generation as the directory's keys hold it: fixed width,
// so that keys sort by generation.
func genKey(gen string) string {
	return strings.Repeat("0", max(0, 12-len(gen))) + gen
}

// maxList is the most partitions one opPartitions answer lists.
const maxList = 64

func (os *objects) serveDir(o *object, rec *recorder, r *http.Request) {
	switch r.Header.Get(hdrOp) {
	case opLookup:
		v, ok, err := o.st.get("t/" + strings.ToLower(r.Header.Get(hdrTable)))
		if err != nil {
			writeError(rec, r, err)
			return
		}
		if !ok {
			rec.WriteHeader(404)
			return
		}
		gen, name, _ := strings.Cut(v, "/")
		rec.hdr.Set(hdrGen, gen)
		rec.hdr.Set(hdrTable, name)
		rec.WriteHeader(204)
		return
	case opRegister, opCheck:
		gen := r.Header.Get(hdrGen)
		_, alive, err := o.st.get("g/" + genKey(gen))
		if err == nil && alive && r.Header.Get(hdrOp) == opRegister {
			pk, perr := api.ContinuationKey(r.Header.Get(hdrPK))
			if err = perr; err == nil {
				err = o.st.put("p/"+genKey(gen)+"/"+pk, "")
			}
		}
		switch {
		case err != nil:
			writeError(rec, r, err)
		case alive:
			rec.WriteHeader(204)
		default:
			rec.WriteHeader(404)
		}
		return
	case opSettings:
		var body []byte
		var err error
		if t := r.Header.Get(hdrTable); t != "" {
			body, err = o.set.ACLXML(r.Header.Get(hdrAccount), t)
		} else {
			body, err = o.set.PropertiesXML(r.Header.Get(hdrAccount))
		}
		if err != nil {
			writeError(rec, r, err)
			return
		}
		rec.WriteHeader(200)
		rec.Write(body)
		return
	case opPartitions:
		os.listPartitions(o, rec, r)
		return
	}
	tgt, _ := api.Locate(&api.Request{Method: r.Method, Target: targetOf(r), Host: r.Host})
	entityWrite := tgt.Kind == api.KindEntity || tgt.Kind == api.KindEntities || tgt.Kind == api.KindBatch
	if entityWrite && r.Method != "GET" && r.Method != "HEAD" && tgt.Param("comp") == "" {
		// The front sends an entity's request here only to be refused
		// (the table it names did not exist a moment ago); a table made
		// since must not take entities into the directory's store.
		name := r.Header.Get(hdrTable)
		if name == "" {
			name = tgt.Table
		}
		if _, ok, err := o.st.get("t/" + strings.ToLower(name)); err != nil || ok && name != "" {
			rec.hdr.Set(hdrRetry, "1")
			rec.WriteHeader(409)
			return
		}
	}
	var created string
	if tgt.Kind == api.KindTables && r.Method == "POST" {
		// Read before serving: apihttp takes the body.
		created, _ = jsonwire.DecodeTableName(peekBody(r))
	}
	o.h.ServeHTTP(rec, r)
	ok := rec.status == 201 || rec.status == 204
	var err error
	switch {
	case created != "" && ok:
		err = o.created(created)
	case tgt.Kind == api.KindTable && r.Method == "DELETE" && ok:
		err = o.deleted(tgt.Table)
	}
	if err != nil {
		// The table's store changed but the directory's record of it did
		// not; the output gate drops both only if the runtime fails.
		*rec = *newRecorder()
		writeError(rec, r, svcerr.With(svcerr.InternalError, err.Error()))
		return
	}
	if tgt.Kind == api.KindTable && r.Method == "DELETE" {
		os.dropPending(o)
	}
}

// peekBody reads r's body and leaves it to be read again.
func peekBody(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

// created records a new table's generation, in the same turn of the
// event loop as the store's own record of it: one transaction.
func (o *object) created(name string) error {
	if stored, ok := o.db.Store.TableExists(name); ok {
		name = stored
	}
	last, _, err := o.st.get("gen")
	if err != nil {
		return err
	}
	n, _ := strconv.ParseUint(last, 10, 64)
	gen := strconv.FormatUint(n+1, 10)
	if err := o.st.put("gen", gen); err != nil {
		return err
	}
	if err := o.st.put("g/"+genKey(gen), name); err != nil {
		return err
	}
	return o.st.put("t/"+strings.ToLower(name), gen+"/"+name)
}

// deleted forgets a deleted table's generation, so that its partitions
// refuse every request from now on, and marks its partitions for
// dropping.
func (o *object) deleted(name string) error {
	key := "t/" + strings.ToLower(name)
	v, ok, err := o.st.get(key)
	if err != nil || !ok {
		return err
	}
	gen, _, _ := strings.Cut(v, "/")
	if err := o.st.del(key); err != nil {
		return err
	}
	if err := o.st.del("g/" + genKey(gen)); err != nil {
		return err
	}
	return o.st.put("d/"+genKey(gen), gen)
}

// dropPending drops the partitions of deleted tables, a few at a time,
// and forgets each once it is dropped. What fails to drop (past the 50
// subrequests the free plan allows a request, say) is tried again after
// the next table is deleted; until then a deleted table's partitions
// are unreachable, since the directory refuses their generation, but
// not yet empty.
func (os *objects) dropPending(o *object) {
	dead, err := o.st.scan("d/", "", 16)
	if err != nil {
		return
	}
	for _, d := range dead {
		gen := d.v
		prefix := "p/" + genKey(gen) + "/"
		for {
			parts, err := o.st.scan(prefix, "", 64)
			if err != nil || len(parts) == 0 {
				if err == nil {
					o.st.del(d.k)
				}
				break
			}
			var wg sync.WaitGroup
			failed := make(chan struct{}, len(parts))
			// A request may hold 6 connections open at once.
			sem := make(chan struct{}, 6)
			for _, p := range parts {
				pk := strings.TrimPrefix(p.k, prefix)
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-sem }()
					ans, err := os.call(partName(o.account, gen, pk), internal(opDrop))
					if err != nil || ans.status != 204 {
						failed <- struct{}{}
						return
					}
					o.st.del(p.k)
				}()
			}
			wg.Wait()
			if len(failed) > 0 {
				return
			}
		}
	}
}

// listPartitions answers a query of the table as the table's own store
// does (its checks of the request, its errors, an empty page), adding
// the table's generation and the partitions it has, in key order, from
// the key hdrFrom names.
func (os *objects) listPartitions(o *object, rec *recorder, r *http.Request) {
	tgt, err := api.Locate(&api.Request{Method: r.Method, Target: targetOf(r), Host: r.Host})
	if err != nil || tgt.Kind != api.KindEntities {
		o.h.ServeHTTP(rec, r)
		return
	}
	o.h.ServeHTTP(rec, r)
	if rec.status != 200 {
		return
	}
	v, ok, err := o.st.get("t/" + strings.ToLower(tgt.Table))
	if err == nil && !ok {
		err = svcerr.New(svcerr.TableNotFound)
	}
	var from string
	if err == nil {
		from, err = api.ContinuationKey(r.Header.Get(hdrFrom))
	}
	limit, _ := strconv.Atoi(r.Header.Get(hdrLimit))
	limit = min(max(limit, 1), maxList)
	var parts []pair
	gen, name, _ := strings.Cut(v, "/")
	if err == nil {
		parts, err = o.st.scan("p/"+genKey(gen)+"/", from, limit+1)
	}
	if err != nil {
		*rec = *newRecorder()
		writeError(rec, r, err)
		return
	}
	if len(parts) > limit {
		parts = parts[:limit]
		rec.hdr.Set(hdrMore, "1")
	}
	toks := make([]string, len(parts))
	for i, p := range parts {
		toks[i] = api.ContinuationToken(strings.TrimPrefix(p.k, "p/"+genKey(gen)+"/"))
	}
	rec.hdr.Set(hdrParts, strings.Join(toks, ","))
	rec.hdr.Set(hdrGen, gen)
	rec.hdr.Set(hdrTable, name)
}
