package blob

import (
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// Container is a container's properties.
type Container struct {
	Name         string
	ETag         string
	LastModified time.Time
	Metadata     []Pair
	gen          string
}

// ValidateContainerName checks a name against the service's rules: 3 to
// 63 lower-case letters, digits and hyphens, starting with a letter or
// digit, with no hyphen at the end or next to another.
func ValidateContainerName(name string) error {
	bad := len(name) < 3 || len(name) > 63
	for i := 0; !bad && i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-':
			bad = i == 0 || i == len(name)-1 || name[i-1] == '-'
		default:
			bad = true
		}
	}
	if bad {
		return svcerr.New(svcerr.InvalidResourceName)
	}
	return nil
}

func containerOf(e *engine.Entity) *Container {
	c := &Container{
		Name:         strings.TrimPrefix(e.RowKey, "c/"),
		ETag:         etagOf(e.Timestamp),
		LastModified: edm.TimeOf(e.Timestamp),
		gen:          propStr(e, "Gen"),
	}
	if v, ok := prop(e, "Meta"); ok {
		c.Metadata = decodeMeta(v.Bytes())
	}
	return c
}

func containerEntity(name, gen string, meta []Pair) *engine.Entity {
	e := &engine.Entity{PartitionKey: containersPK, RowKey: "c/" + name,
		Properties: []engine.Property{{Name: "Gen", Value: edm.StringValue(gen)}}}
	if len(meta) > 0 {
		e.Properties = append(e.Properties, engine.Property{Name: "Meta", Value: edm.BinaryValue(encodeMeta(meta))})
	}
	return e
}

// container returns the named container, or ContainerNotFound.
func (s *Service) container(name string) (*Container, error) {
	if err := ValidateContainerName(name); err != nil {
		return nil, err
	}
	e, err := s.get(containersTable, containersPK, "c/"+name)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, svcerr.New(svcerr.ContainerNotFound)
	}
	return containerOf(e), nil
}

// CreateContainer creates a container; one of the same name fails with
// ContainerAlreadyExists.
func (s *Service) CreateContainer(name string, meta []Pair) (*Container, error) {
	if err := ValidateContainerName(name); err != nil {
		return nil, err
	}
	r, err := s.store.Write(containersTable, engine.Op{Kind: engine.Insert, Entity: containerEntity(name, newID(), meta)})
	if err != nil {
		if svcerr.Is(err, svcerr.EntityAlreadyExists) {
			return nil, svcerr.New(svcerr.ContainerAlreadyExists)
		}
		return nil, err
	}
	return containerOf(r.Entity), nil
}

// GetContainer returns a container's properties and metadata.
func (s *Service) GetContainer(name string, cond *Conditions) (*Container, error) {
	c, err := s.container(name)
	if err != nil {
		return nil, err
	}
	if err := cond.check(true, c.ETag, c.LastModified, false); err != nil {
		return nil, err
	}
	return c, nil
}

// SetContainerMetadata replaces a container's metadata.
func (s *Service) SetContainerMetadata(name string, meta []Pair, cond *Conditions) (*Container, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.container(name)
	if err != nil {
		return nil, err
	}
	if err := cond.check(true, c.ETag, c.LastModified, false); err != nil {
		return nil, err
	}
	r, err := s.store.Write(containersTable, engine.Op{Kind: engine.Replace, Entity: containerEntity(name, c.gen, meta)})
	if err != nil {
		return nil, err
	}
	return containerOf(r.Entity), nil
}

// DeleteContainer deletes a container and, once that is committed, every
// blob in it.
func (s *Service) DeleteContainer(name string, cond *Conditions) error {
	s.mu.Lock()
	c, err := s.container(name)
	if err == nil {
		err = cond.check(true, c.ETag, c.LastModified, false)
	}
	if err == nil {
		_, err = s.store.Batch(containersTable, []engine.Op{
			{Kind: engine.Delete, Entity: &engine.Entity{PartitionKey: containersPK, RowKey: "c/" + name}},
			{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: containersPK, RowKey: "g/" + c.gen}},
		})
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.collectContainer(c.gen)
}

// ContainerPage is one page of a container listing.
type ContainerPage struct {
	Containers []*Container
	// NextMarker is where the next page starts; empty on the last page.
	NextMarker string
}

// ListContainers lists containers whose names start with prefix, in name
// order, from marker on, at most max of them (1 to 5000; 0 means 5000).
func (s *Service) ListContainers(prefix, marker string, max int) (*ContainerPage, error) {
	if max <= 0 || max > 5000 {
		max = 5000
	}
	p := &ContainerPage{}
	from := ""
	if marker != "" {
		from = "c/" + marker
	}
	err := s.scan(containersTable, containersPK, "c/"+prefix, from, func(e *engine.Entity) (bool, error) {
		c := containerOf(e)
		if len(p.Containers) == max {
			p.NextMarker = c.Name
			return false, nil
		}
		p.Containers = append(p.Containers, c)
		return true, nil
	})
	return p, err
}
