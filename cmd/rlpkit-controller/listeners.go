package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/rlpkit/rlpkit/internal/serving"
)

// The controller serves its metrics and probes itself, rather than through
// controller-runtime's servers, whose timeouts cannot be set (a request's
// headers within 32 s, 90 s idle, no bound on reads, writes or
// connections): internal/serving's HTTPBounds, from the --http-* flags.

// addBoundsFlags defines the HTTP listeners' bounds on fs, into b, with
// internal/serving's defaults (the flags of "rlpkit serve").
func addBoundsFlags(fs *flag.FlagSet, b *serving.HTTPBounds) {
	h := serving.DefaultHTTP
	fs.DurationVar(&b.ReadHeader, "http-read-header-timeout", h.ReadHeader, "close a metrics or health connection whose request headers are not all read within this `duration`")
	fs.DurationVar(&b.Read, "http-read-timeout", h.Read, "the longest a metrics or health request may take to arrive (0: no bound)")
	fs.DurationVar(&b.Write, "http-write-timeout", h.Write, "the longest a metrics or health response may take, from the end of the request's headers (0: no bound)")
	fs.DurationVar(&b.Idle, "http-idle-timeout", h.Idle, "close a kept-alive metrics or health connection without a request for this long")
	fs.IntVar(&b.MaxConns, "http-max-connections", h.MaxConns, "the most connections open at once on each of the metrics and health ports (0: no bound)")
}

// checkBounds refuses 0 for the timeouts that close half-open connections
// and any negative bound, naming the flag.
func checkBounds(b serving.HTTPBounds) error {
	switch {
	case b.ReadHeader <= 0:
		return fmt.Errorf("--http-read-header-timeout %v: want more than 0", b.ReadHeader)
	case b.Idle <= 0:
		return fmt.Errorf("--http-idle-timeout %v: want more than 0", b.Idle)
	case b.Read < 0:
		return fmt.Errorf("--http-read-timeout %v: want 0 or more", b.Read)
	case b.Write < 0:
		return fmt.Errorf("--http-write-timeout %v: want 0 or more", b.Write)
	case b.MaxConns < 0:
		return fmt.Errorf("--http-max-connections %d: want 0 or more", b.MaxConns)
	}
	return nil
}

// metricsHandler serves controller-runtime's registry (its metrics and
// rlpkit_controller_*) at /metrics.
func metricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
	return mux
}

// probesHandler serves /healthz and /readyz (and their subpaths, one per
// check) as controller-runtime's probe server does.
func probesHandler(healthy, ready map[string]healthz.Checker) http.Handler {
	mux := http.NewServeMux()
	for path, checks := range map[string]map[string]healthz.Checker{"/healthz": healthy, "/readyz": ready} {
		h := http.StripPrefix(path, &healthz.Handler{Checks: checks})
		mux.Handle(path, h)
		mux.Handle(path+"/", h)
	}
	return mux
}

// boundedServer listens on addr and returns the manager's server of h
// there, within b; addr "0" is none.
func boundedServer(name, addr string, h http.Handler, b serving.HTTPBounds) (*manager.Server, error) {
	if addr == "0" || addr == "" {
		return nil, nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &manager.Server{Name: name, Server: serving.NewHTTPServer(h, b), Listener: serving.Limit(l, b.MaxConns),
		ShutdownTimeout: ptrTo(10 * time.Second)}, nil
}
