package auth

import (
	"strings"

	"github.com/tablelab/tablelab/engine/svcerr"
)

// Permission is one kind of access a request needs.
type Permission uint8

// Entity permissions (a table SAS's r, a, u, d) and table permissions.
const (
	Read   Permission = iota + 1 // query and get entities
	Add                          // insert entities
	Update                       // update and merge entities
	Delete                       // delete entities
	ListTables
	CreateTable
	DeleteTable

	// The Blob and Queue services' permissions besides Read, Add, Update
	// and Delete (see CheckBlob and CheckQueue for which operation needs
	// which).
	Write   // write a blob's content, properties or metadata, or a container's or queue's metadata
	Create  // create a container, a queue, or a blob that does not exist yet
	List    // list containers, blobs or queues
	Process // get and delete queue messages
)

// Level is the kind of resource an operation acts on, as an account
// SAS's signed resource types (srt) name them.
type Level uint8

// The levels. A queue counts as a container, its messages as objects.
const (
	ServiceLevel   Level = iota + 1 // srt s: the account's service (list containers or queues)
	ContainerLevel                  // srt c: a container or a queue
	ObjectLevel                     // srt o: a blob or a queue's messages
)

// letter is the level's letter in srt.
func (l Level) letter() string {
	switch l {
	case ServiceLevel:
		return "s"
	case ContainerLevel:
		return "c"
	case ObjectLevel:
		return "o"
	}
	return "?"
}

// letter is the service's letter in an account SAS's ss.
func (s Service) letter() string {
	switch s {
	case Blob:
		return "b"
	case Queue:
		return "q"
	}
	return "t"
}

// String returns the service's name: "Table", "Blob" or "Queue".
func (s Service) String() string {
	switch s {
	case Blob:
		return "Blob"
	case Queue:
		return "Queue"
	}
	return "Table"
}

// Key is a PartitionKey and RowKey pair, a bound of a SAS key range.
type Key struct {
	PartitionKey, RowKey string
}

// Grant is what an authenticated request may do. The zero Grant may do
// nothing.
type Grant struct {
	full          bool // an account key, a bearer token, or anonymous access allowed
	bearer        bool // an OAuth bearer token: full, but no access to stored access policies
	service       Service
	account       bool // an account SAS
	resourceTypes string
	perms         string
	table         string // a service SAS's table, lower-cased
	ranged        bool
	lo, hi        Key
	// A Blob service SAS's resource: sr is c (the container) or b, bs,
	// bv (one blob); a Queue service SAS's queue is its container.
	sr, container, blob string
	// overrides are a blob SAS's response headers, name and value.
	overrides [][2]string
}

// ResponseHeaders returns the response headers a blob or container SAS
// sets on a download (rscc, rscd, rsce, rscl, rsct as Cache-Control,
// Content-Disposition, Content-Encoding, Content-Language, Content-Type),
// in that order, only those the token carries; the service answers a
// Get Blob with them in place of the blob's own. The requests presenting
// one token share the slice, so it must not be modified.
func (g Grant) ResponseHeaders() [][2]string { return g.overrides }

// letters are the sp letters that allow a permission: a table SAS uses
// r, a, u, d; an account SAS also w (write), l (list), c (create).
func (p Permission) letters(account bool) string {
	switch p {
	case Read:
		return "r"
	case Add:
		if account {
			return "aw"
		}
		return "a"
	case Update:
		if account {
			return "uw"
		}
		return "u"
	case Delete, DeleteTable:
		return "d"
	case ListTables:
		return "lr"
	case CreateTable:
		return "cw"
	}
	return ""
}

func (p Permission) tableLevel() bool {
	return p == ListTables || p == CreateTable || p == DeleteTable
}

// CheckTable reports whether the request may perform a table-level
// operation (list, create or delete tables), or query the entities of a
// table (Read); a query under a SAS with a key range sees only the rows in
// that range (see KeyRange).
func (g Grant) CheckTable(p Permission, table string) error {
	if g.full {
		return nil
	}
	if g.service != Table {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	if g.account {
		rt := "o"
		if p.tableLevel() {
			rt = "c"
		}
		if !strings.Contains(g.resourceTypes, rt) {
			return svcerr.New(svcerr.AuthorizationResourceTypeMismatch)
		}
		return g.permit(p)
	}
	// A service SAS covers the entities of its own table only.
	if p.tableLevel() || !strings.EqualFold(table, g.table) {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	return g.permit(p)
}

// CheckOwner reports whether the request comes from the account's owner,
// signed with its key: the only caller the service lets read or set the
// stored access policies of a table, queue or container. A policy lets
// its holder mint SAS tokens, and Azure's data roles grant no action on
// policies, so a bearer token is refused; the service answers it 404
// ResourceNotFound, as for an operation that does not exist under OAuth.
func (g Grant) CheckOwner() error {
	if g.bearer {
		return svcerr.New(svcerr.ResourceNotFound)
	}
	if g.full {
		return nil
	}
	return svcerr.New(svcerr.AuthorizationFailure)
}

// CheckService reports whether the request may read (write false) or set
// the Table service's properties: the account's key does, an account
// SAS with the service resource type and r or w does, a table SAS never.
func (g Grant) CheckService(write bool) error {
	if g.full {
		return nil
	}
	if g.service != Table || !g.account {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	letters := "r"
	if write {
		letters = "w"
	}
	return g.checkAccount(ServiceLevel, letters)
}

// Check reports whether the request may perform an entity operation on
// the entity with the given keys. Outside a SAS's key range a write is
// refused (403), while a read finds nothing: 404 ResourceNotFound, the
// answer to a missing entity, as the range filters reads the way it
// filters a query's rows (Microsoft's own cloud tests of table SAS,
// azure-storage-net's TableSasUnitTests, expect 404 for a point query
// there and 403 for the other operations).
func (g Grant) Check(p Permission, table, pk, rk string) error {
	if err := g.CheckTable(p, table); err != nil {
		return err
	}
	if g.ranged && !g.contains(pk, rk) {
		if p == Read {
			return svcerr.New(svcerr.ResourceNotFound)
		}
		return svcerr.With(svcerr.AuthorizationFailure, svcerr.AuthorizationFailure.Message()+" The entity is outside the key range of the shared access signature.")
	}
	return nil
}

func (g Grant) permit(p Permission) error {
	if !strings.ContainsAny(g.perms, p.letters(g.account)) {
		return svcerr.New(svcerr.AuthorizationPermissionMismatch)
	}
	return nil
}

// contains orders keys by PartitionKey, then RowKey: the range runs from
// (spk, srk) to (epk, erk), both ends included; an empty bound leaves that
// end open, and an empty row key leaves the row open within its
// partition.
func (g Grant) contains(pk, rk string) bool {
	if g.lo.PartitionKey != "" {
		if pk < g.lo.PartitionKey || pk == g.lo.PartitionKey && g.lo.RowKey != "" && rk < g.lo.RowKey {
			return false
		}
	}
	if g.hi.PartitionKey != "" {
		if pk > g.hi.PartitionKey || pk == g.hi.PartitionKey && g.hi.RowKey != "" && rk > g.hi.RowKey {
			return false
		}
	}
	return true
}

// KeyRange returns the key range a SAS confines the request to, if any.
func (g Grant) KeyRange() (lo, hi Key, ok bool) {
	return g.lo, g.hi, g.ranged
}

// CheckBlob reports whether the request may perform an operation of the
// Blob service that needs permission p on a resource at level l: the
// account (ServiceLevel), container (ContainerLevel) or the blob in it
// (ObjectLevel). The services ask, per operation:
//
//	list containers                      List, ServiceLevel
//	create container                     Create, ContainerLevel
//	delete container                     Delete, ContainerLevel
//	container properties, metadata       Read, ContainerLevel
//	set container metadata               Write, ContainerLevel
//	list blobs                           List, ContainerLevel
//	put blob, put block, put block list  Write, ObjectLevel (Create when the blob does not exist yet)
//	get blob, properties, block list     Read, ObjectLevel
//	set blob metadata, properties        Write, ObjectLevel
//	delete blob                          Delete, ObjectLevel
//
// A service SAS reaches its own container's blobs (sr=c; list blobs
// too) or its one blob (sr=b), never container or account operations;
// an account SAS needs ss=b, the level in srt and the permission in sp.
// A refusal is AuthorizationFailure, AuthorizationResourceTypeMismatch
// or AuthorizationPermissionMismatch, as the service answers.
func (g Grant) CheckBlob(p Permission, l Level, container, blob string) error {
	if g.full {
		return nil
	}
	if g.service != Blob {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	if g.account {
		return g.checkAccount(l, blobAccountLetters(p, l))
	}
	if container != g.container {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	switch {
	case l == ObjectLevel && (g.sr == "c" || blob == g.blob):
	case l == ContainerLevel && p == List && g.sr == "c":
	default:
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	return g.permitLetters(blobServiceLetters(p))
}

// CheckQueue reports whether the request may perform an operation of
// the Queue service that needs permission p on a resource at level l:
// the account (ServiceLevel), a queue (ContainerLevel) or its messages
// (ObjectLevel). The services ask, per operation:
//
//	list queues              List, ServiceLevel
//	create queue             Create, ContainerLevel
//	delete queue             Delete, ContainerLevel
//	queue metadata get, set  Read, Write, ContainerLevel
//	put message              Add, ObjectLevel
//	peek messages            Read, ObjectLevel
//	get messages, delete     Process, ObjectLevel
//	update message           Update, ObjectLevel
//	clear messages           Delete, ObjectLevel
//
// A service SAS (sp from raup) reaches its own queue's messages and its
// metadata (r), nothing else; an account SAS needs ss=q, the level in
// srt and the permission in sp.
func (g Grant) CheckQueue(p Permission, l Level, queue string) error {
	if g.full {
		return nil
	}
	if g.service != Queue {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	if g.account {
		return g.checkAccount(l, queueAccountLetters(p, l))
	}
	if queue != g.container {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	letters := ""
	switch {
	case l == ObjectLevel:
		letters = queueServiceLetters(p)
	case l == ContainerLevel && p == Read:
		letters = "r"
	}
	if letters == "" {
		return svcerr.New(svcerr.AuthorizationFailure)
	}
	return g.permitLetters(letters)
}

// checkAccount checks an account SAS's resource types, then its
// permissions against the sp letters that allow the operation ("" when
// none can).
func (g Grant) checkAccount(l Level, letters string) error {
	if !strings.Contains(g.resourceTypes, l.letter()) {
		return svcerr.New(svcerr.AuthorizationResourceTypeMismatch)
	}
	return g.permitLetters(letters)
}

func (g Grant) permitLetters(letters string) error {
	if letters == "" || !strings.ContainsAny(g.perms, letters) {
		return svcerr.New(svcerr.AuthorizationPermissionMismatch)
	}
	return nil
}

// blobServiceLetters are the sp letters of a container or blob SAS that
// allow p on a blob (or, for List, on the container's listing).
func blobServiceLetters(p Permission) string {
	switch p {
	case Read:
		return "r"
	case Add:
		return "a"
	case Write:
		return "w"
	case Create:
		return "cw"
	case Delete:
		return "d"
	case List:
		return "l"
	}
	return ""
}

// blobAccountLetters are the sp letters of an account SAS that allow p
// at level l of the Blob service.
func blobAccountLetters(p Permission, l Level) string {
	switch p {
	case Read:
		return "r"
	case Write:
		return "w"
	case Create:
		return "cw"
	case Delete:
		if l != ServiceLevel {
			return "d"
		}
	case List:
		if l != ObjectLevel {
			return "l"
		}
	case Add:
		if l == ObjectLevel {
			return "a"
		}
	}
	return ""
}

// queueServiceLetters are the sp letters of a queue SAS that allow p on
// its messages.
func queueServiceLetters(p Permission) string {
	switch p {
	case Read:
		return "r"
	case Add:
		return "a"
	case Update:
		return "u"
	case Process:
		return "p"
	}
	return ""
}

// queueAccountLetters are the sp letters of an account SAS that allow p
// at level l of the Queue service.
func queueAccountLetters(p Permission, l Level) string {
	switch p {
	case Read:
		return "r"
	case Write:
		return "w"
	case Create:
		if l == ContainerLevel {
			return "cw"
		}
	case Delete:
		if l != ServiceLevel {
			return "d"
		}
	case List:
		if l == ServiceLevel {
			return "l"
		}
	case Add:
		if l == ObjectLevel {
			return "a"
		}
	case Update:
		if l == ObjectLevel {
			return "u"
		}
	case Process:
		if l == ObjectLevel {
			return "p"
		}
	}
	return ""
}
