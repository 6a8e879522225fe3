package main

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// detailedYAML limits every user, with detailed_metric statistics.
const detailedYAML = "domain: d\ndescriptors:\n  - key: user\n    detailed_metric: true\n    rate_limit: {unit: hour, requests_per_unit: 10}\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 10}\n"

// sendValues sends n descriptors (key, prefix+i), in requests of 250, with
// a limit override when override is set, and one descriptor k=a.
func sendValues(t *testing.T, s *server, key, prefix string, n int, override bool) {
	t.Helper()
	for from := 0; from < n; from += 250 {
		req := &rlsv3.RateLimitRequest{Domain: "d"}
		for i := from; i < min(from+250, n); i++ {
			d := &rlv3.RateLimitDescriptor{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: key, Value: prefix + strconv.Itoa(i)}}}
			if override {
				d.Limit = &rlv3.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 5, Unit: 3}
			}
			req.Descriptors = append(req.Descriptors, d)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := s.client.ShouldRateLimit(ctx, req)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.call(t, "d", "k=a"); err != nil {
		t.Fatal(err)
	}
}

// series returns the total_hits series of text (/stats or /metrics
// lines), by name, with their values.
func series(text, prefix, suffix string) map[string]uint64 {
	out := map[string]uint64{}
	for _, line := range strings.Split(text, "\n") {
		name, value, ok := strings.Cut(line, suffix)
		if !ok || !strings.HasPrefix(name, prefix) {
			continue
		}
		value, _, _ = strings.Cut(strings.TrimPrefix(value, ":"), "|") // statsd: "name:delta|c"
		v, _ := strconv.ParseFloat(strings.TrimSpace(value), 64)
		out[strings.TrimPrefix(name, prefix)] += uint64(v)
	}
	return out
}

func sum(m map[string]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

// TestDetailedMetricKeysAreBounded: 5,000 values of a detailed_metric rule
// make at most 1,000 keys of their own and one overflow key, in /stats and
// /metrics, and every hit is counted in one of them.
func TestDetailedMetricKeysAreBounded(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), detailedYAML)
	s := start(t, baseEnv(root))
	sendValues(t, s, "user", "u", 5000, false)

	_, text := get(t, "http://"+s.addrs.debug+"/stats")
	got := series(text, "ratelimit.service.rate_limit.", ".total_hits")
	if len(got) != 1002 || got["d._other"] != 4000 || got["d.user_u0"] != 1 || got["d.k"] != 1 || sum(got) != 5001 {
		t.Errorf("/stats: %d total_hits keys (d._other %d, d.user_u0 %d, d.k %d, sum %d); want 1000 user keys, d._other 4000, d.k, sum 5001",
			len(got), got["d._other"], got["d.user_u0"], got["d.k"], sum(got))
	}
	_, metrics := get(t, "http://"+s.addrs.debug+"/metrics")
	got = series(metrics, `ratelimit_service_rate_limit_total_hits_total{domain="d",key="`, `"}`)
	if len(got) != 1002 || got["_other"] != 4000 || got["k"] != 1 || sum(got) != 5001 {
		t.Errorf("/metrics: %d total_hits series (_other %d, k %d, sum %d); want 1000 user keys, _other 4000, k, sum 5001",
			len(got), got["_other"], got["k"], sum(got))
	}
}

// TestOverrideKeysAreNeverLabels: limit overrides count in one series of
// their domain in /metrics, never labelled by their entries; /stats keeps
// the reference's names for the first 1,000.
func TestOverrideKeysAreNeverLabels(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), detailedYAML)
	s := start(t, baseEnv(root))
	sendValues(t, s, "tenant", "secret", 1500, true)

	_, metrics := get(t, "http://"+s.addrs.debug+"/metrics")
	if strings.Contains(metrics, "secret") {
		t.Errorf("/metrics has a request value as a label")
	}
	got := series(metrics, `ratelimit_service_rate_limit_total_hits_total{domain="d",key="`, `"}`)
	if len(got) != 2 || got["_override"] != 1500 || got["k"] != 1 {
		t.Errorf("/metrics total_hits series = %v, want _override 1500 and k 1", got)
	}
	_, text := get(t, "http://"+s.addrs.debug+"/stats")
	st := series(text, "ratelimit.service.rate_limit.", ".total_hits")
	if len(st) != 1002 || st["d.tenant_secret0"] != 1 || st["d._other"] != 500 {
		t.Errorf("/stats: %d total_hits keys (d.tenant_secret0 %d, d._other %d); want 1000 override keys, d._other 500, d.k",
			len(st), st["d.tenant_secret0"], st["d._other"])
	}
}

// TestStatsdKeysAreBounded: statsd receives at most RLPKIT_STATS_MAX_KEYS
// detailed keys and the overflow key, and every hit once. (Fewer keys than
// the default: a loopback UDP burst beyond the socket's buffer is dropped.)
func TestStatsdKeysAreBounded(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), detailedYAML)
	env := baseEnv(root)
	env["USE_STATSD"], env["STATSD_HOST"], env["STATSD_PROTOCOL"] = "true", "127.0.0.1", "udp"
	env["STATSD_PORT"] = strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
	env["GOSTATS_FLUSH_INTERVAL_SECONDS"] = "1"
	env["RLPKIT_STATS_MAX_KEYS"] = "100"
	s := start(t, env)
	sendValues(t, s, "user", "u", 500, false)

	got := map[string]uint64{}
	buf := make([]byte, 65536)
	pc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for sum(got) < 501 {
		n, _, err := pc.ReadFrom(buf)
		if err != nil {
			t.Fatalf("reading statsd: %v; %d total_hits names, sum %d", err, len(got), sum(got))
		}
		for name, v := range series(string(buf[:n]), "ratelimit.service.rate_limit.", ".total_hits") {
			got[name] += v
		}
	}
	if len(got) != 102 || got["d._other"] != 400 || sum(got) != 501 {
		t.Errorf("statsd: %d total_hits names (d._other %d, sum %d); want 100 user keys, d._other 400, d.k, sum 501", len(got), got["d._other"], sum(got))
	}
}
