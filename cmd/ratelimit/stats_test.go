package main

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStatsd(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	env["USE_STATSD"], env["STATSD_PROTOCOL"] = "true", "udp"
	env["STATSD_HOST"] = "127.0.0.1"
	env["STATSD_PORT"] = strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	env["GOSTATS_FLUSH_INTERVAL_SECONDS"] = "1"
	env["EXTRA_TAGS"] = "env:test"
	s := start(t, env)
	for range 2 {
		if _, err := s.call(t, "d", "k=a"); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	buf := make([]byte, 65536)
	pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	for !strings.Contains(got.String(), "over_limit") {
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("reading statsd: %v; got so far:\n%s", err, got.String())
		}
		got.Write(buf[:n])
		got.WriteByte('\n')
	}
	for _, want := range []string{
		"ratelimit.service.rate_limit.d.k.total_hits.__env=test:2|c",
		"ratelimit.service.rate_limit.d.k.over_limit.__env=test:1|c",
		"ratelimit.service.rate_limit.d.k.within_limit.__env=test:1|c",
		"ratelimit.service.rate_limit.d.k.near_limit.__env=test:1|c",
		"ratelimit.service.config_load_success.__env=test:1|c",
		"ratelimit_server.ShouldRateLimit.total_requests.__env=test:2|c",
		"ratelimit_server.ShouldRateLimit.response_time.__env=test:",
	} {
		if !strings.Contains(got.String(), want) {
			t.Errorf("statsd did not receive %q; got:\n%s", want, got.String())
		}
	}
}

func TestPrometheusAndDisableStats(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(1))
	env := baseEnv(root)
	s := start(t, env)
	s.call(t, "d", "k=a")
	_, metrics := get(t, "http://"+s.addrs.debug+"/metrics")
	for _, want := range []string{
		`ratelimit_service_rate_limit_total_hits_total{domain="d",key="k"} 1`,
		`ratelimit_service_config_load_success_total 1`,
		`ratelimit_service_response_time_seconds_count 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, metrics)
		}
	}
	env["DISABLE_STATS"] = "true"
	s2 := start(t, env)
	s2.call(t, "d", "k=a")
	if _, metrics := get(t, "http://"+s2.addrs.debug+"/metrics"); strings.Contains(metrics, "ratelimit_service") {
		t.Errorf("/metrics with DISABLE_STATS has ratelimit metrics:\n%s", metrics)
	}
}
