package api

import (
	"sync"

	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/edm"
	"github.com/tablelab/tablelab/engine/svcerr"
)

// settingsTable is the table of the settings store that holds, per
// account, the service's properties.
const settingsTable = "TableSettings"

// settings keeps what an account sets about its Table service — its
// properties, CORS rules among them — in a store of its own, so that they
// are exactly as durable as the data, and caches them, since every request
// from a browser page reads the CORS rules.
type settings struct {
	store *engine.Store
	mu    sync.Mutex
	props map[string]*Properties // by account; read-only once cached
}

func newSettings(store *engine.Store) *settings {
	if store == nil {
		store = engine.New(engine.Options{})
	}
	return &settings{store: store, props: map[string]*Properties{}}
}

// properties returns account's properties, the defaults until it sets any.
func (st *settings) properties(account string) (*Properties, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.props[account]; p != nil {
		return p, nil
	}
	p := defaultProperties()
	l, err := st.store.Get(settingsTable, account, "properties")
	switch {
	case err == nil:
		for _, prop := range l.Entity.Properties {
			if prop.Name == "Xml" {
				if p, err = ParseProperties([]byte(prop.Value.Str()), p); err != nil {
					return nil, svcerr.With(svcerr.InternalError, "the stored service properties are unreadable: "+err.Error())
				}
			}
		}
	case svcerr.Is(err, svcerr.TableNotFound), svcerr.Is(err, svcerr.ResourceNotFound):
	default:
		return nil, err
	}
	st.props[account] = p
	return p, nil
}

// setProperties stores p as account's properties; they hold once the
// write is durable.
func (st *settings) setProperties(account string, p *Properties) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.store.TableExists(settingsTable); !ok {
		if err := st.store.CreateTable(settingsTable); err != nil && !svcerr.Is(err, svcerr.TableAlreadyExists) {
			return err
		}
	}
	e := &engine.Entity{PartitionKey: account, RowKey: "properties",
		Properties: []engine.Property{{Name: "Xml", Value: edm.StringValue(string(p.AppendXML(nil)))}}}
	if _, err := st.store.Write(settingsTable, engine.Op{Kind: engine.InsertOrReplace, Entity: e}); err != nil {
		return err
	}
	st.props[account] = p
	return nil
}
