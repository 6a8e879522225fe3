package main

import (
	"context"
	"strings"
	"testing"
	"time"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// xdsEnv is a plain-text xDS environment for a memory backend.
func xdsEnv(t *testing.T, addr string) map[string]string {
	env := baseEnv(t.TempDir() + "/absent")
	env["CONFIG_TYPE"] = "GRPC_XDS_SOTW"
	env["CONFIG_GRPC_XDS_SERVER_URL"] = addr
	env["CONFIG_GRPC_XDS_NODE_ID"] = xdsNode
	env["XDS_CLIENT_BACKOFF_INITIAL_INTERVAL"] = "20ms"
	env["CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL"] = "20ms"
	return env
}

// As the reference without FORCE_START_WITHOUT_INITIAL_CONFIG: no port
// opens until the first response, even one that is refused.
func TestXDSWaitsForTheFirstResponse(t *testing.T) {
	xs := startXDSServer(t, "127.0.0.1:0", nil)
	env := xdsEnv(t, xs.addr)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	readyc, done := make(chan addrs, 1), make(chan int, 1)
	log := &syncBuffer{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	go func() { done <- run(ctx, lookup, environ(env), log, func(a addrs) { readyc <- a }) }()
	xs.waitRequest("the first request", func(*discoveryv3.DiscoveryRequest) bool { return true })
	select {
	case <-readyc:
		t.Fatal("serving before the first xDS response")
	case code := <-done:
		t.Fatalf("run exited with %d:\n%s", code, log)
	default:
	}
	bad := egRouteConfig(1)
	bad.Descriptors[0].Descriptors[0].RateLimit.Unit = 0 // UNKNOWN
	xs.set(1, bad)
	nack := xs.waitRequest("the NACK", func(r *discoveryv3.DiscoveryRequest) bool { return r.GetErrorDetail() != nil })
	if msg := nack.GetErrorDetail().GetMessage(); !strings.Contains(msg, "invalid rate limit unit 'UNKNOWN'") || !strings.Contains(msg, egListener) {
		t.Errorf("NACK message %q, want the resource's name and invalid rate limit unit 'UNKNOWN'", msg)
	}
	var a addrs
	select {
	case a = <-readyc:
	case <-time.After(10 * time.Second):
		t.Fatalf("not serving after a refused first response:\n%s", log)
	}
	s := &server{addrs: a}
	c := dialPlain(t, s)
	if _, err := c.call(t, egListener, "k=v"); status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "no rate limit configuration loaded") {
		t.Errorf("call after a refused first response = %v, want no rate limit configuration loaded", err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("run = %d, want 0", code)
	}
}

// A server stopped before the first response exits cleanly.
func TestXDSStopBeforeTheFirstResponse(t *testing.T) {
	xs := startXDSServer(t, "127.0.0.1:0", nil)
	env := xdsEnv(t, xs.addr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	go func() { done <- run(ctx, lookup, environ(env), &syncBuffer{}, nil) }()
	xs.waitRequest("the first request", func(*discoveryv3.DiscoveryRequest) bool { return true })
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("run = %d, want 0", code)
	}
}

func TestXDSNodeMetadataAndHeaders(t *testing.T) {
	xs := startXDSServer(t, "127.0.0.1:0", nil)
	env := xdsEnv(t, xs.addr)
	env["FORCE_START_WITHOUT_INITIAL_CONFIG"] = "true"
	env["CONFIG_GRPC_XDS_NODE_METADATA"] = "cluster=eu-1,zone=a=b,skipped"
	env["CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS"] = "X-Tenant:blue,authorization:Bearer t"
	start(t, env)
	req := xs.waitRequest("the first request", func(*discoveryv3.DiscoveryRequest) bool { return true })
	got := req.GetNode().GetMetadata().AsMap()
	if len(got) != 2 || got["cluster"] != "eu-1" || got["zone"] != "a=b" {
		t.Errorf("node metadata = %v, want cluster=eu-1 and zone=a=b", got)
	}
	md := xs.streamHeaders()[0]
	if v := md.Get("x-tenant"); len(v) != 1 || v[0] != "blue" {
		t.Errorf("x-tenant header = %v, want blue", v)
	}
	if v := md.Get("authorization"); len(v) != 1 || v[0] != "Bearer t" {
		t.Errorf("authorization header = %v, want Bearer t", v)
	}
}

// A response over XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES is never applied.
func TestXDSMaxMessageSize(t *testing.T) {
	xs := startXDSServer(t, "127.0.0.1:0", nil)
	env := xdsEnv(t, xs.addr)
	env["FORCE_START_WITHOUT_INITIAL_CONFIG"] = "true"
	env["XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES"] = "64"
	s := start(t, env)
	xs.set(1, egRouteConfig(3), egSharedConfig(1))
	eventually(t, "the receive limit reported", func() bool { return strings.Contains(s.log.String(), "ResourceExhausted") })
	if _, err := s.call(t, egListener, "k=v"); status.Code(err) != codes.Unknown {
		t.Errorf("call = %v, want no configuration loaded", err)
	}
}

// A server certificate that does not match CONFIG_GRPC_XDS_SERVER_TLS_SAN
// is never trusted; one that matches is.
func TestXDSServerSAN(t *testing.T) {
	pki := newPKI(t, t.TempDir(), "envoy-gateway")
	for _, tc := range []struct {
		san   string
		works bool
	}{{"other-name", false}, {"envoy-gateway", true}} {
		t.Run(tc.san, func(t *testing.T) {
			xs := startXDSServer(t, "127.0.0.1:0", pki.serverTLS())
			env := xdsEnv(t, xs.addr)
			env["FORCE_START_WITHOUT_INITIAL_CONFIG"] = "true"
			env["CONFIG_GRPC_XDS_SERVER_USE_TLS"] = "true"
			env["CONFIG_GRPC_XDS_CLIENT_TLS_CERT"], env["CONFIG_GRPC_XDS_CLIENT_TLS_KEY"] = pki.certFile, pki.key
			env["CONFIG_GRPC_XDS_SERVER_TLS_CACERT"] = pki.caFile
			env["CONFIG_GRPC_XDS_SERVER_TLS_SAN"] = tc.san
			s := start(t, env)
			if tc.works {
				xs.set(1, egRouteConfig(3))
				xs.ack(1)
				return
			}
			// Two failed attempts logged: it keeps retrying, unconfigured.
			eventually(t, "two failed attempts", func() bool {
				return strings.Count(s.log.String(), "certificate is valid for envoy-gateway, not other-name") >= 2
			})
			if n := xs.requestCount(); n != 0 {
				t.Errorf("the server got %d requests through a connection the client must not trust", n)
			}
		})
	}
}

func TestXDSBadTLSFilesExit(t *testing.T) {
	env := xdsEnv(t, "127.0.0.1:1")
	env["CONFIG_GRPC_XDS_SERVER_USE_TLS"] = "true"
	env["CONFIG_GRPC_XDS_SERVER_TLS_CACERT"] = t.TempDir() + "/missing.crt"
	var stderr syncBuffer
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	if code := run(t.Context(), lookup, environ(env), &stderr, nil); code != 1 || !strings.Contains(stderr.String(), "CONFIG_GRPC_XDS_SERVER_TLS_CACERT") {
		t.Errorf("run = %d, stderr %q; want 1 naming CONFIG_GRPC_XDS_SERVER_TLS_CACERT", code, stderr.String())
	}
}

func TestXDSBackoffDelay(t *testing.T) {
	c := &xdsClient{x: xdsSettings{backoffInitial: 10 * time.Second, backoffMax: 60 * time.Second, backoffFactor: 0.5, backoffJitter: true}}
	for n := range 5 {
		if d := c.delay(n); d != 10*time.Second {
			t.Errorf("reference defaults: delay(%d) = %v, want 10s (not growing)", n, d)
		}
	}
	c.x.backoffFactor, c.x.backoffJitter = 2, false
	for n, want := range []time.Duration{10, 20, 40, 60, 60} {
		if d := c.delay(n); d != want*time.Second {
			t.Errorf("factor 2: delay(%d) = %v, want %v", n, d, want*time.Second)
		}
	}
	c.x.backoffJitter = true
	for n := range 5 {
		if d := c.delay(n); d < 10*time.Second || d > 60*time.Second {
			t.Errorf("factor 2 with jitter: delay(%d) = %v, want within 10s and 60s", n, d)
		}
	}
}

// dialPlain gives s a plain-text client.
func dialPlain(t *testing.T, s *server) *server {
	t.Helper()
	conn, err := grpc.NewClient(s.addrs.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	s.client = rlsv3.NewRateLimitServiceClient(conn)
	return s
}
