package blob

import (
	"time"

	"strings"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// DeleteBlob deletes a blob, its committed and its uncommitted blocks.
func (s *Service) DeleteBlob(container, name string, cond *Conditions) error {
	_, err := s.commit(container, name, cond, nil, func(gen string, old *Blob, stage string) (*Blob, []segment, error) {
		if old == nil {
			return nil, nil, svcerr.New(svcerr.BlobNotFound)
		}
		return nil, nil, nil
	})
	return err
}

// update rewrites a blob's entity after change has altered its
// properties or metadata; its content and block list stay as they are.
func (s *Service) update(container, name string, cond *Conditions, change func(*Blob)) (*Blob, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, b, err := s.lookup(container, name, false)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, svcerr.New(svcerr.BlobNotFound)
	}
	if err := cond.check(true, b.ETag, b.LastModified, false); err != nil {
		return nil, err
	}
	change(b)
	r, err := s.store.Write(blobsTable, engine.Op{Kind: engine.Replace, Entity: b.entity()})
	if err != nil {
		return nil, err
	}
	b.ETag, b.LastModified = etagOf(r.Entity.Timestamp), edm.TimeOf(r.Entity.Timestamp)
	return b, nil
}

// SetBlobProperties replaces a blob's content headers, MD5 included.
func (s *Service) SetBlobProperties(container, name string, props Properties, cond *Conditions) (*Blob, error) {
	return s.update(container, name, cond, func(b *Blob) { b.Properties = props })
}

// SetBlobMetadata replaces a blob's metadata.
func (s *Service) SetBlobMetadata(container, name string, meta []Pair, cond *Conditions) (*Blob, error) {
	return s.update(container, name, cond, func(b *Blob) { b.Metadata = meta })
}

// Block is one block of a block list: its id, as sent, and size.
type Block struct {
	ID   string
	Size int64
}

// BlockList is what Get Block List returns.
type BlockList struct {
	// Blob is the committed blob, nil when only uncommitted blocks exist.
	Blob                   *Blob
	Committed, Uncommitted []Block
}

// GetBlockList returns a blob's committed blocks, its uncommitted ones,
// or both. A blob with neither fails with BlobNotFound.
func (s *Service) GetBlockList(container, name string, committed, uncommitted bool, cond *Conditions) (*BlockList, error) {
	c, b, err := s.lookup(container, name, committed)
	if err != nil {
		return nil, err
	}
	if b != nil {
		if err := cond.check(true, b.ETag, b.LastModified, false); err != nil {
			return nil, err
		}
	} else if err := cond.check(false, "", time.Time{}, false); err != nil {
		return nil, err
	}
	bl := &BlockList{Blob: b}
	if b != nil && committed {
		for _, sg := range b.segs {
			if sg.block != "" {
				bl.Committed = append(bl.Committed, Block{sg.block, sg.size})
			}
		}
	}
	st, err := s.get(blobsTable, c.gen, "s/"+name)
	if err != nil {
		return nil, err
	}
	if b == nil && st == nil {
		return nil, svcerr.New(svcerr.BlobNotFound)
	}
	if st != nil && uncommitted {
		prefix := "k/" + propStr(st, "Gen") + "/"
		err := s.scan(blobsTable, c.gen, prefix, "", func(e *engine.Entity) (bool, error) {
			bl.Uncommitted = append(bl.Uncommitted, Block{strings.TrimPrefix(e.RowKey, prefix), propInt(e, "N")})
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	return bl, nil
}

// BlobPage is one page of a blob listing: blobs and, with a delimiter,
// the prefixes that stand for the blobs below them, in name order.
type BlobPage struct {
	Items []Item
	// NextMarker is where the next page starts; empty on the last page.
	NextMarker string
}

// Item is one entry of a blob listing: a blob, or a prefix (Blob nil).
type Item struct {
	Blob   *Blob
	Prefix string
}

// ListBlobs lists the committed blobs of a container whose names start
// with prefix, from marker on, at most max entries (1 to 5000; 0 means
// 5000). With a delimiter, the blobs whose names hold it after the prefix
// are listed once, as the prefix up to and including the delimiter.
func (s *Service) ListBlobs(container, prefix, delimiter, marker string, max int) (*BlobPage, error) {
	c, err := s.container(container)
	if err != nil {
		return nil, err
	}
	if max <= 0 || max > 5000 {
		max = 5000
	}
	p := &BlobPage{}
	from := ""
	if marker != "" {
		from = "b/" + marker
	}
	for {
		var skip string // a prefix just listed, whose blobs the next scan skips
		err := s.scan(blobsTable, c.gen, "b/"+prefix, from, func(e *engine.Entity) (bool, error) {
			name := strings.TrimPrefix(e.RowKey, "b/")
			var item Item
			if i := strings.Index(name[len(prefix):], delimiter); delimiter != "" && i >= 0 {
				item.Prefix = name[:len(prefix)+i+len(delimiter)]
			}
			if len(p.Items) == max {
				p.NextMarker = name
				if item.Prefix != "" {
					p.NextMarker = item.Prefix
				}
				return false, nil
			}
			if item.Prefix != "" {
				p.Items = append(p.Items, item)
				skip = item.Prefix
				return false, nil
			}
			b, err := s.blobOf(c.gen, e, false)
			item.Blob = b
			p.Items = append(p.Items, item)
			return true, err
		})
		if err != nil || skip == "" {
			return p, err
		}
		from = "b/" + skip + maxRune
	}
}
