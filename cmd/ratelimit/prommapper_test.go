package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// PROMETHEUS_MAPPER_YAML names and labels the metrics by its
// statsd_exporter rules, as the reference does: the series Envoy Gateway's
// rate-limit dashboard reads exist.
func TestPrometheusMapper(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), `domain: harbor/quay/web
descriptors:
  - key: route
    value: r1
    descriptors:
      - key: rule
        rate_limit: {unit: hour, requests_per_unit: 1}
  - key: flat
    rate_limit: {unit: hour, requests_per_unit: 5}
`)
	env := baseEnv(root)
	env["USE_PROMETHEUS"] = "true"
	env["PROMETHEUS_ADDR"] = "127.0.0.1:0"
	env["PROMETHEUS_MAPPER_YAML"] = filepath.Join("testdata", "prometheus", "mapper.yaml")
	s := start(t, env)
	c := dialPlain(t, s)
	for range 2 {
		if _, err := c.call(t, "harbor/quay/web", "flat=x"); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range [][]string{{"route=r1", "rule=a"}, {"route=r1", "rule=a"}} {
		if _, err := callEntries(c, "harbor/quay/web", e...); err != nil {
			t.Fatal(err)
		}
	}
	_, body := get(t, "http://"+s.addrs.debug+"/metrics")
	for _, want := range []string{
		`ratelimit_service_rate_limit_harbor_quay_web_flat_total_hits 2`,
		`ratelimit_service_rate_limit_total_hits{domain="harbor/quay/web",key1="route_r1",key2="rule"} 2`,
		`ratelimit_service_rate_limit_over_limit{domain="harbor/quay/web",key1="flat"} 0`,
		`ratelimit_service_config_load{result="success"} 1`,
		`ratelimit_service_should_rate_limit_error{err_type="redis_error"} 0`,
		// Unmatched: escaped as statsd_exporter escapes names.
		`ratelimit_service_rate_limit_harbor_quay_web_flat_near_limit 0`,
	} {
		if !strings.Contains(body, want+"\n") {
			t.Errorf("/metrics lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "global_shadow_mode") || strings.Contains(body, "dropped") {
		t.Errorf("/metrics has the dropped statistic:\n%s", body)
	}
}

func TestPrometheusMapperBadFile(t *testing.T) {
	env := baseEnv(t.TempDir())
	env["USE_PROMETHEUS"] = "true"
	bad := filepath.Join(t.TempDir(), "m.yaml")
	writeFile(t, bad, "mappings:\n  - match: a.b\n    nmae: x\n")
	env["PROMETHEUS_MAPPER_YAML"] = bad
	var stderr syncBuffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if code := run(t.Context(), lookup, environ(env), &stderr, nil); code != 1 || !strings.Contains(stderr.String(), "PROMETHEUS_MAPPER_YAML="+bad) {
		t.Errorf("run = %d, stderr %q; want 1 naming PROMETHEUS_MAPPER_YAML", code, stderr.String())
	}
}

// callEntries sends one descriptor of entries "k=v".
func callEntries(s *server, domain string, entries ...string) (*rlsv3.RateLimitResponse, error) {
	d := &rlv3.RateLimitDescriptor{}
	for _, e := range entries {
		k, v, _ := strings.Cut(e, "=")
		d.Entries = append(d.Entries, &rlv3.RateLimitDescriptor_Entry{Key: k, Value: v})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.client.ShouldRateLimit(ctx, &rlsv3.RateLimitRequest{Domain: domain, Descriptors: []*rlv3.RateLimitDescriptor{d}})
}
