package main

import (
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// httpHandler serves serve's HTTP port:
//
//   - /metrics: the Prometheus metrics;
//   - /healthz: 200 "ok" while the process serves (Kubernetes' liveness);
//   - /readyz: 200 when the limits are loaded and the store answers, else
//     503 with the reason (Kubernetes' readiness). The limits are loaded
//     before the port opens, and a failed reload keeps them, so only the
//     store can make it fail.
func httpHandler(m *serveMetrics, store *storeHealth) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if err := store.ready(r.Context()); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %s store unreachable: %v\n", store.kind, err)
			return
		}
		fmt.Fprintf(w, "ready: limits loaded, %s store reachable\n", store.kind)
	})
	return mux
}
