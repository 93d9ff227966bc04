//go:build !js

package main

import "net/http"

// copyTo writes the recorded answer to w.
func (r *recorder) copyTo(w http.ResponseWriter, method string) {
	for k, v := range r.hdr {
		w.Header()[k] = v
	}
	w.WriteHeader(r.status)
	if method != http.MethodHead {
		w.Write(r.body.Bytes())
	}
}
