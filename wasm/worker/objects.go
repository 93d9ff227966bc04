package main

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/apihttp"
	"github.com/tablelab/tablelab/engine/api/settings"
	"github.com/tablelab/tablelab/engine/durable"
	"github.com/tablelab/tablelab/engine/svcerr"
	"github.com/tablelab/tablelab/wasm/stores"
)

// The headers the front and the objects speak in. worker.mjs removes
// every X-Tablelab- header a client sends but the test hook, so only the
// Worker's own code sets these.
const (
	hdrObject   = "X-Tablelab-Object"     // the object's name (dirName, partName)
	hdrAccount  = "X-Tablelab-Account"    // the account whose settings are asked for
	hdrInstance = "X-Tablelab-Instance"   // which life of the object (worker.mjs)
	hdrOp       = "X-Tablelab-Op"         // an operation of the Worker's own
	hdrTable    = "X-Tablelab-Table"      // a table's name, as it was created
	hdrGen      = "X-Tablelab-Gen"        // a table's generation
	hdrPK       = "X-Tablelab-Partition"  // a PartitionKey, as a continuation token
	hdrWrite    = "X-Tablelab-Write"      // "1": the request may write its partition
	hdrFrom     = "X-Tablelab-From"       // the first PartitionKey to list, as a token
	hdrLimit    = "X-Tablelab-Limit"      // how many partitions to list
	hdrDropped  = "X-Tablelab-Dropped"    // answer: the partition's table is gone
	hdrParts    = "X-Tablelab-Partitions" // answer: the partitions listed, tokens joined by commas
	hdrMore     = "X-Tablelab-More"       // answer: more partitions follow those listed
	hdrRetry    = "X-Tablelab-Retry"      // answer: the table exists now, route the request again
)

// The operations of hdrOp.
const (
	opLookup     = "lookup"     // directory: the generation of the table hdrTable names
	opRegister   = "register"   // directory: a partition of generation hdrGen will hold data
	opCheck      = "check"      // directory: is generation hdrGen alive
	opPartitions = "partitions" // directory: answer the query as the table's own store, and list its partitions
	opSettings   = "settings"   // directory: the service properties, or hdrTable's ACL
	opDrop       = "drop"       // partition: the table is deleted, remove everything
)

// Object names. A table's generation is a number its account's
// directory gives each table it creates, so a table deleted and created
// again lives in new objects, whatever the old ones still hold.
func dirName(account string) string           { return "dir/" + account }
func partName(account, gen, pk string) string { return "part/" + account + "/" + gen + "/" + pk }

// caller sends a request to the object called name and returns its
// answer: a Durable Object's stub.fetch on Cloudflare, a function call in
// the tests.
type caller func(name string, r *http.Request) (*recorder, error)

// objects are the Durable Objects this Go runtime serves. One runtime
// serves every object of its isolate (an isolate holds many objects, and
// a runtime per object would spend its 128 MB on copies of the same
// heap), so each object is a value here, opened on its first request.
type objects struct {
	cfg  config
	call caller
	// idle is how long an object may go unused before its store is
	// closed; the next request opens it again from its storage.
	idle time.Duration

	mu        sync.Mutex
	open      map[string]*object
	lastSweep time.Time
}

func newObjects(cfg config, call caller) *objects {
	return &objects{cfg: cfg, call: call, idle: 2 * time.Minute, open: map[string]*object{}}
}

// object is one Durable Object's state in the runtime: its store, and
// for a partition, whether its directory knows it.
type object struct {
	name     string
	instance string
	kind     string // "dir", "part", "queue", "blob"
	st       storage

	mu       sync.Mutex
	inflight int
	used     time.Time
	db       *durable.DB // nil: closed, or a dropped partition
	extra    *durable.DB // a directory's settings
	srv      api.Service
	h        apihttp.Handler

	// Read from the name: the account, and a partition's generation
	// and PartitionKey.
	account, gen, pk string
	// A directory's settings.
	set *settings.Store
	// A partition's table, as created, and whether its directory has
	// it on the list of the table's partitions, or has dropped it.
	table               string
	registered, dropped bool
}

// serve answers r, sent to the object called name in its life instance,
// whose storage is st.
func (os *objects) serve(rec *recorder, r *http.Request, name, instance string, st storage) {
	o, err := os.get(name, instance, st, r)
	if err != nil {
		writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the object "+name+" did not open: "+err.Error()))
		return
	}
	defer os.done(o)
	switch o.kind {
	case "dir":
		os.serveDir(o, rec, r)
	case "part":
		os.servePart(o, rec, r)
	default:
		o.h.ServeHTTP(rec, r)
	}
}

// get returns the object called name, open, counting one more request
// in it. An object whose life changed (worker.mjs gives each life of a
// Durable Object its own instance) may have been written to by another
// isolate since: it is opened again from its storage.
func (os *objects) get(name, instance string, st storage, r *http.Request) (*object, error) {
	os.sweep()
	os.mu.Lock()
	o := os.open[name]
	if o != nil && o.instance != instance {
		o.close()
		o = nil
	}
	if o == nil {
		o = &object{name: name, instance: instance, st: st}
		f := strings.SplitN(name, "/", 4)
		o.kind, o.account = f[0], f[1%len(f)]
		if len(f) == 4 {
			o.gen, o.pk = f[2], f[3]
		}
		os.open[name] = o
	}
	o.inflight++
	o.used = time.Now()
	os.mu.Unlock()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv != nil || o.dropped {
		return o, nil
	}
	if err := os.openObject(o, r); err != nil {
		os.done(o)
		return nil, err
	}
	return o, nil
}

func (os *objects) done(o *object) {
	os.mu.Lock()
	o.inflight--
	o.used = time.Now()
	os.mu.Unlock()
}

// sweep closes the objects unused for os.idle: the runtime does not hear
// of an object leaving its isolate, and their stores would stay in its
// memory for ever.
func (os *objects) sweep() {
	now := time.Now()
	os.mu.Lock()
	defer os.mu.Unlock()
	if now.Sub(os.lastSweep) < os.idle/2 {
		return
	}
	os.lastSweep = now
	for name, o := range os.open {
		if o.inflight == 0 && now.Sub(o.used) > os.idle {
			o.close()
			delete(os.open, name)
		}
	}
}

func (o *object) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.db != nil {
		o.db.Close()
	}
	if o.extra != nil {
		o.extra.Close()
	}
	o.db, o.extra, o.srv = nil, nil, nil
}

// openObject opens o's stores from its storage.
func (os *objects) openObject(o *object, r *http.Request) error {
	switch o.kind {
	case "part":
		o.table = r.Header.Get(hdrTable)
		var err error
		if _, o.dropped, err = o.st.get("dropped"); err != nil || o.dropped {
			return err
		}
		if _, o.registered, err = o.st.get("registered"); err != nil {
			return err
		}
	case "dir":
		m, err := o.st.medium("settings")
		if err != nil {
			return err
		}
		if o.extra, err = durable.Open(m, durable.Options{MinCompactBytes: compactBytes, CheckEvery: compactEvery}); err != nil {
			return err
		}
	}
	m, err := o.st.medium("")
	if err != nil {
		return err
	}
	svc := stores.Table
	switch o.kind {
	case "queue":
		svc = stores.Queue
	case "blob":
		svc = stores.Blob
	}
	db, err := durable.Open(m, durable.Options{OpenKeys: svc != stores.Table, MinCompactBytes: compactBytes, CheckEvery: compactEvery})
	if err != nil {
		return err
	}
	switch o.kind {
	case "dir":
		o.set = settings.New(o.extra.Store)
		o.srv = api.NewServer(db.Store, api.Options{Verifier: os.cfg.verifier(), Settings: o.set})
	case "part":
		o.srv = api.NewServer(db.Store, api.Options{Verifier: os.cfg.verifier(), Settings: &dirSettings{call: os.call, account: o.account}})
	default:
		if o.srv, err = core(os.cfg, svc, db.Store); err != nil {
			db.Close()
			return err
		}
	}
	o.db, o.h = db, apihttp.Handler{Server: o.srv}
	return nil
}

// An object's log is compacted into a snapshot once it passes
// compactBytes and has outgrown the snapshot; looking costs a timer, so
// it looks seldom.
const (
	compactBytes = 1 << 20
	compactEvery = 10 * time.Second
)

// writeError answers r with err in the Table service's format.
func writeError(rec *recorder, r *http.Request, err error) {
	srv := api.NewServer(nil, api.Options{})
	writeResponse(rec, srv.Error(&api.Request{Method: r.Method, Target: targetOf(r), Host: r.Host}, err))
}

func writeResponse(rec *recorder, resp *api.Response) {
	resp.Header.Each(func(name, value string) { rec.hdr[name] = []string{value} })
	rec.WriteHeader(resp.Status)
	rec.Write(resp.Body)
}

// targetOf is r's request target as the client escaped it, as apihttp
// reads it.
func targetOf(r *http.Request) string {
	if r.RequestURI != "" && r.RequestURI[0] == '/' {
		return r.RequestURI
	}
	t := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		t += "?" + r.URL.RawQuery
	}
	return t
}

// internal is a request of the Worker's own to the object called name.
func internal(op string, headers ...string) *http.Request {
	r, _ := http.NewRequest("POST", "http://tablelab.internal/", nil)
	r.Header.Set(hdrOp, op)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	return r
}

// servePart answers a request for one partition of a table.
func (os *objects) servePart(o *object, rec *recorder, r *http.Request) {
	if r.Header.Get(hdrOp) == opDrop {
		o.mu.Lock()
		err := o.drop()
		o.mu.Unlock()
		if err != nil {
			writeError(rec, r, svcerr.With(svcerr.InternalError, err.Error()))
			return
		}
		rec.WriteHeader(204)
		return
	}
	write := r.Header.Get(hdrWrite) == "1"
	o.mu.Lock()
	known := o.registered || o.dropped
	o.mu.Unlock()
	if !known {
		// The directory says whether the table is still this
		// generation, and learns of a partition about to hold data.
		op := opCheck
		if write {
			op = opRegister
		}
		ans, err := os.call(dirName(o.account), internal(op, hdrGen, o.gen, hdrPK, api.ContinuationToken(o.pk)))
		if err != nil {
			writeError(rec, r, svcerr.With(svcerr.InternalError, "tablelab: the table's directory did not answer: "+err.Error()))
			return
		}
		o.mu.Lock()
		switch {
		case ans.status == 404:
			err = o.drop()
		case ans.status != 204:
			err = errStatus(ans)
		case write && !o.registered && !o.dropped:
			if err = o.st.put("registered", "1"); err == nil {
				o.registered = true
			}
		}
		o.mu.Unlock()
		if err != nil {
			writeError(rec, r, svcerr.With(svcerr.InternalError, err.Error()))
			return
		}
	}
	o.mu.Lock()
	dropped, db := o.dropped, o.db
	o.mu.Unlock()
	if dropped || db == nil {
		writeError(rec, r, svcerr.New(svcerr.TableNotFound))
		rec.hdr.Set(hdrDropped, "1")
		return
	}
	if _, ok := db.Store.TableExists(o.table); !ok {
		if err := db.Store.CreateTable(o.table); err != nil && svcerr.From(err).Code != svcerr.TableAlreadyExists {
			writeError(rec, r, err)
			return
		}
	}
	o.h.ServeHTTP(rec, r)
}

// drop removes everything the partition holds and remembers that its
// table is gone. o.mu is held.
func (o *object) drop() error {
	if o.db != nil {
		o.db.Close()
	}
	o.db, o.srv = nil, nil
	o.dropped, o.registered = true, false
	if err := o.st.wipe(); err != nil {
		return err
	}
	return o.st.put("dropped", "1")
}

func errStatus(ans *recorder) error {
	return svcerr.With(svcerr.InternalError, "tablelab: the directory answered "+strconv.Itoa(ans.status)+": "+ans.body.String())
}
