package blob

import (
	"strings"
	"time"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// collect carries out the garbage record g/<id> of a container's
// partition and then removes it. A record names a blob and what a commit
// took from it: the block list it replaced, the stage of uncommitted
// blocks it ended, and data ids of its own (a block staged again). Data
// the blob refers to now is kept; everything else goes. Nothing the
// record names can come back into use — a commit takes blocks only from
// the blob's current list and its current stage — so collecting needs no
// lock and may run twice.
func (s *Service) collect(gen, id string) error {
	g, err := s.get(blobsTable, gen, "g/"+id)
	if err != nil || g == nil {
		return err
	}
	keep := map[string]bool{}
	if name := propStr(g, "B"); name != "" {
		cur, err := s.get(blobsTable, gen, "b/"+name)
		if err != nil {
			return err
		}
		if cur != nil {
			segs, err := s.readList(gen, cur)
			if err != nil {
				return err
			}
			for _, sg := range segs {
				keep[sg.data] = true
			}
		}
	}
	drop := func(data string) error {
		if keep[data] {
			return nil
		}
		return s.deleteData(data)
	}
	old, err := s.readList(gen, g)
	if err != nil {
		return err
	}
	for _, sg := range old {
		if err := drop(sg.data); err != nil {
			return err
		}
	}
	if list := propStr(g, pListID); list != "" {
		if err := s.deletePrefix(gen, "l/"+list+"/", nil); err != nil {
			return err
		}
	}
	if x := propStr(g, "X"); x != "" {
		if err := drop(x); err != nil {
			return err
		}
	}
	if stage := propStr(g, "S"); stage != "" {
		err := s.deletePrefix(gen, "k/"+stage+"/", func(e *engine.Entity) error { return drop(propStr(e, "D")) })
		if err != nil {
			return err
		}
	}
	return s.deleteKeys(blobsTable, gen, []string{"g/" + id})
}

// deletePrefix deletes the entities of a container's partition whose
// RowKeys start with prefix, calling each first, when not nil, on each.
func (s *Service) deletePrefix(gen, prefix string, each func(*engine.Entity) error) error {
	var keys []string
	err := s.scan(blobsTable, gen, prefix, "", func(e *engine.Entity) (bool, error) {
		keys = append(keys, e.RowKey)
		if each != nil {
			return true, each(e)
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	return s.deleteKeys(blobsTable, gen, keys)
}

// collectContainer removes everything of a deleted container: its
// garbage records first, as for a live one, then its blobs, list pages,
// staged blocks and uploads with the data they refer to, and last the
// record of its deletion.
func (s *Service) collectContainer(gen string) error {
	var gcs []string
	err := s.scan(blobsTable, gen, "g/", "", func(e *engine.Entity) (bool, error) {
		gcs = append(gcs, strings.TrimPrefix(e.RowKey, "g/"))
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, id := range gcs {
		if err := s.collect(gen, id); err != nil {
			return err
		}
	}
	err = s.deletePrefix(gen, "", func(e *engine.Entity) error {
		switch e.RowKey[:2] {
		case "b/", "l/":
			segs, err := decodeSegments(unpackParts(nil, e, 'L'))
			if err != nil {
				return err
			}
			for _, sg := range segs {
				if err := s.deleteData(sg.data); err != nil {
					return err
				}
			}
		case "k/":
			return s.deleteData(propStr(e, "D"))
		case "p/":
			return s.deleteData(e.RowKey[2:])
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.deleteKeys(containersTable, containersPK, []string{"g/" + gen})
}

// recover finishes what a previous run of the store left undone: deleted
// containers not yet emptied, uploads that never committed, garbage
// records not yet collected. It runs before the service takes requests,
// when no upload can be under way.
func (s *Service) recover() error {
	var dead, live []string
	err := s.scan(containersTable, containersPK, "", "", func(e *engine.Entity) (bool, error) {
		switch {
		case strings.HasPrefix(e.RowKey, "g/"):
			dead = append(dead, e.RowKey[2:])
		case strings.HasPrefix(e.RowKey, "c/"):
			live = append(live, propStr(e, "Gen"))
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for _, gen := range dead {
		if err := s.collectContainer(gen); err != nil {
			return err
		}
	}
	for _, gen := range live {
		err := s.deletePrefix(gen, "p/", func(e *engine.Entity) error { return s.deleteData(e.RowKey[2:]) })
		if err != nil {
			return err
		}
		var gcs []string
		err = s.scan(blobsTable, gen, "g/", "", func(e *engine.Entity) (bool, error) {
			gcs = append(gcs, e.RowKey[2:])
			return true, nil
		})
		if err != nil {
			return err
		}
		for _, id := range gcs {
			if err := s.collect(gen, id); err != nil {
				return err
			}
		}
	}
	return nil
}

// DiscardStaged discards the uncommitted blocks of every blob that has
// staged none for longer than age (the service's rule is StagedLifetime),
// as the service does with blocks no commit took. It returns how many
// blobs' stages it discarded.
func (s *Service) DiscardStaged(age time.Duration) (int, error) {
	cutoff := s.store.Now().Add(-age)
	var gens []string
	err := s.scan(containersTable, containersPK, "c/", "", func(e *engine.Entity) (bool, error) {
		gens = append(gens, propStr(e, "Gen"))
		return true, nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, gen := range gens {
		var stale []*engine.Entity
		err := s.scan(blobsTable, gen, "s/", "", func(e *engine.Entity) (bool, error) {
			if e.Timestamp < edm.TicksOf(cutoff) {
				stale = append(stale, e)
			}
			return true, nil
		})
		if err != nil {
			return n, err
		}
		for _, st := range stale {
			id := newID()
			s.mu.Lock()
			_, err := s.store.Batch(blobsTable, []engine.Op{
				// The stage's ETag holds it to the state just read: a
				// block staged since keeps it.
				{Kind: engine.Delete, Entity: st, IfMatch: st.ETag()},
				{Kind: engine.Insert, Entity: &engine.Entity{PartitionKey: gen, RowKey: "g/" + id, Properties: []engine.Property{
					{Name: "S", Value: edm.StringValue(propStr(st, "Gen"))},
				}}},
			})
			s.mu.Unlock()
			if svcerr.Is(err, svcerr.UpdateConditionNotSatisfied) || svcerr.Is(err, svcerr.ResourceNotFound) {
				continue
			}
			if err != nil {
				return n, err
			}
			if err := s.collect(gen, id); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}
