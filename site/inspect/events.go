package inspect

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Prefix is where Handler answers on the site.
const Prefix = "/_tablelab/inspect/"

// Handler answers the inspector page under Prefix:
//
//	GET events         server-sent events: each record's summary as it
//	                   happens, after those the ring holds (or those after
//	                   Last-Event-ID, on a reconnection)
//	GET requests/{id}  one record with its headers and bodies, as JSON
//
// Its requests must come from the local machine; the site checks that
// before it hands them over.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+Prefix+"events", h.serveEvents)
	mux.HandleFunc("GET "+Prefix+"requests/{id}", h.serveRecord)
	return mux
}

// heartbeat is how often an idle event stream sends a comment, so that a
// watcher gone without closing its connection is noticed and
// unsubscribed, and proxies keep the stream open.
const heartbeat = 15 * time.Second

func (h *Hub) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	after, _ := strconv.ParseUint(r.Header.Get("Last-Event-ID"), 10, 64)
	s, backlog := h.subscribe(after)
	defer h.unsubscribe(s)
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("Cache-Control", "no-store")
	hdr.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	// The stream ends with the site's server (its requests' context ends
	// on shutdown), or when the watcher goes.
	if _, err := w.Write([]byte("retry: 2000\n\n")); err != nil {
		return
	}
	for _, rec := range backlog {
		if writeEvent(w, rec) != nil {
			return
		}
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			if _, err := w.Write([]byte(": alive\n\n")); err != nil {
				return
			}
		case rec := <-s.c:
			if n := s.missed.Swap(0); n > 0 {
				// The page says how many it did not get: a watcher that
				// falls behind never slows a request.
				if _, err := w.Write([]byte("event: missed\ndata: " + strconv.FormatInt(n, 10) + "\n\n")); err != nil {
					return
				}
			}
			if writeEvent(w, rec) != nil {
				return
			}
			// Whatever else is waiting goes in the same flush.
			for drained := false; !drained; {
				select {
				case rec := <-s.c:
					if writeEvent(w, rec) != nil {
						return
					}
				default:
					drained = true
				}
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// writeEvent writes rec's summary as one event whose id is rec's, so that
// a reconnecting EventSource says where it stopped.
func writeEvent(w http.ResponseWriter, rec *Record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(b)+32)
	buf = append(buf, "id: "...)
	buf = strconv.AppendUint(buf, rec.ID, 10)
	buf = append(buf, "\ndata: "...)
	buf = append(buf, b...)
	buf = append(buf, "\n\n"...)
	_, err = w.Write(buf)
	return err
}

// detail is a record with its exchange, as requests/{id} answers it.
type detail struct {
	*Record
	Exchange
	BodyLimit int `json:"bodyLimit"`
}

func (h *Hub) serveRecord(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "the request id must be a number", http.StatusBadRequest)
		return
	}
	rec, ok := h.Lookup(id)
	if !ok {
		http.Error(w, "the inspector no longer holds request "+strconv.FormatUint(id, 10)+": it keeps the last "+strconv.Itoa(len(h.ring)), http.StatusNotFound)
		return
	}
	b, err := json.Marshal(detail{Record: rec, Exchange: rec.Exchange, BodyLimit: h.bodyMax})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
}
