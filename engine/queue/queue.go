// Package queue is the Azure Queue service's data model over an engine
// store: queues with metadata, and messages with visibility, expiry,
// dequeue counts and pop receipts.
package queue

import (
	"github.com/tablelab/tablelab/engine"
)

// Service is the queue service of one store.
type Service struct {
	store *engine.Store
}

// New returns the queue service kept in store, creating its tables if
// missing. The store is the service's own, made with engine.Options.OpenKeys.
func New(store *engine.Store) (*Service, error) {
	return &Service{store: store}, nil
}
