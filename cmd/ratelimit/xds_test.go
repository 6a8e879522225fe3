package main

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	rlconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// Routes and rules named as Envoy Gateway names them.
const (
	egRoute      = "httproute/harbor/ferry/rule/0/match/0/*"
	egListener   = "harbor/quay/web" // a listener's domain
	egShared     = "dairy/barn-pool" // a shared rule's domain
	egSharedRule = "dairy/barn-pool/rule/0"
)

// egRouteConfig is the listener domain's configuration: the route's rule
// without selectors, n requests per hour.
func egRouteConfig(n uint32) *rlconf.RateLimitConfig {
	return &rlconf.RateLimitConfig{Name: egListener, Domain: egListener, Descriptors: []*rlconf.RateLimitDescriptor{{
		Key: egRoute, Value: egRoute,
		Descriptors: []*rlconf.RateLimitDescriptor{{Key: "rule-0-match--1", Value: "rule-0-match--1",
			RateLimit: &rlconf.RateLimitPolicy{Unit: rlconf.RateLimitUnit_HOUR, RequestsPerUnit: n}}},
	}}}
}

// egSharedConfig is the shared rule's: a Distinct header, per value.
func egSharedConfig(n uint32) *rlconf.RateLimitConfig {
	return &rlconf.RateLimitConfig{Name: egShared, Domain: egShared, Descriptors: []*rlconf.RateLimitDescriptor{{
		Key: egSharedRule, Value: egSharedRule,
		Descriptors: []*rlconf.RateLimitDescriptor{{Key: "rule-0-match-0",
			RateLimit: &rlconf.RateLimitPolicy{Unit: rlconf.RateLimitUnit_MINUTE, RequestsPerUnit: n}}},
	}}}
}

// egEnv is the environment of Envoy Gateway's rate-limit Deployment
// (internal/infrastructure/kubernetes/ratelimit), with the addresses and
// files of the test, and the reconnect delays shortened.
func egEnv(t *testing.T, pki *testPKI, xdsAddr, redisAddr string) map[string]string {
	mapper := filepath.Join("testdata", "prometheus", "mapper.yaml")
	return map[string]string{
		"RUNTIME_ROOT": filepath.Join(t.TempDir(), "data"), "RUNTIME_SUBDIRECTORY": "ratelimit",
		"RUNTIME_IGNOREDOTFILES": "true", "RUNTIME_WATCH_ROOT": "false",
		"LOG_LEVEL": "info", "USE_STATSD": "false",
		"CONFIG_TYPE": "GRPC_XDS_SOTW", "CONFIG_GRPC_XDS_SERVER_URL": xdsAddr, "CONFIG_GRPC_XDS_NODE_ID": xdsNode,
		"GRPC_SERVER_USE_TLS": "true", "GRPC_SERVER_TLS_CERT": pki.certFile, "GRPC_SERVER_TLS_KEY": pki.key,
		"GRPC_SERVER_TLS_CA_CERT":        pki.caFile,
		"CONFIG_GRPC_XDS_SERVER_USE_TLS": "true", "CONFIG_GRPC_XDS_CLIENT_TLS_CERT": pki.certFile,
		"CONFIG_GRPC_XDS_CLIENT_TLS_KEY": pki.key, "CONFIG_GRPC_XDS_SERVER_TLS_CACERT": pki.caFile,
		"FORCE_START_WITHOUT_INITIAL_CONFIG": "true",
		"REDIS_SOCKET_TYPE":                  "tcp", "REDIS_URL": redisAddr,
		"USE_PROMETHEUS": "true", "PROMETHEUS_ADDR": "127.0.0.1:0", "PROMETHEUS_MAPPER_YAML": mapper,
		// The test's own: loopback ports and short reconnect delays.
		"GRPC_HOST": "127.0.0.1", "GRPC_PORT": "0", "HOST": "127.0.0.1", "PORT": "0",
		"DEBUG_HOST": "127.0.0.1", "DEBUG_PORT": "0",
		"XDS_CLIENT_BACKOFF_INITIAL_INTERVAL": "20ms", "CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL": "20ms",
	}
}

// rlsClient calls the RLS port over TLS, as Envoy does.
type rlsClient struct {
	t  *testing.T
	c  rlsv3.RateLimitServiceClient
	hc healthpb.HealthClient
}

func dialRLS(t *testing.T, addr string, pki *testPKI) *rlsClient {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(pki.clientTLS())))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &rlsClient{t: t, c: rlsv3.NewRateLimitServiceClient(conn), hc: healthpb.NewHealthClient(conn)}
}

// call sends one descriptor of entries "k=v" (a "k" alone has the value v
// repeated: Envoy Gateway's generic keys have key and value alike).
func (c *rlsClient) call(domain string, entries ...string) (*rlsv3.RateLimitResponse, error) {
	d := &rlv3.RateLimitDescriptor{}
	for _, e := range entries {
		k, v, ok := strings.Cut(e, "=")
		if !ok {
			v = k
		}
		d.Entries = append(d.Entries, &rlv3.RateLimitDescriptor_Entry{Key: k, Value: v})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return c.c.ShouldRateLimit(ctx, &rlsv3.RateLimitRequest{Domain: domain, Descriptors: []*rlv3.RateLimitDescriptor{d}})
}

func (c *rlsClient) route() (*rlsv3.RateLimitResponse, error) {
	return c.call(egListener, egRoute, "rule-0-match--1")
}

// remaining is the route's limit and remaining after one call, or -1s.
func (c *rlsClient) remaining() (limit, remaining int) {
	r, err := c.route()
	if err != nil || len(r.GetStatuses()) == 0 || r.Statuses[0].CurrentLimit == nil {
		return -1, -1
	}
	return int(r.Statuses[0].CurrentLimit.RequestsPerUnit), int(r.Statuses[0].LimitRemaining)
}

func (c *rlsClient) healthy() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := c.hc.Check(ctx, &healthpb.HealthCheckRequest{Service: "ratelimit"})
	return err == nil && r.Status == healthpb.HealthCheckResponse_SERVING
}

func TestXDSEnvoyGatewayDeployment(t *testing.T) {
	pki := newPKI(t, t.TempDir(), "envoy-gateway")
	redis := redistest.Start(t)
	xs := startXDSServer(t, "127.0.0.1:0", pki.serverTLS())
	s := start(t, egEnv(t, pki, xs.addr, redis.Addr))
	c := dialRLS(t, s.addrs.grpc, pki)

	// Before the first snapshot (FORCE_START_WITHOUT_INITIAL_CONFIG=true):
	// serving, healthy, every call failing as the reference's do.
	first := xs.waitRequest("the first request", func(r *discoveryv3.DiscoveryRequest) bool { return true })
	if first.GetVersionInfo() != "" || first.GetNode().GetId() != xdsNode || first.GetTypeUrl() != rateLimitConfigType {
		t.Errorf("first request = %v, want node %s, type %s, no version", first, xdsNode, rateLimitConfigType)
	}
	if _, err := c.route(); status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "no rate limit configuration loaded") {
		t.Errorf("call before any snapshot = %v, want Unknown, no rate limit configuration loaded", err)
	}
	if !c.healthy() {
		t.Error("not healthy before the first snapshot")
	}

	// Version 1: two domains.
	xs.set(1, egRouteConfig(3), egSharedConfig(1))
	xs.ack(1)
	for i, want := range []int{2, 1, 0} {
		if l, r := c.remaining(); l != 3 || r != want {
			t.Fatalf("call %d on version 1 = limit %d remaining %d, want 3 and %d", i, l, r, want)
		}
	}
	if r, err := c.route(); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT {
		t.Fatalf("4th call = %v %v, want OVER_LIMIT", r, err)
	}
	if r, err := c.call(egShared, egSharedRule, "rule-0-match-0=alice"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OK {
		t.Fatalf("shared rule, first call = %v %v, want OK", r, err)
	}
	if r, err := c.call(egShared, egSharedRule, "rule-0-match-0=alice"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT {
		t.Fatalf("shared rule, second call = %v %v, want OVER_LIMIT", r, err)
	}

	// Version 2 raises the route's limit: its counter is kept (4 spent,
	// the refused call included, as the reference counts it).
	xs.set(2, egRouteConfig(5), egSharedConfig(1))
	xs.ack(2)
	if l, r := c.remaining(); l != 5 || r != 0 {
		t.Fatalf("call on version 2 = limit %d remaining %d, want 5 and 0 (the counter kept)", l, r)
	}

	// Version 3 removes the shared domain: its calls are OK, with no limit.
	xs.set(3, egRouteConfig(5))
	xs.ack(3)
	if r, err := c.call(egShared, egSharedRule, "rule-0-match-0=alice"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OK || r.Statuses[0].CurrentLimit != nil {
		t.Fatalf("removed domain = %v %v, want OK with no limit", r, err)
	}

	// A bad snapshot is refused whole: NACK with version 3 and the
	// reference's message, version 3 kept in force.
	bad := egRouteConfig(9)
	bad.Descriptors = append(bad.Descriptors, bad.Descriptors[0])
	xs.set(4, bad, egSharedConfig(1))
	nack := xs.waitRequest("the NACK of version 4", func(r *discoveryv3.DiscoveryRequest) bool { return r.GetErrorDetail() != nil })
	if nack.GetVersionInfo() != "3" || !strings.Contains(nack.GetErrorDetail().GetMessage(), "duplicate descriptor composite key '"+egListener+"."+egRoute+"_"+egRoute+"'") {
		t.Errorf("NACK = version %q, %q; want version 3 and the duplicate key", nack.GetVersionInfo(), nack.GetErrorDetail().GetMessage())
	}
	if l, r := c.remaining(); l != 5 || r != 0 {
		t.Fatalf("call after the bad snapshot = limit %d remaining %d, want version 3's 5 and 0", l, r)
	}
	xs.set(5, egRouteConfig(6))
	xs.ack(5)

	// The server restarts with an empty cache: the configuration and the
	// health stay meanwhile; the new stream starts from version 5, and the
	// new server's version 1 is applied (versions are not compared).
	xs.stop()
	if l, r := c.remaining(); l != 6 || r != 0 {
		t.Fatalf("call while the xDS server is down = limit %d remaining %d, want 6 and 0", l, r)
	}
	if !c.healthy() {
		t.Error("not healthy while the xDS server is down")
	}
	xs2 := startXDSServer(t, xs.addr, pki.serverTLS())
	resumed := xs2.waitRequest("the new stream's first request", func(r *discoveryv3.DiscoveryRequest) bool { return true })
	if resumed.GetVersionInfo() != "5" {
		t.Errorf("new stream's first request has version %q, want 5", resumed.GetVersionInfo())
	}
	xs2.set(1, egRouteConfig(10), egSharedConfig(1))
	xs2.ack(1)
	// 8 spent: every call counted, the refused ones too (the reference's
	// counts).
	if l, r := c.remaining(); l != 10 || r != 2 {
		t.Fatalf("call on the restarted server's version 1 = limit %d remaining %d, want 10 and 2", l, r)
	}
	if r, err := c.call(egShared, egSharedRule, "rule-0-match-0=bob"); err != nil || r.OverallCode != rlsv3.RateLimitResponse_OK || r.Statuses[0].CurrentLimit.GetRequestsPerUnit() != 1 {
		t.Fatalf("shared domain back = %v %v, want OK with its limit", r, err)
	}
	checkHTTPHealth(t, s.addrs.http)
	_, metrics := get(t, "http://"+s.addrs.debug+"/metrics")
	series := `ratelimit_service_rate_limit_total_hits{domain="` + egListener + `",key1="` + egRoute + "_" + egRoute + `",key2="rule-0-match--1_rule-0-match--1"} `
	if !strings.Contains(metrics, series) {
		t.Errorf("/metrics lacks the mapped series %s:\n%s", series, metrics)
	}
}

func checkHTTPHealth(t *testing.T, addr string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthcheck")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/healthcheck = %d, want 200", resp.StatusCode)
	}
}
