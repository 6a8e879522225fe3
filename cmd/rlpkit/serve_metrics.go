package main

import (
	"context"
	"log/slog"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"google.golang.org/grpc/codes"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rls"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// unconfiguredDomain labels the requests whose domain has no limits: clients
// choose domains freely, and a label value per domain sent would let them
// grow the metrics without bound.
const unconfiguredDomain = "(unconfigured)"

// Limit labels that are not a limit's name.
const (
	unnamedLimit  = "(unnamed)"  // limits without a name in the limits file
	overrideLimit = "(override)" // a descriptor's own limit override
)

// serveMetrics are the Prometheus metrics of "rlpkit serve", in a registry of
// their own with the Go and process collectors.
//
// The per-limit counters (rlpkit_limit_*) are envoyproxy/ratelimit's
// total_hits, within_limit, near_limit and over_limit, counted in hits
// (hits_addend) as it counts them, plus the hits a failed store could not
// decide, labelled by domain and limit name only: descriptor values, which
// clients choose, never become labels. Since rlpkit consumes nothing from a
// request that goes over, all its hits count as over the limit that refused
// them (envoyproxy/ratelimit counts the part below the limit as near); the
// other limits of that request count them as within (and near), as it does.
type serveMetrics struct {
	registry       *prometheus.Registry
	nearRatio      float64
	decisions      *prometheus.CounterVec
	errors         *prometheus.CounterVec
	storeLatency   prometheus.Histogram
	storeErrors    prometheus.Counter
	storeUp        prometheus.Gauge
	reloads        *prometheus.CounterVec
	limits         prometheus.Gauge
	reloadOK       prometheus.Gauge
	limitHits      *prometheus.CounterVec
	limitWithin    *prometheus.CounterVec
	limitNear      *prometheus.CounterVec
	limitOver      *prometheus.CounterVec
	limitStoreErrs *prometheus.CounterVec
	checkReport    checkReportMetrics
}

func newServeMetrics(nearRatio float64) *serveMetrics {
	perLimit := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"domain", "limit"})
	}
	gauge := func(name, help string) prometheus.Gauge {
		return prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	}
	m := &serveMetrics{
		registry:  prometheus.NewRegistry(),
		nearRatio: nearRatio,
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_rls_decisions_total",
			Help: "ShouldRateLimit calls answered, by domain (" + unconfiguredDomain + " for domains without limits) and overall code (OK, OVER_LIMIT).",
		}, []string{"domain", "code"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_rls_errors_total",
			Help: "ShouldRateLimit calls answered with a gRPC error, by domain and gRPC code (InvalidArgument, Unavailable; Canceled and DeadlineExceeded when the caller gave up).",
		}, []string{"domain", "code"}),
		storeLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "rlpkit_store_update_duration_seconds",
			Help:    "Time the counter store took to apply one request's updates, errors included.",
			Buckets: prometheus.ExponentialBuckets(10e-6, 4, 10),
		}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "rlpkit_store_errors_total",
			Help: "Counter store updates that failed (not those whose caller gave up).",
		}),
		storeUp: gauge("rlpkit_store_reachable", "1 while the counter store answers, 0 while it does not."),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rlpkit_limits_reloads_total",
			Help: "Reloads of changed inputs, by result (success, failure); a failure keeps the limits in force.",
		}, []string{"result"}),
		limits: gauge("rlpkit_limits", "Limits in force."),
		reloadOK: gauge("rlpkit_limits_last_reload_success",
			"1 when the inputs in force are the latest ones, 0 when the last reload failed."),
		limitHits: perLimit("rlpkit_limit_hits_total",
			"Hits (hits_addend) evaluated against a limit, by domain and limit name ("+unnamedLimit+", "+overrideLimit+"): envoyproxy/ratelimit's total_hits."),
		limitWithin: perLimit("rlpkit_limit_within_limit_total",
			"Hits a limit admitted: envoyproxy/ratelimit's within_limit."),
		limitNear: perLimit("rlpkit_limit_near_limit_total",
			"Hits a limit admitted above --near-limit-ratio of its capacity: envoyproxy/ratelimit's near_limit."),
		limitOver: perLimit("rlpkit_limit_over_limit_total",
			"Hits a limit refused: envoyproxy/ratelimit's over_limit."),
		limitStoreErrs: perLimit("rlpkit_limit_store_errors_total",
			"Hits left undecided because the counter store failed."),
	}
	m.checkReport = newCheckReportMetrics()
	m.registry.MustRegister(m.decisions, m.errors, m.storeLatency, m.storeErrors, m.storeUp, m.reloads, m.limits, m.reloadOK,
		m.limitHits, m.limitWithin, m.limitNear, m.limitOver, m.limitStoreErrs, m.checkReport.calls, m.checkReport.reported,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reloads.WithLabelValues("success")
	m.reloads.WithLabelValues("failure")
	return m
}

// observe counts one answered call; it is rls.Options.Observe.
func (m *serveMetrics) observe(o rls.Outcome) {
	domain := o.Domain
	if !o.Configured {
		domain = unconfiguredDomain
	}
	if o.Method != "" {
		m.observeCheckReport(domain, o)
		return
	}
	switch o.Code {
	case codes.OK:
		m.decisions.WithLabelValues(domain, o.Overall.String()).Inc()
		for _, c := range o.Counters {
			m.countLimit(domain, o.Overall == rlsmsg.CodeOverLimit, c)
		}
	case codes.Unavailable:
		m.errors.WithLabelValues(domain, o.Code.String()).Inc()
		for _, c := range o.Counters {
			cost := float64(c.Cost)
			m.limitHits.WithLabelValues(domain, limitLabel(c)).Add(cost)
			m.limitStoreErrs.WithLabelValues(domain, limitLabel(c)).Add(cost)
		}
	default:
		m.errors.WithLabelValues(domain, o.Code.String()).Inc()
	}
}

// countLimit counts one counter's hits. rejected says the request went over
// some limit, so the admitted counters are checks without its hits.
func (m *serveMetrics) countLimit(domain string, rejected bool, c limit.Counted) {
	name := limitLabel(c)
	cost := float64(c.Cost)
	m.limitHits.WithLabelValues(domain, name).Add(cost)
	if !c.Decision.Allowed {
		m.limitOver.WithLabelValues(domain, name).Add(cost)
		return
	}
	m.limitWithin.WithLabelValues(domain, name).Add(cost)
	after := c.Decision.Used
	if rejected {
		after += cost
	}
	before := after - cost
	threshold := math.Floor(float64(c.Limit.RequestsPerUnit) * m.nearRatio)
	if after > threshold {
		m.limitNear.WithLabelValues(domain, name).Add(math.Round(min(cost, after-max(threshold, before))))
	}
}

// limitLabel is the limit label of a counter: its limit's name, or what
// stands for it.
func limitLabel(c limit.Counted) string {
	switch {
	case c.Override:
		return overrideLimit
	case c.Name == "":
		return unnamedLimit
	}
	return c.Name
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

// storeReachable records a change of the store's state.
func (m *serveMetrics) storeReachable(up bool) {
	v := 0.0
	if up {
		v = 1
	}
	m.storeUp.Set(v)
}

// instrument wraps s to time its updates and count its errors (the store's
// state is its breaker's, see storeHealth). An update whose caller gave up
// is not a store failure: it is not counted.
func instrument(s counter.Store, m *serveMetrics, log *slog.Logger) counter.Store {
	return &instrumentedStore{Store: s, m: m, log: log}
}

type instrumentedStore struct {
	counter.Store
	m   *serveMetrics
	log *slog.Logger
}

func (s *instrumentedStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	start := time.Now()
	err := s.Store.Update(ctx, now, updates, decisions)
	s.m.storeLatency.Observe(time.Since(start).Seconds())
	if err != nil && ctx.Err() != nil {
		s.log.DebugContext(ctx, "store update abandoned by its caller", "err", err.Error())
		return err
	}
	if err != nil {
		s.m.storeErrors.Inc()
		s.log.DebugContext(ctx, "store update failed", "err", err.Error())
	}
	return err
}
