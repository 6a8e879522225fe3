package controller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Metrics of the reconcile, served with controller-runtime's on the manager's metrics
// address (beside controller_runtime_reconcile_total and the work queue's).
var (
	syncDuration = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "rlpkit_controller_sync_duration_seconds",
		Help:    "Time of one Sync: read the caches, compile, write what changed.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 9),
	})
	writesTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "rlpkit_controller_writes_total",
		Help: "Write requests sent, by what they wrote: status (a policy's status), configmap_create, configmap_update, configmap_delete, dataplane_create, dataplane_update, dataplane_delete.",
	}, []string{"write"})
	objectsGauge = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "rlpkit_controller_objects",
		Help: "Objects read by the last Sync, by kind: Gateway, HTTPRoute, RateLimitPolicy (apim.kuadrant.io/v1alpha1), RateLimitPolicy.v1.kuadrant.io, TokenRateLimitPolicy.v1alpha1.kuadrant.io.",
	}, []string{"kind"})
	warningsGauge = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "rlpkit_controller_warnings",
		Help: "Warnings of the last Sync: policies not accepted or not enforced, routes and policies that apply to no request.",
	})
)

func init() {
	metrics.Registry.MustRegister(syncDuration, writesTotal, objectsGauge, warningsGauge)
}

// observe records one Sync in the metrics.
func observe(sum Summary, took time.Duration) {
	syncDuration.Observe(took.Seconds())
	writesTotal.WithLabelValues("status").Add(float64(sum.StatusPatches))
	writesTotal.WithLabelValues("configmap_create").Add(float64(sum.ConfigMapsCreated))
	writesTotal.WithLabelValues("configmap_update").Add(float64(sum.ConfigMapsUpdated))
	writesTotal.WithLabelValues("configmap_delete").Add(float64(sum.ConfigMapsDeleted))
	writesTotal.WithLabelValues("dataplane_create").Add(float64(sum.DataPlaneCreated))
	writesTotal.WithLabelValues("dataplane_update").Add(float64(sum.DataPlaneUpdated))
	writesTotal.WithLabelValues("dataplane_delete").Add(float64(sum.DataPlaneDeleted))
	objectsGauge.WithLabelValues("Gateway").Set(float64(sum.Gateways))
	objectsGauge.WithLabelValues("HTTPRoute").Set(float64(sum.Routes))
	objectsGauge.WithLabelValues("RateLimitPolicy").Set(float64(sum.Policies))
	objectsGauge.WithLabelValues("RateLimitPolicy.v1.kuadrant.io").Set(float64(sum.PoliciesV1))
	objectsGauge.WithLabelValues("TokenRateLimitPolicy.v1alpha1.kuadrant.io").Set(float64(sum.TokenPolicies))
	warningsGauge.Set(float64(len(sum.Warnings)))
}
