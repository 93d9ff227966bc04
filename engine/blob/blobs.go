package blob

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Properties are the content headers a blob keeps and returns.
type Properties struct {
	ContentType        string
	ContentEncoding    string
	ContentLanguage    string
	ContentDisposition string
	CacheControl       string
	// ContentMD5 is the MD5 of the content as the service keeps it: the
	// one it computed for a Put Blob, or the one a client set. Nil when
	// none was kept.
	ContentMD5 []byte
}

// Blob is a committed block blob's properties and metadata.
type Blob struct {
	Name         string
	Size         int64
	ETag         string
	LastModified time.Time
	Created      time.Time
	Properties
	Metadata []Pair
	// Blocks is the number of committed blocks (zero for a blob put in
	// one request).
	Blocks int

	gen   string
	segs  []segment
	idLen int // the length of the committed block ids, 0 without any
	// list holds the properties that keep the block list (inline parts
	// or an external list's id), carried over by a write that changes
	// only properties or metadata.
	list []engine.Property
}

// The names of a blob entity's properties.
const (
	pSize    = "Size"
	pCreated = "Created"
	pType    = "CT"
	pEnc     = "CE"
	pLang    = "CL"
	pDisp    = "CD"
	pCache   = "CC"
	pMD5     = "MD5"
	pMeta    = "Meta"
	pIDLen   = "IDLen"
	pBlocks  = "Blocks"
	pListID  = "LID"
	pPages   = "LN"
)

// maxInlineList is the longest encoded block list kept in the blob's own
// entity; a longer one goes to pages of its own in the same partition.
const maxInlineList = 8 * engine.MaxBinaryLen

// ValidateBlobName checks a blob name: 1 to 1,024 characters of UTF-8.
func ValidateBlobName(name string) error {
	if name == "" || !utf8.ValidString(name) {
		return svcerr.New(svcerr.InvalidResourceName)
	}
	if len(name) > MaxNameLen && utf8.RuneCountInString(name) > MaxNameLen {
		return svcerr.With(svcerr.InvalidResourceName, "The specified resource name length is not within the permissible limits.")
	}
	return nil
}

// blobOf reads a blob entity; with segs it also reads the block list.
func (s *Service) blobOf(gen string, e *engine.Entity, segs bool) (*Blob, error) {
	b := &Blob{
		Name:         strings.TrimPrefix(e.RowKey, "b/"),
		Size:         propInt(e, pSize),
		ETag:         etagOf(e.Timestamp),
		LastModified: edm.TimeOf(e.Timestamp),
		Created:      edm.TimeOf(propInt(e, pCreated)),
		Properties: Properties{
			ContentType:        propStr(e, pType),
			ContentEncoding:    propStr(e, pEnc),
			ContentLanguage:    propStr(e, pLang),
			ContentDisposition: propStr(e, pDisp),
			CacheControl:       propStr(e, pCache),
		},
		Blocks: int(propInt(e, pBlocks)),
		gen:    gen,
		idLen:  int(propInt(e, pIDLen)),
	}
	if v, ok := prop(e, pMD5); ok {
		b.ContentMD5 = v.Bytes()
	}
	if v, ok := prop(e, pMeta); ok {
		b.Metadata = decodeMeta(v.Bytes())
	}
	for _, p := range e.Properties {
		if p.Name == pListID || p.Name == pPages || len(p.Name) == 3 && p.Name[0] == 'L' && p.Name[1] <= '9' {
			b.list = append(b.list, p)
		}
	}
	if !segs {
		return b, nil
	}
	var err error
	b.segs, err = s.readList(gen, e)
	return b, err
}

// readList reads the block list of a blob entity (or of a garbage record,
// which keeps the list it replaced the same way).
func (s *Service) readList(gen string, e *engine.Entity) ([]segment, error) {
	enc := unpackParts(nil, e, 'L')
	if id := propStr(e, pListID); id != "" {
		err := s.scan(blobsTable, gen, "l/"+id+"/", "", func(p *engine.Entity) (bool, error) {
			enc = unpackParts(enc, p, 'L')
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return decodeSegments(enc)
}

// entity builds the blob's entity.
func (b *Blob) entity() *engine.Entity {
	e := &engine.Entity{PartitionKey: b.gen, RowKey: "b/" + b.Name}
	add := func(name string, v edm.Value) {
		e.Properties = append(e.Properties, engine.Property{Name: name, Value: v})
	}
	add(pSize, edm.Int64Value(b.Size))
	add(pCreated, edm.Int64Value(edm.TicksOf(b.Created)))
	add(pBlocks, edm.Int64Value(int64(b.Blocks)))
	add(pIDLen, edm.Int64Value(int64(b.idLen)))
	for _, p := range [...]struct{ name, v string }{
		{pType, b.ContentType}, {pEnc, b.ContentEncoding}, {pLang, b.ContentLanguage},
		{pDisp, b.ContentDisposition}, {pCache, b.CacheControl},
	} {
		if p.v != "" {
			add(p.name, edm.StringValue(p.v))
		}
	}
	if b.ContentMD5 != nil {
		add(pMD5, edm.BinaryValue(b.ContentMD5))
	}
	if len(b.Metadata) > 0 {
		add(pMeta, edm.BinaryValue(encodeMeta(b.Metadata)))
	}
	e.Properties = append(e.Properties, b.list...)
	return e
}

// setList makes segs the blob's block list: inline when short, else in
// pages, which it returns for the commit to write.
func (b *Blob) setList(segs []segment) []*engine.Entity {
	b.segs, b.list = segs, nil
	b.Size = 0
	for _, sg := range segs {
		b.Size += sg.size
	}
	enc := appendSegments(nil, segs)
	if len(enc) <= maxInlineList {
		b.list = packParts(nil, 'L', enc)
		return nil
	}
	id := newID()
	var pages []*engine.Entity
	for len(enc) > 0 {
		n := min(len(enc), ChunkSize)
		p := &engine.Entity{PartitionKey: b.gen, RowKey: "l/" + id + "/" + chunkKey(int64(len(pages)))}
		p.Properties = packParts(nil, 'L', enc[:n])
		pages = append(pages, p)
		enc = enc[n:]
	}
	b.list = []engine.Property{
		{Name: pListID, Value: edm.StringValue(id)},
		{Name: pPages, Value: edm.Int64Value(int64(len(pages)))},
	}
	return pages
}

// lookup returns a container's live generation and the blob, nil when it
// does not exist.
func (s *Service) lookup(container, name string, segs bool) (*Container, *Blob, error) {
	if err := ValidateBlobName(name); err != nil {
		return nil, nil, err
	}
	c, err := s.container(container)
	if err != nil {
		return nil, nil, err
	}
	e, err := s.get(blobsTable, c.gen, "b/"+name)
	if err != nil || e == nil {
		return c, nil, err
	}
	b, err := s.blobOf(c.gen, e, segs)
	return c, b, err
}

// GetBlob returns a blob's properties, metadata and block list, for
// Get Blob and Get Blob Properties; Open then reads its content.
func (s *Service) GetBlob(container, name string, cond *Conditions) (*Blob, error) {
	_, b, err := s.lookup(container, name, true)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, svcerr.New(svcerr.BlobNotFound)
	}
	if err := cond.check(true, b.ETag, b.LastModified, true); err != nil {
		return nil, err
	}
	return b, nil
}

// Open returns a reader of length bytes of b's content from offset off,
// which reads one chunk at a time from the store. A blob replaced or
// deleted while it is read ends the read with BlobNotFound.
func (s *Service) Open(b *Blob, off, length int64) io.ReadCloser {
	if off < 0 || off > b.Size {
		off = b.Size
	}
	length = max(0, min(length, b.Size-off))
	return s.newReader(b.segs, off, length)
}

// commit replaces a blob in one batch of its container's partition: the
// new entity (and its list pages), the end of the uploads it adopts, and
// a garbage record naming what it replaced (the old block list, the
// uncommitted blocks), which it then collects. build runs under the
// commit lock, with the blob as it is (nil if it does not exist) and the
// id of its stage of uncommitted blocks ("" if none); it returns the new
// blob, or nil to delete it.
func (s *Service) commit(container, name string, cond *Conditions, uploads []*upload,
	build func(gen string, old *Blob, stage string) (*Blob, []segment, error)) (*Blob, error) {
	s.mu.Lock()
	b, gen, gc, err := s.commitLocked(container, name, cond, uploads, build)
	s.mu.Unlock()
	if err != nil {
		for _, u := range uploads {
			s.discard(u)
		}
		return nil, err
	}
	if gc != "" {
		if err := s.collect(gen, gc); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func (s *Service) commitLocked(container, name string, cond *Conditions, uploads []*upload,
	build func(gen string, old *Blob, stage string) (*Blob, []segment, error)) (b *Blob, gen, gcID string, err error) {
	c, old, err := s.lookup(container, name, false)
	if err != nil {
		return nil, "", "", err
	}
	for _, u := range uploads {
		if u.gen != c.gen {
			// The container was deleted and created again meanwhile.
			return nil, "", "", svcerr.New(svcerr.ContainerNotFound)
		}
	}
	gen = c.gen
	if old != nil {
		err = cond.check(true, old.ETag, old.LastModified, false)
	} else {
		err = cond.check(false, "", time.Time{}, false)
	}
	if err != nil {
		return nil, "", "", err
	}
	stageEnt, err := s.get(blobsTable, gen, "s/"+name)
	if err != nil {
		return nil, "", "", err
	}
	stage := ""
	if stageEnt != nil {
		stage = propStr(stageEnt, "Gen")
	}
	if old != nil {
		old.gen = gen
	}
	b, segs, err := build(gen, old, stage)
	if err != nil {
		return nil, "", "", err
	}
	var ops []engine.Op
	at := -1 // the blob entity's op
	if b != nil {
		b.gen, b.Name = gen, name
		b.Created = s.store.Now()
		if old != nil {
			b.Created = old.Created
		}
		for _, p := range b.setList(segs) {
			ops = append(ops, engine.Op{Kind: engine.Insert, Entity: p})
		}
		if b.Size > MaxBlobSize {
			return nil, "", "", svcerr.New(svcerr.RequestBodyTooLarge)
		}
		at = len(ops)
		ops = append(ops, engine.Op{Kind: engine.InsertOrReplace, Entity: b.entity()})
	} else {
		ops = append(ops, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: gen, RowKey: "b/" + name}})
	}
	for _, u := range uploads {
		ops = append(ops, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: gen, RowKey: "p/" + u.id}})
	}
	if stageEnt != nil {
		ops = append(ops, engine.Op{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: gen, RowKey: "s/" + name}})
	}
	if old != nil || stage != "" {
		gcID = newID()
		g := &engine.Entity{PartitionKey: gen, RowKey: "g/" + gcID, Properties: []engine.Property{
			{Name: "B", Value: edm.StringValue(name)},
		}}
		if stage != "" {
			g.Properties = append(g.Properties, engine.Property{Name: "S", Value: edm.StringValue(stage)})
		}
		if old != nil {
			g.Properties = append(g.Properties, old.list...)
		}
		ops = append(ops, engine.Op{Kind: engine.Insert, Entity: g})
	}
	if len(ops) > engine.MaxBatchOperations {
		return nil, "", "", svcerr.New(svcerr.BlockListTooLong)
	}
	rs, err := s.store.Batch(blobsTable, ops)
	if err != nil {
		return nil, "", "", err
	}
	if b != nil {
		e := rs[at].Entity
		b.ETag, b.LastModified = etagOf(e.Timestamp), edm.TimeOf(e.Timestamp)
	}
	return b, gen, gcID, nil
}

// PutBlob writes a block blob in one request: a body of size bytes read
// from body a chunk at a time. contentMD5, when not nil, is checked
// against the body (Md5Mismatch); the blob keeps props.ContentMD5 if set,
// and otherwise the MD5 the service computed.
func (s *Service) PutBlob(container, name string, body io.Reader, size int64, props Properties, meta []Pair, contentMD5 []byte, cond *Conditions) (*Blob, error) {
	if size > MaxPutBlobSize {
		return nil, svcerr.New(svcerr.RequestBodyTooLarge)
	}
	c, _, err := s.lookup(container, name, false)
	if err != nil {
		return nil, err
	}
	u, err := s.write(c.gen, body, size)
	if err != nil {
		return nil, err
	}
	if contentMD5 != nil && !bytes.Equal(contentMD5, u.md5[:]) {
		s.discard(u)
		return nil, svcerr.New(svcerr.MD5Mismatch)
	}
	if props.ContentMD5 == nil {
		props.ContentMD5 = append([]byte(nil), u.md5[:]...)
	}
	return s.commit(container, name, cond, []*upload{u}, func(gen string, old *Blob, stage string) (*Blob, []segment, error) {
		b := &Blob{Properties: props, Metadata: meta}
		var segs []segment
		if size > 0 {
			segs = []segment{{size: size, data: u.id}}
		}
		return b, segs, nil
	})
}

// checkBlockID checks a block id: Base64 of 1 to 64 bytes.
func checkBlockID(id string) error {
	raw, err := base64.StdEncoding.DecodeString(id)
	if err != nil || len(raw) == 0 || len(raw) > MaxBlockIDLen {
		return svcerr.New(svcerr.InvalidQueryParameterValue)
	}
	return nil
}

// PutBlock stages a block of a blob, the blob created (uncommitted) if it
// does not exist. Every block id of a blob, committed or not, has the
// same length; a block of another length fails with InvalidBlobOrBlock.
func (s *Service) PutBlock(container, name, blockID string, body io.Reader, size int64, contentMD5 []byte) error {
	if err := checkBlockID(blockID); err != nil {
		return err
	}
	if size > MaxBlockSize {
		return svcerr.New(svcerr.RequestBodyTooLarge)
	}
	c, _, err := s.lookup(container, name, false)
	if err != nil {
		return err
	}
	u, err := s.write(c.gen, body, size)
	if err != nil {
		return err
	}
	if contentMD5 != nil && !bytes.Equal(contentMD5, u.md5[:]) {
		s.discard(u)
		return svcerr.New(svcerr.MD5Mismatch)
	}
	s.mu.Lock()
	gen, gc, err := s.stageLocked(container, name, blockID, u)
	s.mu.Unlock()
	if err != nil {
		s.discard(u)
		return err
	}
	if gc != "" {
		return s.collect(gen, gc)
	}
	return nil
}

func (s *Service) stageLocked(container, name, blockID string, u *upload) (gen, gcID string, err error) {
	c, b, err := s.lookup(container, name, false)
	if err != nil {
		return "", "", err
	}
	if c.gen != u.gen {
		return "", "", svcerr.New(svcerr.ContainerNotFound)
	}
	gen = c.gen
	st, err := s.get(blobsTable, gen, "s/"+name)
	if err != nil {
		return "", "", err
	}
	stage, idLen, count := newID(), len(blockID), int64(0)
	if st != nil {
		stage, idLen, count = propStr(st, "Gen"), int(propInt(st, pIDLen)), propInt(st, "Count")
	} else if b != nil && b.idLen != 0 {
		idLen = b.idLen
	}
	if idLen != len(blockID) {
		return "", "", svcerr.New(svcerr.InvalidBlobOrBlock)
	}
	key := "k/" + stage + "/" + blockID
	prev, err := s.get(blobsTable, gen, key)
	if err != nil {
		return "", "", err
	}
	if prev == nil {
		if count >= MaxUncommitted {
			return "", "", svcerr.New(svcerr.BlockCountExceedsLimit)
		}
		count++
	}
	ops := []engine.Op{
		{Kind: engine.InsertOrReplace, Entity: &engine.Entity{PartitionKey: gen, RowKey: "s/" + name, Properties: []engine.Property{
			{Name: "Gen", Value: edm.StringValue(stage)},
			{Name: pIDLen, Value: edm.Int64Value(int64(idLen))},
			{Name: "Count", Value: edm.Int64Value(count)},
		}}},
		{Kind: engine.InsertOrReplace, Entity: &engine.Entity{PartitionKey: gen, RowKey: key, Properties: []engine.Property{
			{Name: "D", Value: edm.StringValue(u.id)},
			{Name: "N", Value: edm.Int64Value(u.size)},
		}}},
		{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: gen, RowKey: "p/" + u.id}},
	}
	if prev != nil {
		gcID = newID()
		ops = append(ops, engine.Op{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: gen, RowKey: "g/" + gcID, Properties: []engine.Property{
			{Name: "X", Value: edm.StringValue(propStr(prev, "D"))},
		}}})
	}
	_, err = s.store.Batch(blobsTable, ops)
	return gen, gcID, err
}

// BlockKind says which list Put Block List takes a block from.
type BlockKind uint8

// The block list's kinds of entries.
const (
	// Latest takes the uncommitted block if there is one, else the
	// committed one.
	Latest BlockKind = iota
	Committed
	Uncommitted
)

// BlockRef is one entry of a block list to commit.
type BlockRef struct {
	ID   string
	Kind BlockKind
}

// PutBlockList commits a blob made of the listed blocks, taken from its
// uncommitted and committed blocks; a block found in neither fails the
// commit with InvalidBlockList. Every uncommitted block is discarded,
// and every committed block the list leaves out.
func (s *Service) PutBlockList(container, name string, refs []BlockRef, props Properties, meta []Pair, cond *Conditions) (*Blob, error) {
	if len(refs) > MaxBlocks {
		return nil, svcerr.New(svcerr.BlockListTooLong)
	}
	return s.commit(container, name, cond, nil, func(gen string, old *Blob, stage string) (*Blob, []segment, error) {
		committed := map[string]segment{}
		if old != nil {
			e, err := s.get(blobsTable, gen, "b/"+name)
			if err != nil {
				return nil, nil, err
			}
			segs, err := s.readList(gen, e)
			if err != nil {
				return nil, nil, err
			}
			for _, sg := range segs {
				if sg.block != "" {
					committed[sg.block] = sg
				}
			}
		}
		staged := map[string]*segment{}
		stagedOf := func(id string) (*segment, error) {
			if stage == "" {
				return nil, nil
			}
			if sg, ok := staged[id]; ok {
				return sg, nil
			}
			e, err := s.get(blobsTable, gen, "k/"+stage+"/"+id)
			if err != nil || e == nil {
				staged[id] = nil
				return nil, err
			}
			sg := &segment{block: id, size: propInt(e, "N"), data: propStr(e, "D")}
			staged[id] = sg
			return sg, nil
		}
		segs := make([]segment, 0, len(refs))
		idLen := 0
		for _, r := range refs {
			var sg *segment
			if r.Kind != Committed {
				var err error
				if sg, err = stagedOf(r.ID); err != nil {
					return nil, nil, err
				}
			}
			if sg == nil && r.Kind != Uncommitted {
				if c, ok := committed[r.ID]; ok {
					sg = &c
				}
			}
			if sg == nil {
				return nil, nil, svcerr.New(svcerr.InvalidBlockList)
			}
			segs = append(segs, *sg)
			idLen = len(r.ID)
		}
		return &Blob{Properties: props, Metadata: meta, Blocks: len(segs), idLen: idLen}, segs, nil
	})
}
