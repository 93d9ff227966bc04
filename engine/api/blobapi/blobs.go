package blobapi

import (
	"bytes"
	"encoding/base64"
	"io"
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/internal/digest"
	"github.com/tablelab/tablelab/engine/svcerr"
)

func b64(b []byte) string {
	if b == nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

func contentType(b *blob.Blob) string {
	if b.ContentType == "" {
		return "application/octet-stream"
	}
	return b.ContentType
}

// md5Header reads a Base64 MD5 header: nil when absent, InvalidMd5 when
// it is not 16 bytes of Base64.
func (c *call) md5Header(name string) ([]byte, error) {
	v := c.req.Header.Get(name)
	if v == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(b) != digest.MD5Size {
		return nil, svcerr.New(svcerr.InvalidMD5)
	}
	return b, nil
}

// body returns the request body as a reader and its length. A streamed
// body is read as the model needs it, never all at once.
func (c *call) body() (io.Reader, int64, error) {
	if c.req.BodyStream == nil {
		return bytes.NewReader(c.req.Body), int64(len(c.req.Body)), nil
	}
	v := c.req.Header.Get("Content-Length")
	if v == "" {
		return nil, 0, svcerr.New(svcerr.MissingContentLengthHeader)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return nil, 0, invalidHeader("Content-Length")
	}
	return c.req.BodyStream, n, nil
}

// xmlBody reads a small XML request body whole.
func (c *call) xmlBody() ([]byte, error) {
	r, n, err := c.body()
	if err != nil {
		return nil, err
	}
	if n > MaxXMLBody {
		return nil, svcerr.New(svcerr.RequestBodyTooLarge)
	}
	if c.req.BodyStream == nil {
		return c.req.Body, nil
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, svcerr.With(svcerr.InvalidInput, "The request body could not be read.")
	}
	return b, nil
}

// checkWrite checks the permission to write the blob: Write, or Create
// when the blob does not exist yet.
func (c *call) checkWrite() error {
	err := c.grant.CheckBlob(auth.Write, auth.ObjectLevel, c.rt.container, c.rt.blob)
	if err == nil {
		return nil
	}
	if _, gerr := c.svc.GetBlob(c.rt.container, c.rt.blob, nil); svcerr.Is(gerr, svcerr.BlobNotFound) {
		if c.grant.CheckBlob(auth.Create, auth.ObjectLevel, c.rt.container, c.rt.blob) == nil {
			return nil
		}
	}
	return err
}

// properties reads the content headers a write sets: the x-ms-blob-*
// ones, and for Put Blob (std) the standard headers when those are absent.
func (c *call) properties(std bool) (blob.Properties, error) {
	h := &c.req.Header
	get := func(name string) string {
		if v := h.Get("x-ms-blob-" + name); v != "" || !std {
			return v
		}
		return h.Get(name)
	}
	p := blob.Properties{
		ContentType:        get("content-type"),
		ContentEncoding:    get("content-encoding"),
		ContentLanguage:    get("content-language"),
		CacheControl:       get("cache-control"),
		ContentDisposition: h.Get("x-ms-blob-content-disposition"),
	}
	var err error
	p.ContentMD5, err = c.md5Header("x-ms-blob-content-md5")
	return p, err
}

func (c *call) putBlob() error {
	switch t := c.req.Header.Get("x-ms-blob-type"); t {
	case "BlockBlob":
	case "AppendBlob":
		return notImplemented("Append blobs")
	case "PageBlob":
		return notImplemented("Page blobs")
	case "":
		return svcerr.With(svcerr.MissingRequiredHeader, "An HTTP header that's mandatory for this request is not specified: x-ms-blob-type.")
	default:
		return invalidHeader("x-ms-blob-type")
	}
	props, meta, sum, err := c.commitHeaders(true)
	if err != nil {
		return err
	}
	r, n, err := c.body()
	if err != nil {
		return err
	}
	b, err := c.svc.PutBlob(c.rt.container, c.rt.blob, r, n, props, meta, sum, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(b.ETag, b.LastModified)
	c.resp.Header.Set("Content-MD5", b64(b.ContentMD5))
	c.resp.Header.Set("x-ms-request-server-encrypted", "false")
	c.resp.Status = 201
	return nil
}

func (c *call) putBlock() error {
	if err := c.checkWrite(); err != nil {
		return err
	}
	id := c.rt.query.Get("blockid")
	if id == "" {
		return svcerr.With(svcerr.MissingRequiredQueryParameter, "A query parameter that's mandatory for this request is not specified: blockid.")
	}
	sum, err := c.md5Header("Content-MD5")
	if err != nil {
		return err
	}
	r, n, err := c.body()
	if err != nil {
		return err
	}
	// The model checks the MD5 it computes against the header's; echo the
	// header's, which it equals when the block is accepted.
	h := digest.NewMD5()
	if err := c.svc.PutBlock(c.rt.container, c.rt.blob, id, io.TeeReader(r, h), n, sum); err != nil {
		if svcerr.Is(err, svcerr.InvalidQueryParameterValue) {
			return invalidParam("blockid", id)
		}
		return err
	}
	c.resp.Header.Set("Content-MD5", b64(h.Sum(nil)))
	c.resp.Header.Set("x-ms-request-server-encrypted", "false")
	c.resp.Status = 201
	return nil
}

// parseBlockList reads a Put Block List body:
// <BlockList><Latest>id</Latest><Committed>…</Committed>…</BlockList>.
func parseBlockList(doc []byte) ([]blob.BlockRef, error) {
	root, err := xmlwire.Parse(doc)
	if err != nil {
		return nil, err
	}
	if root.Name != "BlockList" {
		return nil, svcerr.New(svcerr.InvalidXMLDocument)
	}
	refs := make([]blob.BlockRef, 0, len(root.Children))
	for _, e := range root.Children {
		var k blob.BlockKind
		switch e.Name {
		case "Latest":
			k = blob.Latest
		case "Committed":
			k = blob.Committed
		case "Uncommitted":
			k = blob.Uncommitted
		default:
			return nil, svcerr.New(svcerr.InvalidXMLDocument)
		}
		if len(e.Children) > 0 {
			return nil, svcerr.New(svcerr.InvalidXMLDocument)
		}
		refs = append(refs, blob.BlockRef{ID: strings.TrimSpace(e.Text), Kind: k})
	}
	return refs, nil
}

// commitHeaders checks that the request may write the blob and reads
// what a write that commits a blob takes from its headers: properties
// (std: Put Blob's, which may also come under the standard header names),
// metadata and the Content-MD5 of the body.
func (c *call) commitHeaders(std bool) (blob.Properties, []blob.Pair, []byte, error) {
	if err := c.checkWrite(); err != nil {
		return blob.Properties{}, nil, nil, err
	}
	props, err := c.properties(std)
	if err != nil {
		return blob.Properties{}, nil, nil, err
	}
	meta, err := c.metadata()
	if err != nil {
		return blob.Properties{}, nil, nil, err
	}
	sum, err := c.md5Header("Content-MD5")
	return props, meta, sum, err
}

func (c *call) putBlockList() error {
	props, meta, sum, err := c.commitHeaders(false)
	if err != nil {
		return err
	}
	doc, err := c.xmlBody()
	if err != nil {
		return err
	}
	if got := digest.MD5(doc); sum != nil && !bytes.Equal(sum, got[:]) {
		return svcerr.New(svcerr.MD5Mismatch)
	}
	refs, err := parseBlockList(doc)
	if err != nil {
		return err
	}
	b, err := c.svc.PutBlockList(c.rt.container, c.rt.blob, refs, props, meta, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(b.ETag, b.LastModified)
	c.resp.Header.Set("x-ms-request-server-encrypted", "false")
	c.resp.Status = 201
	return nil
}

func (c *call) getBlockList() error {
	if err := c.grant.CheckBlob(auth.Read, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	var committed, uncommitted bool
	switch t := c.rt.query.Get("blocklisttype"); strings.ToLower(t) {
	case "", "committed":
		committed = true
	case "uncommitted":
		uncommitted = true
	case "all":
		committed, uncommitted = true, true
	default:
		return invalidParam("blocklisttype", t)
	}
	bl, err := c.svc.GetBlockList(c.rt.container, c.rt.blob, committed, uncommitted, c.conditions())
	if err != nil {
		return err
	}
	if bl.Blob != nil {
		c.setStamp(bl.Blob.ETag, bl.Blob.LastModified)
		c.resp.Header.Set("x-ms-blob-content-length", strconv.FormatInt(bl.Blob.Size, 10))
	}
	b := append([]byte(xmlwire.Declaration), "<BlockList>"...)
	list := func(name string, blocks []blob.Block, want bool) {
		if !want {
			return
		}
		b = append(b, "<"+name+">"...)
		for _, k := range blocks {
			b = append(b, "<Block>"...)
			b = xmlwire.AppendElement(b, "Name", k.ID)
			b = xmlwire.AppendElement(b, "Size", strconv.FormatInt(k.Size, 10))
			b = append(b, "</Block>"...)
		}
		b = append(b, "</"+name+">"...)
	}
	list("CommittedBlocks", bl.Committed, committed)
	list("UncommittedBlocks", bl.Uncommitted, uncommitted)
	b = append(b, "</BlockList>"...)
	c.xml(200, b)
	return nil
}

// setBlobHeaders writes the headers Get Blob and Get Blob Properties
// share.
func setBlobHeaders(h *api.Header, b *blob.Blob) {
	h.Set("ETag", b.ETag)
	h.Set("Last-Modified", httpDate(b.LastModified))
	h.Set("x-ms-creation-time", httpDate(b.Created))
	h.Set("x-ms-blob-type", "BlockBlob")
	h.Set("Content-Type", contentType(b))
	for _, p := range [...]struct{ name, v string }{
		{"Content-Encoding", b.ContentEncoding}, {"Content-Language", b.ContentLanguage},
		{"Content-Disposition", b.ContentDisposition}, {"Cache-Control", b.CacheControl},
	} {
		if p.v != "" {
			h.Set(p.name, p.v)
		}
	}
	h.Set("x-ms-lease-status", "unlocked")
	h.Set("x-ms-lease-state", "available")
	h.Set("x-ms-server-encrypted", "false")
	h.Set("Accept-Ranges", "bytes")
	// No x-ms-blob-committed-block-count: the service sends it for
	// append blobs only.
	setMetadata(h, b.Metadata)
}

// parseRange reads "bytes=first-last" or "bytes=first-". ok is false when
// v does not have that form.
func parseRange(v string) (first, last int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(v), "bytes=")
	if !found {
		return 0, 0, false
	}
	a, z, found := strings.Cut(spec, "-")
	if !found {
		return 0, 0, false
	}
	first, err := strconv.ParseInt(a, 10, 64)
	if err != nil || first < 0 {
		return 0, 0, false
	}
	last = -1
	if z != "" {
		if last, err = strconv.ParseInt(z, 10, 64); err != nil || last < first {
			return 0, 0, false
		}
	}
	return first, last, true
}

// maxRangeMD5 is the largest range whose MD5 a Get Blob computes when
// x-ms-range-get-content-md5 asks, as the service allows.
const maxRangeMD5 = 4 << 20

func (c *call) getBlob() error {
	if err := c.grant.CheckBlob(auth.Read, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	b, err := c.svc.GetBlob(c.rt.container, c.rt.blob, c.conditions())
	if err != nil {
		return err
	}
	h := &c.resp.Header
	setBlobHeaders(h, b)
	if c.req.Method == "HEAD" {
		h.Set("Content-Length", strconv.FormatInt(b.Size, 10))
		if b.ContentMD5 != nil {
			h.Set("Content-MD5", b64(b.ContentMD5))
		}
		c.resp.Status = 200
		return nil
	}
	rng, ranged := c.req.Header.Get("x-ms-range"), true
	if rng == "" {
		rng = c.req.Header.Get("Range")
	}
	first, last, ok := parseRange(rng)
	switch {
	case rng == "" || !ok && c.req.Header.Get("x-ms-range") == "":
		// No range, or a Range header the service ignores.
		ranged, first, last = false, 0, b.Size-1
	case !ok:
		return invalidHeader("x-ms-range")
	case first >= b.Size:
		h.Set("Content-Range", "bytes */"+strconv.FormatInt(b.Size, 10))
		return svcerr.New(svcerr.InvalidRange)
	}
	if last < 0 || last >= b.Size {
		last = b.Size - 1
	}
	n := last - first + 1
	c.resp.Status = 200
	if ranged {
		c.resp.Status = 206
		h.Set("Content-Range", "bytes "+strconv.FormatInt(first, 10)+"-"+strconv.FormatInt(last, 10)+"/"+strconv.FormatInt(b.Size, 10))
		if b.ContentMD5 != nil {
			h.Set("x-ms-blob-content-md5", b64(b.ContentMD5))
		}
	} else if b.ContentMD5 != nil {
		h.Set("Content-MD5", b64(b.ContentMD5))
	}
	r := c.svc.Open(b, first, n)
	if strings.EqualFold(c.req.Header.Get("x-ms-range-get-content-md5"), "true") {
		if !ranged || n > maxRangeMD5 {
			r.Close()
			return invalidHeader("x-ms-range-get-content-md5")
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return err
		}
		sum := digest.MD5(data)
		h.Set("Content-MD5", b64(sum[:]))
		c.resp.Body = data
		return nil
	}
	c.resp.BodyStream, c.resp.BodyLength = r, n
	return nil
}

func (c *call) getBlobMetadata() error {
	if err := c.grant.CheckBlob(auth.Read, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	b, err := c.svc.GetBlob(c.rt.container, c.rt.blob, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(b.ETag, b.LastModified)
	setMetadata(&c.resp.Header, b.Metadata)
	c.resp.Status = 200
	return nil
}

func (c *call) setBlobProperties() error {
	if err := c.grant.CheckBlob(auth.Write, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	for _, name := range [...]string{"x-ms-blob-content-length", "x-ms-sequence-number-action"} {
		if c.req.Header.Get(name) != "" {
			return notImplemented("Page blobs")
		}
	}
	props, err := c.properties(false)
	if err != nil {
		return err
	}
	b, err := c.svc.SetBlobProperties(c.rt.container, c.rt.blob, props, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(b.ETag, b.LastModified)
	c.resp.Status = 200
	return nil
}

func (c *call) setBlobMetadata() error {
	if err := c.grant.CheckBlob(auth.Write, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	meta, err := c.metadata()
	if err != nil {
		return err
	}
	b, err := c.svc.SetBlobMetadata(c.rt.container, c.rt.blob, meta, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(b.ETag, b.LastModified)
	c.resp.Header.Set("x-ms-request-server-encrypted", "false")
	c.resp.Status = 200
	return nil
}

func (c *call) deleteBlob() error {
	if err := c.grant.CheckBlob(auth.Delete, auth.ObjectLevel, c.rt.container, c.rt.blob); err != nil {
		return err
	}
	if v := c.req.Header.Get("x-ms-delete-snapshots"); v != "" {
		return notImplemented("Blob snapshots")
	}
	if err := c.svc.DeleteBlob(c.rt.container, c.rt.blob, c.conditions()); err != nil {
		return err
	}
	c.resp.Status = 202
	return nil
}
