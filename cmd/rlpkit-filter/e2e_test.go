package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	statusContinue = 0
	statusPause    = 1
)

// get builds the headers and properties of a request as Envoy presents them.
func get(method, authority, path, remote string, headers ...[2]string) ([][2]string, map[string][]byte) {
	hs := [][2]string{{":authority", authority}, {":path", path}, {":method", method}, {":scheme", "http"}}
	hs = append(hs, headers...)
	props := map[string][]byte{}
	if remote != "" {
		props["source\x00address"] = []byte(remote)
	}
	return hs, props
}

// outcome says what happened to a stream: "continue", "429", "500" or "paused", failing the
// test when the filter both continued and replied, or did either twice.
func outcome(t testing.TB, s *stream) string {
	t.Helper()
	if s.continued+s.replies > 1 {
		t.Fatalf("stream %d: continued %d times and replied %d times; want one of them once", s.id, s.continued, s.replies)
	}
	switch {
	case s.reply != nil:
		return itoa(s.reply.code)
	case s.continued == 1:
		return "continue"
	case s.action == statusContinue:
		return "continue"
	}
	return "paused"
}

// TestToystore runs the toystore example through the module against package rls: GET
// /admin from one client is limited at 50 a minute (the override limit), and the RLS's
// RateLimit headers reach the response (a minute from the first hit, the window limitador
// counts); then the 51st request gets a local 429.
func TestToystore(t *testing.T) {
	cfg, limits := toystore(t)
	h, ok := newHost(t, module, withTimeout(t, cfg), withCluster("rate-limit-cluster", startRLS(t, limits)))
	if !ok {
		t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
	}
	for i := 1; i <= 51; i++ {
		s := h.request(get("GET", "api.toystore.com", "/admin", "203.0.113.7:41000"))
		if s.action != statusPause {
			t.Fatalf("request %d: proxy_on_request_headers = %d, want Pause while the RLS is asked", i, s.action)
		}
		h.deliver(h.next())
		got := outcome(t, s)
		if i <= 50 {
			if got != "continue" {
				t.Fatalf("request %d = %s, want continue\n%s", i, got, h.dump())
			}
			h.respond(s, [][2]string{{":status", "200"}})
			want := [][2]string{{"ratelimit-limit", "50"}, {"ratelimit-remaining", itoa(uint32(50 - i))}, {"ratelimit-reset", "60"}}
			if diff := cmp.Diff(want, s.added); diff != "" {
				t.Errorf("request %d: response headers added (-want +got):\n%s", i, diff)
			}
		} else {
			if got != "429" {
				t.Fatalf("request %d = %s, want 429", i, got)
			}
			want := [][2]string{{"x-envoy-ratelimited", "true"}, {"ratelimit-limit", "50"}, {"ratelimit-remaining", "0"}, {"ratelimit-reset", "60"}, {"retry-after", "60"}}
			if diff := cmp.Diff(want, s.reply.headers); diff != "" {
				t.Errorf("429 headers (-want +got):\n%s", diff)
			}
		}
		h.end(s)
	}
	// The /admin limit has no variables: it is over for everyone. /toy is limited only per
	// client and by the Gateway's 100 a minute, of which the 50 admitted requests used half.
	s := h.request(get("GET", "api.toystore.com", "/admin", "198.51.100.1:5000"))
	h.deliver(h.next())
	if got := outcome(t, s); got != "429" {
		t.Errorf("GET /admin from another client = %s, want 429", got)
	}
	s = h.request(get("GET", "api.toystore.com", "/toy/1", "198.51.100.1:5000"))
	h.deliver(h.next())
	if got := outcome(t, s); got != "continue" {
		t.Errorf("GET /toy/1 from another client = %s, want continue", got)
	}
	s = h.request(get("GET", "www.example.com", "/admin", "203.0.113.7:41000"))
	if s.action != statusContinue || len(h.calls) != 0 {
		t.Errorf("unrelated host: action %d with %d calls, want Continue and no call", s.action, len(h.calls))
	}
	if len(h.ignored) != 0 || h.pollOneoff != 0 {
		t.Errorf("ignored actions %v, poll_oneoff calls %d; want none", h.ignored, h.pollOneoff)
	}
}

// TestConfigure checks that a bad PluginConfig fails proxy_on_configure with the decoder's
// and validator's errors in the log, and that the plugin configuration's timeout reaches
// proxy_grpc_call.
func TestConfigure(t *testing.T) {
	tests := []struct {
		name     string
		config   string
		wantLogs []string
	}{
		{name: "empty", config: "", wantLogs: []string{"[4] rlpkit-filter: the plugin configuration is empty: it must be a PluginConfig as JSON (rlpkit compile -o json prints one per Gateway)"}},
		{name: "not JSON", config: "failureModeDeny: true", wantLogs: []string{"[4] rlpkit-filter: plugin configuration: "}},
		{name: "unknown field and invalid values", config: `{"rateLimitPolicies":[{"rateLimitDomain":"","upstreamCluster":"c","hostnames":["a.com"],"colour":"red"}]}`,
			wantLogs: []string{`[4] rlpkit-filter: plugin configuration: rateLimitPolicies[0].colour: unknown field`}},
		{name: "every validation error", config: `{"timeout":"5","rateLimitPolicies":[{"rateLimitDomain":"","upstreamCluster":"c","hostnames":[]}]}`,
			wantLogs: []string{
				`[4] rlpkit-filter: plugin configuration: timeout: invalid duration "5": must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`,
				`[4] rlpkit-filter: plugin configuration: rateLimitPolicies[0].rateLimitDomain: required`,
				`[4] rlpkit-filter: plugin configuration: rateLimitPolicies[0].hostnames: at least one hostname is required`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h, ok := newHost(t, module, []byte(tc.config))
			if ok {
				t.Fatalf("proxy_on_configure succeeded, want a failure")
			}
			got := strings.Join(h.logs, "\n")
			for _, want := range tc.wantLogs {
				if !strings.Contains(got, want) {
					t.Errorf("logs lack %q; got:\n%s", want, got)
				}
			}
		})
	}
	t.Run("timeout", func(t *testing.T) {
		for _, tc := range []struct {
			timeout string
			want    string
		}{{"", "100ms"}, {`"timeout":"250ms",`, "250ms"}} {
			cfg := `{` + tc.timeout + `"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"rls","hostnames":["*"],
				"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}]}]}]}]}`
			h, ok := newHost(t, module, []byte(cfg), withCluster("rls", startRLS(t, nil)))
			if !ok {
				t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
			}
			h.request(get("GET", "a.com", "/", ""))
			c := h.next()
			if c.timeout.String() != tc.want || c.service != "envoy.service.ratelimit.v3.RateLimitService" || c.method != "ShouldRateLimit" || c.cluster != "rls" {
				t.Errorf("call %s/%s on %q with timeout %v, want envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit on \"rls\" with %s",
					c.service, c.method, c.cluster, c.timeout, tc.want)
			}
		}
	})
}
