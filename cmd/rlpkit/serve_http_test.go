package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// get fetches an HTTP path of the server and returns its status and body.
func (s *testServer) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + s.httpAddr + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// TestServeHTTPPort checks the HTTP port's paths, that port 0 is logged with
// the port chosen, and that "off" opens none.
func TestServeHTTPPort(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	s := startServe(t, "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--limits", file)
	tests := []struct {
		path string
		code int
		body string
	}{
		{"/healthz", http.StatusOK, "ok\n"},
		{"/readyz", http.StatusOK, "ready: limits loaded, memory store reachable\n"},
		{"/nothing", http.StatusNotFound, "404 page not found\n"},
	}
	for _, tc := range tests {
		if code, body := s.get(t, tc.path); code != tc.code || body != tc.body {
			t.Errorf("GET %s = %d %q, want %d %q", tc.path, code, body, tc.code, tc.body)
		}
	}
	if code, body := s.get(t, "/metrics"); code != http.StatusOK || !strings.Contains(body, "rlpkit_limits 2\n") {
		t.Errorf("GET /metrics = %d, want 200 with rlpkit_limits 2:\n%s", code, grepLines(body, "rlpkit_"))
	}
	if !strings.HasPrefix(s.httpAddr, "127.0.0.1:") || strings.HasSuffix(s.httpAddr, ":0") {
		t.Errorf("HTTP address %q, want the port chosen", s.httpAddr)
	}
	if !strings.Contains(s.log.String(), "http_addr="+s.httpAddr) {
		t.Errorf("log does not give the HTTP address %s:\n%s", s.httpAddr, s.log)
	}

	off := startServe(t, "--addr", "127.0.0.1:0", "--http-addr", "off", "--limits", file)
	if off.httpAddr != "" {
		t.Errorf("--http-addr off: HTTP address %q, want none", off.httpAddr)
	}
	off.mustCall(t, rlsRequest("shop", 0, rlsDesc("ip", "x")))
}

// TestServeLimitMetrics sends a known sequence of requests and compares every
// per-limit counter with the values envoyproxy/ratelimit's rules give, with
// --near-limit-ratio 0.6 (near above 3 of 5).
func TestServeLimitMetrics(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", `
- {namespace: shop, name: per user, max_value: 5, seconds: 31536000, variables: [user]}
- {namespace: shop, max_value: 100, seconds: 31536000, variables: [ip]}
`)
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--near-limit-ratio", "0.6")
	alice := func(hits uint64) *rlsv3.RateLimitRequest {
		return rlsRequest("shop", 0, rlsHits(rlsDesc("user", "alice"), hits))
	}
	steps := []struct {
		req  *rlsv3.RateLimitRequest
		want rlsv3.RateLimitResponse_Code
	}{
		{alice(1), rlsv3.RateLimitResponse_OK},         // 1 of 5
		{alice(1), rlsv3.RateLimitResponse_OK},         // 2
		{alice(1), rlsv3.RateLimitResponse_OK},         // 3: at the near threshold, not above
		{alice(2), rlsv3.RateLimitResponse_OK},         // 5: both hits near
		{alice(1), rlsv3.RateLimitResponse_OVER_LIMIT}, // over
		{alice(0), rlsv3.RateLimitResponse_OK},         // a check counts no hit, and a full counter is not over
		// Over on per user; the unnamed ip limit admits its 3 hits (3 of
		// 100, not near), though nothing is consumed.
		{rlsRequest("shop", 3, rlsDesc("user", "alice"), rlsDesc("ip", "10.0.0.1")), rlsv3.RateLimitResponse_OVER_LIMIT},
		// An override in a domain without limits.
		{rlsRequest("elsewhere", 0, rlsOverride(rlsDesc("user", "z"), 10, typev3.RateLimitUnit_HOUR)), rlsv3.RateLimitResponse_OK},
		// No limit applies: nothing per limit.
		{rlsRequest("shop", 0, rlsDesc("other", "x")), rlsv3.RateLimitResponse_OK},
	}
	for i, st := range steps {
		if got := s.mustCall(t, st.req).GetOverallCode(); got != st.want {
			t.Fatalf("step %d: %v, want %v", i, got, st.want)
		}
	}
	want := []string{
		`rlpkit_limit_hits_total{domain="(unconfigured)",limit="(override)"} 1`,
		`rlpkit_limit_hits_total{domain="shop",limit="(unnamed)"} 3`,
		`rlpkit_limit_hits_total{domain="shop",limit="per user"} 9`,
		`rlpkit_limit_near_limit_total{domain="shop",limit="per user"} 2`,
		`rlpkit_limit_over_limit_total{domain="shop",limit="per user"} 4`,
		`rlpkit_limit_within_limit_total{domain="(unconfigured)",limit="(override)"} 1`,
		`rlpkit_limit_within_limit_total{domain="shop",limit="(unnamed)"} 3`,
		`rlpkit_limit_within_limit_total{domain="shop",limit="per user"} 5`,
	}
	got := strings.Split(grepLines(scrape(t, s), "rlpkit_limit_"), "\n")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per-limit metrics mismatch (-want +got):\n%s", diff)
	}
}

// TestServeCallerGivesUp holds a call in the store until its caller cancels
// it, or until its deadline: the server answers Canceled or
// DeadlineExceeded, counts no store failure, logs none, and stays ready.
func TestServeCallerGivesUp(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	g := newGate()
	s := startServeWith(t, g.wrap, "--addr", "127.0.0.1:0", "--limits", file, "--log-format", "json")
	req := rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := s.client.ShouldRateLimit(ctx, req); done <- err }()
	<-g.entered
	cancel()
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Errorf("canceled call: %v, want Canceled", err)
	}
	waitFor(t, "the canceled call to be counted", func() bool {
		return strings.Contains(scrape(t, s), `rlpkit_rls_errors_total{code="Canceled",domain="shop"} 1`+"\n")
	})

	ctx, cancel = context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := s.client.ShouldRateLimit(ctx, req); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("call past its deadline: %v, want DeadlineExceeded", err)
	}
	waitFor(t, "the expired call to be counted", func() bool {
		return strings.Contains(scrape(t, s), `rlpkit_rls_errors_total{code="DeadlineExceeded",domain="shop"} 1`+"\n")
	})

	m := scrape(t, s)
	for _, want := range []string{"rlpkit_store_errors_total 0\n", "rlpkit_store_reachable 1\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q:\n%s", want, grepLines(m, "rlpkit_store"))
		}
	}
	if strings.Contains(m, "rlpkit_limit_store_errors_total{") || strings.Contains(m, `code="Unavailable"`) {
		t.Errorf("a caller giving up counted as a store failure:\n%s", grepLines(m, "rlpkit_"))
	}
	if code, body := s.get(t, "/readyz"); code != http.StatusOK {
		t.Errorf("GET /readyz = %d %q, want 200", code, body)
	}
	for _, line := range logLines(t, s.log.String()) {
		if line["level"] != "INFO" {
			t.Errorf("log line %v, want only INFO lines", line)
		}
	}
}

// logLines parses JSON log lines.
func logLines(t *testing.T, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// messages returns the msg of each JSON log line, with the keys of the
// line other than time, level and msg, sorted, for comparison.
func messages(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	keys := regexp.MustCompile(`^(time|level|msg)$`)
	for _, m := range logLines(t, log) {
		var attrs []string
		for k := range m {
			if !keys.MatchString(k) {
				attrs = append(attrs, k)
			}
		}
		slices.Sort(attrs)
		out = append(out, m["level"].(string)+" "+m["msg"].(string)+" "+strings.Join(attrs, ","))
	}
	return out
}

// TestServeLogLines checks the JSON log of a server that reloads a valid and
// then an invalid limits file while answering calls: one line per reload,
// none per call, and the deprecated --metrics-addr warned about once.
func TestServeLogLines(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "limits.yaml", "- {namespace: shop, max_value: 5, seconds: 60, variables: [user]}\n")
	s := startServe(t, "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--log-format", "json", "--reload-interval", "5ms", "--limits", file)
	call := func() { s.mustCall(t, rlsRequest("shop", 0, rlsDesc("user", "alice"))) }
	for range 3 {
		call()
	}
	// A different size: the watcher's fingerprint cannot tell a same-size
	// rewrite within one tick of the file system's clock.
	replaceFile(t, dir, "limits.yaml", "- {namespace: shop, max_value: 10, seconds: 60, variables: [user]}\n")
	waitFor(t, "the reload", func() bool { return strings.Contains(s.log.String(), "limits reloaded") })
	call()
	replaceFile(t, dir, "limits.yaml", "- {namespace: shop, max_value: 10, seconds: 0}\n")
	waitFor(t, "the failed reload", func() bool { return strings.Contains(s.log.String(), "reload failed") })
	for range 3 {
		call()
	}
	s.stop()
	want := []string{
		"WARN --metrics-addr is deprecated; use --http-addr (RLPKIT_HTTP_ADDR) ",
		"INFO serving addr,http_addr,inputs,limits,store",
		"INFO limits reloaded inputs,limits",
		"ERROR reload failed; keeping the limits in force err,inputs,limits",
		"INFO stopping timeout",
		"INFO stopped ",
	}
	if diff := cmp.Diff(want, messages(t, s.log.String())); diff != "" {
		t.Errorf("log lines mismatch (-want +got):\n%s\nlog:\n%s", diff, s.log)
	}
	for _, m := range logLines(t, s.log.String()) {
		if m["msg"] == "reload failed; keeping the limits in force" && !strings.Contains(m["err"].(string), "limits.yaml:1: limit: [0].seconds: must be greater than 0") {
			t.Errorf("the failed reload's err %q does not locate the problem", m["err"])
		}
	}
}
