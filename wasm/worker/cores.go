package main

import (
	"github.com/tablelab/tablelab/engine"
	"github.com/tablelab/tablelab/engine/api"
	"github.com/tablelab/tablelab/engine/api/blobapi"
	"github.com/tablelab/tablelab/engine/api/queueapi"
	"github.com/tablelab/tablelab/engine/api/settings"
	"github.com/tablelab/tablelab/engine/blob"
	"github.com/tablelab/tablelab/engine/queue"
	"github.com/tablelab/tablelab/wasm/stores"
)

// core makes the protocol core of svc over store, which must have been
// made with OpenKeys for Blob and Queue.
func core(cfg config, svc stores.Service, store *engine.Store) (api.Service, error) {
	switch svc {
	case stores.Queue:
		q, err := queue.New(store)
		if err != nil {
			return nil, err
		}
		return queueapi.NewServer(q, queueapi.Options{Verifier: cfg.verifier()}), nil
	case stores.Blob:
		b, err := blob.New(store)
		if err != nil {
			return nil, err
		}
		return blobapi.NewServer(b, blobapi.Options{Verifier: cfg.verifier()}), nil
	}
	// Service properties and stored access policies live with the
	// isolate for now, not in a Durable Object of their own.
	return api.NewServer(store, api.Options{Verifier: cfg.verifier(), Settings: settings.New(nil)}), nil
}

// memoryCores makes the three services over stores in memory, indexed
// by stores.Service.
func memoryCores(cfg config) ([3]api.Service, error) {
	var cores [3]api.Service
	for i := range cores {
		svc := stores.Service(i)
		var err error
		cores[i], err = core(cfg, svc, engine.New(engine.Options{OpenKeys: svc != stores.Table}))
		if err != nil {
			return cores, err
		}
	}
	return cores, nil
}
