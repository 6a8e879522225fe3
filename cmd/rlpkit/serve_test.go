package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
)

// e2eLimits have no window boundary a test could cross while it runs: a
// token bucket refilling one token in 20 minutes and a fixed window of 365 days.
const e2eLimits = `# limitador's format
- namespace: shop
  name: cart per user
  max_value: 3
  seconds: 3600
  algorithm: token_bucket
  conditions: ["path == '/cart'"]
  variables: [user]
- namespace: shop
  name: per ip
  max_value: 5
  seconds: 31536000
  variables: [ip]
`

// summary renders a response's codes, limits and remaining hits, one string a
// status, and checks every duration_until_reset is within its window.
func summary(t *testing.T, resp *rlsv3.RateLimitResponse) []string {
	t.Helper()
	out := []string{resp.GetOverallCode().String()}
	for i, st := range resp.GetStatuses() {
		cl := st.GetCurrentLimit()
		if cl == nil {
			out = append(out, st.GetCode().String()+" unlimited")
			continue
		}
		out = append(out, fmt.Sprintf("%s %q %d/%s remaining %d", st.GetCode(), cl.GetName(), cl.GetRequestsPerUnit(), cl.GetUnit(), st.GetLimitRemaining()))
		window := map[rlsv3.RateLimitResponse_RateLimit_Unit]time.Duration{
			rlsv3.RateLimitResponse_RateLimit_SECOND: time.Second, rlsv3.RateLimitResponse_RateLimit_MINUTE: time.Minute,
			rlsv3.RateLimitResponse_RateLimit_HOUR: time.Hour, rlsv3.RateLimitResponse_RateLimit_YEAR: 365 * 24 * time.Hour,
		}[cl.GetUnit()]
		if reset := st.GetDurationUntilReset().AsDuration(); reset <= 0 || reset > window {
			t.Errorf("status %d: duration_until_reset %v, want within (0, %v]", i, reset, window)
		}
	}
	return out
}

// checkSteps sends every request in order and compares the summaries.
func checkSteps(t *testing.T, s *testServer, steps []serveStep) {
	t.Helper()
	for i, st := range steps {
		got := summary(t, s.mustCall(t, st.req))
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("step %d: ShouldRateLimit(%v) mismatch (-want +got):\n%s", i, st.req, diff)
		}
	}
}

type serveStep struct {
	req  *rlsv3.RateLimitRequest
	want []string
}

// testServeEndToEnd runs the decisions every store must give, against a
// server started with storeArgs.
func testServeEndToEnd(t *testing.T, storeArgs ...string) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, append([]string{"--addr", "127.0.0.1:0", "--limits", file, "--response-headers"}, storeArgs...)...)
	cart := func(user string) []string {
		return []string{"path", "/cart", "user", user}
	}
	const (
		cartOK   = `OK "cart per user" 3/HOUR remaining %d`
		cartOver = `OVER_LIMIT "cart per user" 3/HOUR remaining 0`
		ipOK     = `OK "per ip" 5/YEAR remaining %d`
	)
	f := fmt.Sprintf
	steps := []serveStep{
		// OK until the limit, then OVER_LIMIT.
		{rlsRequest("shop", 0, rlsDesc(cart("alice")...)), []string{"OK", f(cartOK, 2)}},
		{rlsRequest("shop", 0, rlsDesc(cart("alice")...)), []string{"OK", f(cartOK, 1)}},
		{rlsRequest("shop", 0, rlsDesc(cart("alice")...)), []string{"OK", f(cartOK, 0)}},
		{rlsRequest("shop", 0, rlsDesc(cart("alice")...)), []string{"OVER_LIMIT", cartOver}},
		// A status per descriptor, in request order; one over consumes nothing.
		{rlsRequest("shop", 0, rlsDesc(cart("alice")...), rlsDesc("ip", "10.0.0.1"), rlsDesc("other", "x")),
			[]string{"OVER_LIMIT", cartOver, f(ipOK, 5), "OK unlimited"}},
		{rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"), rlsDesc(cart("bob")...)), []string{"OK", f(ipOK, 4), f(cartOK, 2)}},
		// A descriptor's override replaces the configured limits.
		{rlsRequest("shop", 0, rlsOverride(rlsDesc(cart("carol")...), 1, typev3.RateLimitUnit_HOUR)), []string{"OK", `OK "" 1/HOUR remaining 0`}},
		{rlsRequest("shop", 0, rlsOverride(rlsDesc(cart("carol")...), 1, typev3.RateLimitUnit_HOUR)), []string{"OVER_LIMIT", `OVER_LIMIT "" 1/HOUR remaining 0`}},
		{rlsRequest("shop", 0, rlsDesc(cart("carol")...)), []string{"OK", f(cartOK, 2)}},
		// hits_addend: the request's, a descriptor's instead, an explicit 0 checks.
		{rlsRequest("shop", 3, rlsDesc("ip", "10.0.0.2")), []string{"OK", f(ipOK, 2)}},
		{rlsRequest("shop", 9, rlsHits(rlsDesc("ip", "10.0.0.2"), 0)), []string{"OK", f(ipOK, 2)}},
		{rlsRequest("shop", 9, rlsHits(rlsDesc("ip", "10.0.0.2"), 2)), []string{"OK", f(ipOK, 0)}},
		// A check on a full counter is OK: only going over is over.
		{rlsRequest("shop", 0, rlsHits(rlsDesc("ip", "10.0.0.2"), 0)), []string{"OK", f(ipOK, 0)}},
		{rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.2")), []string{"OVER_LIMIT", `OVER_LIMIT "per ip" 5/YEAR remaining 0`}},
		// A domain without limits.
		{rlsRequest("elsewhere", 0, rlsDesc("ip", "10.0.0.2")), []string{"OK", "OK unlimited"}},
	}
	checkSteps(t, s, steps)

	// Response headers from the most restrictive status.
	resp := s.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.3"), rlsDesc(cart("alice")...)))
	headers := map[string]string{}
	for _, h := range resp.GetResponseHeadersToAdd() {
		headers[h.GetKey()] = h.GetValue()
	}
	if headers["RateLimit-Limit"] != "3" || headers["RateLimit-Remaining"] != "0" || headers["Retry-After"] == "" || headers["RateLimit-Reset"] == "" {
		t.Errorf("response headers %v, want RateLimit-Limit 3, RateLimit-Remaining 0, RateLimit-Reset and Retry-After", headers)
	}

	// Invalid requests.
	for _, req := range []*rlsv3.RateLimitRequest{
		rlsRequest("", 0, rlsDesc("ip", "x")),
		rlsRequest("shop", 0, rlsDesc()),
		rlsRequest("shop", 0, rlsDesc("", "x")),
	} {
		if _, err := s.call(t, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("ShouldRateLimit(%v) error %v, want InvalidArgument", req, err)
		}
	}

	// Health and reflection.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, service := range []string{"", "envoy.service.ratelimit.v3.RateLimitService"} {
		h, err := healthpb.NewHealthClient(s.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health Check(%q) = %v, %v; want SERVING", service, h, err)
		}
	}
	if services := reflectedServices(t, s); !strings.Contains(services, "envoy.service.ratelimit.v3.RateLimitService") {
		t.Errorf("reflection lists %s, want envoy.service.ratelimit.v3.RateLimitService", services)
	}

	// Metrics.
	metrics := scrape(t, s)
	for _, want := range []string{
		`rlpkit_rls_decisions_total{code="OK",domain="shop"} 10`,
		`rlpkit_rls_decisions_total{code="OVER_LIMIT",domain="shop"} 5`,
		`rlpkit_rls_decisions_total{code="OK",domain="(unconfigured)"} 1`,
		`rlpkit_rls_errors_total{code="InvalidArgument",domain="(unconfigured)"} 1`,
		`rlpkit_rls_errors_total{code="InvalidArgument",domain="shop"} 2`,
		`rlpkit_limits 2`,
		`rlpkit_limits_reloads_total{result="success"} 1`,
		`rlpkit_store_update_duration_seconds_count 15`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q; got:\n%s", want, grepLines(metrics, "rlpkit_"))
		}
	}
}

func TestServeEndToEndMemory(t *testing.T) {
	testServeEndToEnd(t)
}

// TestServeTopology serves the limits compiled from the toystore example.
func TestServeTopology(t *testing.T) {
	s := startServe(t, "--addr", "127.0.0.1:0", filepath.Join("..", "..", "examples", "toystore"))
	const domain = "gateway-system/mygateway#default/toystore"
	checkSteps(t, s, []serveStep{
		{rlsRequest(domain, 0, rlsDesc("my-key", "my-value")),
			[]string{"OK", `OK "gateway-system/mygateway spec.override.rateLimits[0]" 50/MINUTE remaining 49`}},
		{rlsRequest(domain, 0, rlsDesc("remote_address", "192.0.2.1")),
			[]string{"OK", `OK "gateway-system/mygateway spec.override.rateLimits[1]" 1000/MINUTE remaining 999`}},
	})
	if !strings.Contains(s.log.String(), "limits=3") {
		t.Errorf("log does not say 3 limits are served:\n%s", s.log)
	}
}

// TestServeStop stops the server as SIGTERM does: it exits 0, says so and
// closes its ports.
func TestServeStop(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file)
	s.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "x")))
	if code := s.stop(); code != exitOK {
		t.Fatalf("stop: exit %d, want 0", code)
	}
	for _, want := range []string{"msg=serving", "msg=stopping", "msg=stopped"} {
		if !strings.Contains(s.log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, s.log)
		}
	}
	if _, err := s.call(t, rlsRequest("shop", 0, rlsDesc("ip", "x"))); status.Code(err) != codes.Unavailable {
		t.Errorf("ShouldRateLimit after stop: %v, want Unavailable", err)
	}
	if _, err := http.Get("http://" + s.httpAddr + "/metrics"); err == nil {
		t.Errorf("metrics still served after stop")
	}
}

func reflectedServices(t *testing.T, s *testServer) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	stream, err := reflectionpb.NewServerReflectionClient(s.conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, svc := range resp.GetListServicesResponse().GetService() {
		names = append(names, svc.GetName())
	}
	return strings.Join(names, " ")
}

func scrape(t *testing.T, s *testServer) string {
	t.Helper()
	resp, err := http.Get("http://" + s.httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// grepLines returns the lines of text that start with prefix.
func grepLines(text, prefix string) string {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(prefix) + `.*$`)
	return strings.Join(re.FindAllString(text, -1), "\n")
}
