package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlpkit/rlpkit/limit/redis"
)

// nodeReachable is the per-master health of a Redis Cluster backend.
var nodeReachable = prometheus.NewDesc("ratelimit_redis_node_reachable",
	"1 while a Redis Cluster master answers, 0 while the calls for its slots fail at once (until it answers or a replica is promoted in its place); by store (redis, redis_per_second) and the master's address.",
	[]string{"store", "node"}, nil)

// nodeChanged is the OnNodeChange of the breaker of the Redis named store
// on a Cluster: each master's outage and recovery is logged once, at the
// levels of the store's (see changed). The store stays up while another
// master answers.
func (h *storeHealth) nodeChanged(store string) func(node string, up bool, err error) {
	return func(node string, up bool, err error) {
		if up {
			h.log.Warn("redis master reachable again, or replaced by its replica: calls for its slots answer", "store", store, "node", node)
			return
		}
		h.log.Error("redis master unreachable; calls for its slots fail at once until it answers or its replica is promoted", "store", store, "node", node, "err", err.Error())
	}
}

// watchNodes adds the masters breaker knows to the metrics, as store's.
func (h *storeHealth) watchNodes(store string, breaker *redis.Breaker) {
	h.nodesMu.Lock()
	defer h.nodesMu.Unlock()
	if h.breakers == nil {
		h.breakers = map[string]*redis.Breaker{}
	}
	h.breakers[store] = breaker
}

// Describe implements prometheus.Collector.
func (h *storeHealth) Describe(ch chan<- *prometheus.Desc) { ch <- nodeReachable }

// Collect implements prometheus.Collector: one gauge per Cluster master.
func (h *storeHealth) Collect(ch chan<- prometheus.Metric) {
	h.nodesMu.Lock()
	defer h.nodesMu.Unlock()
	for store, b := range h.breakers {
		for _, n := range b.Nodes() {
			v := 0.0
			if n.Err == nil {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(nodeReachable, prometheus.GaugeValue, v, store, n.Addr)
		}
	}
}
