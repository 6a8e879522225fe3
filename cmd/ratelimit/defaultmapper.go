package main

import (
	"fmt"
	"strings"

	"github.com/prometheus/statsd_exporter/pkg/mapper"
)

// defaultMapperYAML is the mapping the reference's Prometheus sink applies
// when PROMETHEUS_MAPPER_YAML is not set, built here rule by rule: each
// per-rule statistic of a key of one level as
// ratelimit_service_rate_limit_<stat>{domain, key1}, of deeper keys as
// {domain, key1, key2} (the levels beyond the second not labelled), the
// call errors as ratelimit_service_should_rate_limit_error{err_type}, the
// requests as ratelimit_service_total_requests{grpc_method} and the
// configuration loads as ratelimit_service_config_load_success and _error.
// Other statistics keep statsd_exporter's escaped names.
func defaultMapperYAML() string {
	var b strings.Builder
	b.WriteString("mappings:\n")
	for _, stat := range ruleStatNames {
		name := "ratelimit_service_rate_limit_" + stat
		fmt.Fprintf(&b, "  - match: \"ratelimit.service.rate_limit.*.*.%s\"\n    name: %q\n    labels: {domain: \"$1\", key1: \"$2\"}\n", stat, name)
		fmt.Fprintf(&b, "  - match: '%s'\n    match_type: regex\n    name: %q\n    labels: {domain: \"$1\", key1: \"$2\", key2: \"$3\"}\n",
			`ratelimit\.service\.rate_limit\.([^.]*)\.([^.]*)\.([^.]*)(\..*)?\.`+stat, name)
	}
	b.WriteString(`  - match: "ratelimit.service.call.should_rate_limit.*"
    name: "ratelimit_service_should_rate_limit_error"
    match_metric_type: counter
    labels: {err_type: "$1"}
  - match: "ratelimit_server.*.total_requests"
    name: "ratelimit_service_total_requests"
    match_metric_type: counter
    labels: {grpc_method: "$1"}
`)
	for _, result := range []string{"success", "error"} {
		fmt.Fprintf(&b, "  - match: \"ratelimit.service.config_load_%s\"\n    name: \"ratelimit_service_config_load_%s\"\n    match_metric_type: counter\n", result, result)
	}
	return b.String()
}

// defaultMapper is the reference's built-in mapping (defaultMapperYAML).
func defaultMapper() (*mapper.MetricMapper, error) {
	m := &mapper.MetricMapper{}
	if err := m.InitFromYAMLString(defaultMapperYAML()); err != nil {
		return nil, fmt.Errorf("the built-in Prometheus mapping: %w", err)
	}
	return m, nil
}
