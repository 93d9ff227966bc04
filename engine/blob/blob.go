// Package blob is the model of the Azure Blob service: containers and block
// blobs, their properties and metadata, staged blocks and committed block
// lists, kept as entities of an engine.Store of the service's own.
package blob

import "github.com/tablelab/tablelab/engine"

// Service is the Blob service over one store. It is safe for concurrent use.
type Service struct {
	store *engine.Store
}

// New returns the Blob service kept in store, creating its tables if they
// are missing. The store must have been made with OpenKeys.
func New(store *engine.Store) (*Service, error) {
	return &Service{store: store}, nil
}
