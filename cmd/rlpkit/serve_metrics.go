package main

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc/codes"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rls"
)

// unconfiguredDomain labels the requests whose domain has no limits: clients
// choose domains freely, and a label value per domain sent would let them
// grow the metrics without bound.
const unconfiguredDomain = "(unconfigured)"

// serveMetrics are the Prometheus metrics of "rlpkit serve", in a registry of
// their own with the Go and process collectors.
type serveMetrics struct {
	registry     *prometheus.Registry
	decisions    *prometheus.CounterVec
	errors       *prometheus.CounterVec
	storeLatency prometheus.Histogram
	storeErrors  prometheus.Counter
	reloads      *prometheus.CounterVec
	limits       prometheus.Gauge
	reloadOK     prometheus.Gauge
}

func newServeMetrics() *serveMetrics {
	m := &serveMetrics{
		registry: prometheus.NewRegistry(),
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_rls_decisions_total",
			Help: "ShouldRateLimit calls answered, by domain (" + unconfiguredDomain + " for domains without limits) and overall code (OK, OVER_LIMIT).",
		}, []string{"domain", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_rls_errors_total",
			Help: "ShouldRateLimit calls answered with a gRPC error, by domain and gRPC code (InvalidArgument, Unavailable).",
		}, []string{"domain", "code"}),
		storeLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rlpkit_store_update_duration_seconds",
			Help:    "Time the counter store took to apply one request's updates, errors included.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 4, 10),
		}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlpkit_store_errors_total",
			Help: "Counter store updates that failed.",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_limits_reloads_total",
			Help: "Reloads of changed inputs, by result (success, failure); a failure keeps the limits in force.",
		}, []string{"result"}),
		limits: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlpkit_limits",
			Help: "Limits in force.",
		}),
		reloadOK: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "rlpkit_limits_last_reload_success",
			Help: "1 when the inputs in force are the latest ones, 0 when the last reload failed.",
		}),
	}
	m.registry.MustRegister(m.decisions, m.errors, m.storeLatency, m.storeErrors, m.reloads, m.limits, m.reloadOK,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reloads.WithLabelValues("success")
	m.reloads.WithLabelValues("failure")
	return m
}

// handler serves the metrics on /metrics.
func (m *serveMetrics) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry}))
	return mux
}

// observe counts one answered call; it is rls.Options.Observe.
func (m *serveMetrics) observe(o rls.Outcome) {
	domain := o.Domain
	if !o.Configured {
		domain = unconfiguredDomain
	}
	if o.Code == codes.OK {
		m.decisions.WithLabelValues(domain, o.Overall.String()).Inc()
		return
	}
	m.errors.WithLabelValues(domain, o.Code.String()).Inc()
}

// loaded records limits put in force, at start or by a reload.
func (m *serveMetrics) loaded(n int) {
	m.limits.Set(float64(n))
	m.reloadOK.Set(1)
	m.reloads.WithLabelValues("success").Inc()
}

// reloadFailed records a reload that kept the limits in force.
func (m *serveMetrics) reloadFailed() {
	m.reloadOK.Set(0)
	m.reloads.WithLabelValues("failure").Inc()
}

// instrument wraps s to time its updates, count its errors and log them, at
// most one line per storeLogInterval while failing and one line when it
// answers again.
func (m *serveMetrics) instrument(s counter.Store, log *slog.Logger) counter.Store {
	return &instrumentedStore{Store: s, m: m, log: log}
}

const storeLogInterval = 5 * time.Second

type instrumentedStore struct {
	counter.Store
	m          *serveMetrics
	log        *slog.Logger
	failing    atomic.Bool
	lastLog    atomic.Int64 // Unix nanoseconds of the last error logged
	suppressed atomic.Int64 // errors not logged since
}

func (s *instrumentedStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	start := time.Now()
	err := s.Store.Update(ctx, now, updates, decisions)
	end := time.Now()
	s.m.storeLatency.Observe(end.Sub(start).Seconds())
	if err == nil {
		if s.failing.Load() && s.failing.CompareAndSwap(true, false) {
			s.log.Info("store answering again")
		}
		return nil
	}
	s.m.storeErrors.Inc()
	s.failing.Store(true)
	last := s.lastLog.Load()
	if end.UnixNano()-last < int64(storeLogInterval) || !s.lastLog.CompareAndSwap(last, end.UnixNano()) {
		s.suppressed.Add(1)
		return err
	}
	s.log.Error("store update failed; answering Unavailable", "err", err.Error(), "suppressed", s.suppressed.Swap(0))
	return err
}
