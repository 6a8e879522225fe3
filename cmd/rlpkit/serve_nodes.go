package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/rlpkit/rlpkit/limit/redis"
)

// nodeChanged is the breaker's OnNodeChange, on a Redis Cluster: each
// master's outage and recovery is logged once. The store stays reachable
// (and the server ready) while another master answers.
func (h *storeHealth) nodeChanged(node string, up bool, err error) {
	if up {
		h.log.Info("redis master reachable again, or replaced by its replica: calls for its slots answer", "store", h.kind, "node", node)
		return
	}
	h.log.Error("redis master unreachable; calls for its slots answer Unavailable at once until it answers or its replica is promoted", "store", h.kind, "node", node, "err", err.Error())
}

// nodeCollector exposes the health of a Redis Cluster's masters, as the
// store's breaker knows them, one gauge per master.
type nodeCollector struct{ breaker *redis.Breaker }

var nodeReachable = prometheus.NewDesc("rlpkit_store_node_reachable",
	"1 while a Redis Cluster master answers, 0 while the calls for its slots fail at once (until it answers or a replica is promoted in its place); by the master's address.",
	[]string{"node"}, nil)

// Describe implements prometheus.Collector.
func (nodeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- nodeReachable }

// Collect implements prometheus.Collector.
func (c nodeCollector) Collect(ch chan<- prometheus.Metric) {
	for _, n := range c.breaker.Nodes() {
		v := 0.0
		if n.Err == nil {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(nodeReachable, prometheus.GaugeValue, v, n.Addr)
	}
}
