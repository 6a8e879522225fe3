package main

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/statsd_exporter/pkg/mapper"
)

// TestPrometheusResponseTimeMilliseconds: the response time sums seconds,
// or milliseconds with PROMETHEUS_RESPONSE_TIME_AS_MILLISECONDS (under the
// same name, as the reference's built-in mapping without its scale), unless
// PROMETHEUS_MAPPER_YAML is set, which the reference's variable leaves
// alone.
func TestPrometheusResponseTimeMilliseconds(t *testing.T) {
	mapped := &mapper.MetricMapper{}
	if err := mapped.InitFromYAMLString("mappings: []\n"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		millis bool
		m      *mapper.MetricMapper
		want   float64
	}{
		{"seconds", false, nil, 0.003},
		{"milliseconds", true, nil, 3},
		{"mapped, milliseconds", true, mapped, 3},
	} {
		if got := responseTimeMillis(settings{prometheusRTMillis: true, prometheusMapper: "m.yaml"}); got {
			t.Error("with PROMETHEUS_MAPPER_YAML the response time is in milliseconds, want seconds")
		}
		st := newStats(10)
		st.call(1*time.Millisecond, nil, false, false)
		st.call(2*time.Millisecond, nil, false, false)
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(newPromCollector(st, tc.m, tc.millis))
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		got := -1.0
		for _, mf := range mfs {
			if mf.GetName() == "ratelimit_service_response_time_seconds_sum" {
				got = mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: ratelimit_service_response_time_seconds_sum = %v, want %v", tc.name, got, tc.want)
		}
	}
}
