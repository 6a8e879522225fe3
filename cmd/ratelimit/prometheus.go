package main

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/statsd_exporter/pkg/mapper"
)

// promCollector exposes the statistics as Prometheus metrics, named after
// the reference's statsd names with '.' as '_':
//
//	ratelimit_service_rate_limit_<stat>_total{domain, key}   per rule (key: the path below the domain;
//	                                                         _override for every limit override, _other for the overflow)
//	ratelimit_service_config_load_success_total, ..._config_load_error_total
//	ratelimit_service_global_shadow_mode_total
//	ratelimit_service_rate_limit_domain_not_found_total{domain}  (at most RLPKIT_STATS_MAX_KEYS domains, then _other)
//	ratelimit_service_call_should_rate_limit_redis_error_total, ..._service_error_total
//	ratelimit_service_response_time_seconds_sum, ..._count
//
// With USE_PROMETHEUS=true the counters are named and labelled by
// statsd_exporter mapping rules instead, applied to their statsd names:
// PROMETHEUS_MAPPER_YAML's, or the reference's built-in ones
// (defaultMapperYAML); the response time keeps its own two series.
// Without PROMETHEUS_MAPPER_YAML, PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS=true
// sums the response time in milliseconds under the same name, as the
// reference's built-in mapping does without its scale.
type promCollector struct {
	stats  *stats
	mapper *mapper.MetricMapper // nil without PROMETHEUS_MAPPER_YAML
	rule   [len(ruleStatNames)]*prometheus.Desc
	svc    map[string]*prometheus.Desc
	nf     *prometheus.Desc
	rtSum  *prometheus.Desc
	rtCnt  *prometheus.Desc
	rtUnit float64 // nanoseconds per unit of rtSum
}

// responseTimeMillis reports whether the response time is summed in
// milliseconds: PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS=true with the
// built-in mapping; a PROMETHEUS_MAPPER_YAML file's rules keep seconds.
func responseTimeMillis(s settings) bool {
	return s.prometheusRTMillis && s.prometheusMapper == ""
}

func newPromCollector(st *stats, m *mapper.MetricMapper, rtMillis bool) *promCollector {
	c := &promCollector{stats: st, mapper: m, svc: map[string]*prometheus.Desc{}, rtUnit: 1e9}
	if rtMillis {
		c.rtUnit = 1e6
	}
	for i, n := range ruleStatNames {
		c.rule[i] = prometheus.NewDesc("ratelimit_service_rate_limit_"+n+"_total", "Hits per rate limit rule: "+n+".", []string{"domain", "key"}, nil)
	}
	for _, n := range []string{"config_load_success", "config_load_error", "global_shadow_mode", "call_should_rate_limit_redis_error", "call_should_rate_limit_service_error"} {
		c.svc["ratelimit.service."+strings.Replace(n, "call_should_rate_limit_", "call.should_rate_limit.", 1)] =
			prometheus.NewDesc("ratelimit_service_"+n+"_total", "ratelimit.service."+n, nil, nil)
	}
	c.nf = prometheus.NewDesc("ratelimit_service_rate_limit_domain_not_found_total", "Descriptors looked up in a domain without configuration.", []string{"domain"}, nil)
	c.rtSum = prometheus.NewDesc("ratelimit_service_response_time_seconds_sum", "Total time of ShouldRateLimit calls.", nil, nil)
	c.rtCnt = prometheus.NewDesc("ratelimit_service_response_time_seconds_count", "ShouldRateLimit calls.", nil, nil)
	return c
}

// Describe implements prometheus.Collector; with a mapper the collector
// is unchecked, its names known only from the statistics.
func (c *promCollector) Describe(ch chan<- *prometheus.Desc) {
	if c.mapper != nil {
		return
	}
	for _, d := range c.rule {
		ch <- d
	}
	for _, d := range c.svc {
		ch <- d
	}
	ch <- c.nf
	ch <- c.rtSum
	ch <- c.rtCnt
}

// serviceCounters returns the service's counters by statsd name, each
// domain's domain_not_found included.
func (c *promCollector) serviceCounters() map[string]uint64 {
	m := map[string]uint64{
		"ratelimit.service.config_load_success":                  c.stats.configLoadSuccess.Load(),
		"ratelimit.service.config_load_error":                    c.stats.configLoadError.Load(),
		"ratelimit.service.global_shadow_mode":                   c.stats.globalShadowMode.Load(),
		"ratelimit.service.call.should_rate_limit.redis_error":   c.stats.redisError.Load(),
		"ratelimit.service.call.should_rate_limit.service_error": c.stats.serviceError.Load(),
		requestsStat: c.stats.calls.Load(),
	}
	for _, s := range c.stats.notFound.samples() {
		m[s.name] = s.value
	}
	return m
}

// Collect implements prometheus.Collector.
func (c *promCollector) Collect(ch chan<- prometheus.Metric) {
	if c.mapper != nil {
		c.collectMapped(ch)
		ch <- prometheus.MustNewConstMetric(c.rtSum, prometheus.CounterValue, float64(c.stats.responseTimeSum.Load())/c.rtUnit)
		ch <- prometheus.MustNewConstMetric(c.rtCnt, prometheus.CounterValue, float64(c.stats.calls.Load()))
		return
	}
	counters := c.serviceCounters()
	for name, d := range c.svc {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(counters[name]))
	}
	for domain, v := range c.stats.notFound.byDomain() {
		ch <- prometheus.MustNewConstMetric(c.nf, prometheus.CounterValue, float64(v), domain)
	}
	for l, v := range c.stats.rules.byLabel() {
		for i := range ruleStatNames {
			ch <- prometheus.MustNewConstMetric(c.rule[i], prometheus.CounterValue, float64(v[i]), l.domain, l.key)
		}
	}
	ch <- prometheus.MustNewConstMetric(c.rtSum, prometheus.CounterValue, float64(c.stats.responseTimeSum.Load())/c.rtUnit)
	ch <- prometheus.MustNewConstMetric(c.rtCnt, prometheus.CounterValue, float64(c.stats.calls.Load()))
}
