package blobapi

import (
	"strconv"
	"strings"

	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/auth"
	"github.com/tablelab/tablelab/engine/api/xmlwire"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// metadata reads the request's x-ms-meta-* headers.
func (c *call) metadata() ([]blob.Pair, error) {
	m, err := xmlwire.Metadata(&c.req.Header)
	if err != nil {
		return nil, err
	}
	out := make([]blob.Pair, len(m))
	for i, p := range m {
		out[i] = blob.Pair(p)
	}
	return out, nil
}

func setMetadata(h *api.Header, m []blob.Pair) {
	out := make([]xmlwire.Pair, len(m))
	for i, p := range m {
		out[i] = xmlwire.Pair(p)
	}
	xmlwire.SetMetadata(h, out)
}

func appendMetadata(b []byte, m []blob.Pair) []byte {
	out := make([]xmlwire.Pair, len(m))
	for i, p := range m {
		out[i] = xmlwire.Pair(p)
	}
	return xmlwire.AppendMetadata(b, out)
}

// conditions reads the request's conditional headers. A date that does
// not parse is ignored, as HTTP requires.
func (c *call) conditions() *blob.Conditions {
	h := &c.req.Header
	cond := &blob.Conditions{IfMatch: h.Get("If-Match"), IfNoneMatch: h.Get("If-None-Match")}
	if t, ok := parseHTTPDate(h.Get("If-Modified-Since")); ok {
		cond.IfModifiedSince = t
	}
	if t, ok := parseHTTPDate(h.Get("If-Unmodified-Since")); ok {
		cond.IfUnmodifiedSince = t
	}
	return cond
}

// listParams reads prefix, marker and maxresults (1 to 5000).
func (c *call) listParams() (prefix, marker string, max int, err error) {
	q := c.rt.query
	prefix, marker = q.Get("prefix"), q.Get("marker")
	if v := q.Get("maxresults"); v != "" || q.Has("maxresults") {
		n, perr := strconv.Atoi(v)
		if perr != nil {
			return "", "", 0, invalidParam("maxresults", v)
		}
		if n < 1 {
			return "", "", 0, svcerr.With(svcerr.OutOfRangeQueryParameterValue,
				"One of the query parameters specified in the request URI is outside the permissible range: maxresults.")
		}
		// More than 5000 is allowed, and answered with 5000 at most.
		max = min(n, 5000)
	}
	return prefix, marker, max, nil
}

// include reports which of the listing's include= values the request
// names; a value tablelab cannot honour fails.
func (c *call) include() (metadata bool, err error) {
	v := c.rt.query.Get("include")
	if v == "" {
		return false, nil
	}
	for _, w := range strings.Split(v, ",") {
		switch w {
		case "metadata":
			metadata = true
		case "system", "uncommittedblobs":
			// Nothing to add: tablelab has no system containers, and
			// an uncommitted blob is not listed.
		case "snapshots", "versions", "deleted", "copy", "tags", "immutabilitypolicy", "legalhold", "deletedwithversions", "permissions":
			return false, notImplemented("Listing with include=" + w)
		default:
			return false, invalidParam("include", v)
		}
	}
	return metadata, nil
}

func (c *call) listContainers() error {
	if err := c.grant.CheckBlob(auth.List, auth.ServiceLevel, "", ""); err != nil {
		return err
	}
	prefix, marker, max, err := c.listParams()
	if err != nil {
		return err
	}
	withMeta, err := c.include()
	if err != nil {
		return err
	}
	page, err := c.svc.ListContainers(prefix, marker, max)
	if err != nil {
		return err
	}
	b := append([]byte(xmlwire.Declaration), `<EnumerationResults ServiceEndpoint="`...)
	b = xmlwire.AppendEscaped(b, c.rt.base+"/")
	b = append(b, `">`...)
	b = appendListHead(b, c.rt.query, "")
	b = append(b, "<Containers>"...)
	for _, ct := range page.Containers {
		b = append(b, "<Container>"...)
		b = xmlwire.AppendElement(b, "Name", ct.Name)
		b = append(b, "<Properties>"...)
		b = xmlwire.AppendElement(b, "Last-Modified", httpDate(ct.LastModified))
		b = xmlwire.AppendElement(b, "Etag", ct.ETag)
		b = append(b, "<LeaseStatus>unlocked</LeaseStatus><LeaseState>available</LeaseState>"+
			"<HasImmutabilityPolicy>false</HasImmutabilityPolicy><HasLegalHold>false</HasLegalHold></Properties>"...)
		if withMeta {
			b = appendMetadata(b, ct.Metadata)
		}
		b = append(b, "</Container>"...)
	}
	b = append(b, "</Containers>"...)
	b = xmlwire.AppendElement(b, "NextMarker", page.NextMarker)
	b = append(b, "</EnumerationResults>"...)
	c.xml(200, b)
	return nil
}

// appendListHead writes the listing's echo of its parameters.
func appendListHead(b []byte, q interface{ Get(string) string }, delimiter string) []byte {
	if v := q.Get("prefix"); v != "" {
		b = xmlwire.AppendElement(b, "Prefix", v)
	}
	if v := q.Get("marker"); v != "" {
		b = xmlwire.AppendElement(b, "Marker", v)
	}
	if v := q.Get("maxresults"); v != "" {
		b = xmlwire.AppendElement(b, "MaxResults", v)
	}
	if delimiter != "" {
		b = xmlwire.AppendElement(b, "Delimiter", delimiter)
	}
	return b
}

func (c *call) createContainer() error {
	if err := c.grant.CheckBlob(auth.Create, auth.ContainerLevel, c.rt.container, ""); err != nil {
		return err
	}
	meta, err := c.metadata()
	if err != nil {
		return err
	}
	ct, err := c.svc.CreateContainer(c.rt.container, meta)
	if err != nil {
		return err
	}
	c.setStamp(ct.ETag, ct.LastModified)
	c.resp.Status = 201
	return nil
}

func (c *call) deleteContainer() error {
	if err := c.grant.CheckBlob(auth.Delete, auth.ContainerLevel, c.rt.container, ""); err != nil {
		return err
	}
	if err := c.svc.DeleteContainer(c.rt.container, c.conditions()); err != nil {
		return err
	}
	c.resp.Status = 202
	return nil
}

// getContainer answers Get Container Properties and Get Container
// Metadata, which differ only in the headers the service adds.
func (c *call) getContainer() error {
	if err := c.grant.CheckBlob(auth.Read, auth.ContainerLevel, c.rt.container, ""); err != nil {
		return err
	}
	ct, err := c.svc.GetContainer(c.rt.container, c.conditions())
	if err != nil {
		return err
	}
	h := &c.resp.Header
	c.setStamp(ct.ETag, ct.LastModified)
	setMetadata(h, ct.Metadata)
	if c.rt.query.Get("comp") == "" {
		h.Set("x-ms-lease-status", "unlocked")
		h.Set("x-ms-lease-state", "available")
		h.Set("x-ms-has-immutability-policy", "false")
		h.Set("x-ms-has-legal-hold", "false")
	}
	c.resp.Status = 200
	return nil
}

func (c *call) setContainerMetadata() error {
	if err := c.grant.CheckBlob(auth.Write, auth.ContainerLevel, c.rt.container, ""); err != nil {
		return err
	}
	meta, err := c.metadata()
	if err != nil {
		return err
	}
	ct, err := c.svc.SetContainerMetadata(c.rt.container, meta, c.conditions())
	if err != nil {
		return err
	}
	c.setStamp(ct.ETag, ct.LastModified)
	c.resp.Status = 200
	return nil
}

func (c *call) listBlobs() error {
	if err := c.grant.CheckBlob(auth.List, auth.ContainerLevel, c.rt.container, ""); err != nil {
		return err
	}
	prefix, marker, max, err := c.listParams()
	if err != nil {
		return err
	}
	withMeta, err := c.include()
	if err != nil {
		return err
	}
	delim := c.rt.query.Get("delimiter")
	page, err := c.svc.ListBlobs(c.rt.container, prefix, delim, marker, max)
	if err != nil {
		return err
	}
	b := append([]byte(xmlwire.Declaration), `<EnumerationResults ServiceEndpoint="`...)
	b = xmlwire.AppendEscaped(b, c.rt.base+"/")
	b = append(b, `" ContainerName="`...)
	b = xmlwire.AppendEscaped(b, c.rt.container)
	b = append(b, `">`...)
	b = appendListHead(b, c.rt.query, delim)
	b = append(b, "<Blobs>"...)
	for _, it := range page.Items {
		if it.Blob == nil {
			b = append(b, "<BlobPrefix>"...)
			b = xmlwire.AppendElement(b, "Name", it.Prefix)
			b = append(b, "</BlobPrefix>"...)
			continue
		}
		bl := it.Blob
		b = append(b, "<Blob>"...)
		b = xmlwire.AppendElement(b, "Name", bl.Name)
		b = append(b, "<Properties>"...)
		b = xmlwire.AppendElement(b, "Creation-Time", httpDate(bl.Created))
		b = xmlwire.AppendElement(b, "Last-Modified", httpDate(bl.LastModified))
		b = xmlwire.AppendElement(b, "Etag", bl.ETag)
		b = xmlwire.AppendElement(b, "Content-Length", strconv.FormatInt(bl.Size, 10))
		b = xmlwire.AppendElement(b, "Content-Type", contentType(bl))
		b = xmlwire.AppendElement(b, "Content-Encoding", bl.ContentEncoding)
		b = xmlwire.AppendElement(b, "Content-Language", bl.ContentLanguage)
		b = xmlwire.AppendElement(b, "Content-MD5", b64(bl.ContentMD5))
		b = xmlwire.AppendElement(b, "Cache-Control", bl.CacheControl)
		b = xmlwire.AppendElement(b, "Content-Disposition", bl.ContentDisposition)
		b = append(b, "<BlobType>BlockBlob</BlobType><LeaseStatus>unlocked</LeaseStatus>"+
			"<LeaseState>available</LeaseState><ServerEncrypted>false</ServerEncrypted></Properties>"...)
		if withMeta {
			b = appendMetadata(b, bl.Metadata)
		}
		b = append(b, "</Blob>"...)
	}
	b = append(b, "</Blobs>"...)
	b = xmlwire.AppendElement(b, "NextMarker", page.NextMarker)
	b = append(b, "</EnumerationResults>"...)
	c.xml(200, b)
	return nil
}
