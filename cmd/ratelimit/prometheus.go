package main

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// promCollector exposes the statistics as Prometheus metrics, named after
// the reference's statsd names with '.' as '_':
//
//	ratelimit_service_rate_limit_<stat>_total{domain, key}   per rule (key: the path below the domain;
//	                                                         _override for every limit override, _other for the overflow)
//	ratelimit_service_config_load_success_total, ..._config_load_error_total
//	ratelimit_service_global_shadow_mode_total
//	ratelimit_service_call_should_rate_limit_redis_error_total, ..._service_error_total
//	ratelimit_service_response_time_seconds_sum, ..._count
type promCollector struct {
	stats *stats
	rule  [len(ruleStatNames)]*prometheus.Desc
	svc   map[string]*prometheus.Desc
	rtSum *prometheus.Desc
	rtCnt *prometheus.Desc
}

func newPromCollector(st *stats) *promCollector {
	c := &promCollector{stats: st, svc: map[string]*prometheus.Desc{}}
	for i, n := range ruleStatNames {
		c.rule[i] = prometheus.NewDesc("ratelimit_service_rate_limit_"+n+"_total", "Hits per rate limit rule: "+n+".", []string{"domain", "key"}, nil)
	}
	for _, n := range []string{"config_load_success", "config_load_error", "global_shadow_mode", "call_should_rate_limit_redis_error", "call_should_rate_limit_service_error"} {
		c.svc["ratelimit.service."+strings.Replace(n, "call_should_rate_limit_", "call.should_rate_limit.", 1)] =
			prometheus.NewDesc("ratelimit_service_"+n+"_total", "ratelimit.service."+n, nil, nil)
	}
	c.rtSum = prometheus.NewDesc("ratelimit_service_response_time_seconds_sum", "Total time of ShouldRateLimit calls.", nil, nil)
	c.rtCnt = prometheus.NewDesc("ratelimit_service_response_time_seconds_count", "ShouldRateLimit calls.", nil, nil)
	return c
}

// Describe implements prometheus.Collector.
func (c *promCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.rule {
		ch <- d
	}
	for _, d := range c.svc {
		ch <- d
	}
	ch <- c.rtSum
	ch <- c.rtCnt
}

// Collect implements prometheus.Collector.
func (c *promCollector) Collect(ch chan<- prometheus.Metric) {
	for name, d := range c.svc {
		var v uint64
		switch name {
		case "ratelimit.service.config_load_success":
			v = c.stats.configLoadSuccess.Load()
		case "ratelimit.service.config_load_error":
			v = c.stats.configLoadError.Load()
		case "ratelimit.service.global_shadow_mode":
			v = c.stats.globalShadowMode.Load()
		case "ratelimit.service.call.should_rate_limit.redis_error":
			v = c.stats.redisError.Load()
		case "ratelimit.service.call.should_rate_limit.service_error":
			v = c.stats.serviceError.Load()
		}
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
	for l, v := range c.stats.rules.byLabel() {
		for i := range ruleStatNames {
			ch <- prometheus.MustNewConstMetric(c.rule[i], prometheus.CounterValue, float64(v[i]), l.domain, l.key)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.rtSum, prometheus.CounterValue, float64(c.stats.responseTimeSum.Load())/1e9)
	ch <- prometheus.MustNewConstMetric(c.rtCnt, prometheus.CounterValue, float64(c.stats.calls.Load()))
}
