package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestServeRatelimitConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 1}\n  - key: w\n")
	s := startServe(t, "--ratelimit-config", dir, "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--reload-interval", "50ms")
	want := []rlsv3.RateLimitResponse_Code{rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT}
	for i, code := range want {
		r := s.mustCall(t, rlsRequest("d", 0, rlsDesc("k", "a")))
		if r.OverallCode != code {
			t.Errorf("call %d = %v, want %v", i, r.OverallCode, code)
		}
	}
	_, metrics := httpGet(t, "http://"+s.httpAddr+"/metrics")
	for _, want := range []string{
		`rlpkit_limit_hits_total{domain="d",limit="k"} 2`,
		`rlpkit_limit_over_limit_total{domain="d",limit="k"} 1`,
		`rlpkit_limit_within_limit_total{domain="d",limit="k"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// Whitelisted, and an override ignored in a domain without configuration.
	r := s.mustCall(t, rlsRequest("d", 0, rlsDesc("w", "x"), rlsDesc("nope", "y")))
	if r.OverallCode != rlsv3.RateLimitResponse_OK || r.Statuses[0].CurrentLimit != nil {
		t.Errorf("whitelist = %v, want OK without a limit", r)
	}
	if r := s.mustCall(t, rlsRequest("other", 0, rlsOverride(rlsDesc("k", "a"), 0, typev3.RateLimitUnit_SECOND))); r.OverallCode != rlsv3.RateLimitResponse_OK {
		t.Errorf("override in an unknown domain = %v, want OK", r)
	}
	// A bad file keeps the configuration in force; a good one replaces it.
	replaceFile(t, dir, "a.yaml", "domain: d\nbogus: 1\n")
	waitFor(t, "the failed reload", func() bool { return strings.Contains(s.log.String(), "config error, unknown key 'bogus'") })
	if _, metrics := httpGet(t, "http://"+s.httpAddr+"/metrics"); !strings.Contains(metrics, `rlpkit_limits_reloads_total{result="failure"} 1`) {
		t.Errorf("/metrics does not count the failed reload")
	}
	replaceFile(t, dir, "a.yaml", "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 5}\n")
	waitFor(t, "the reload", func() bool {
		r, err := s.call(t, rlsRequest("d", 0, rlsDesc("k", "a")))
		return err == nil && r.Statuses[0].CurrentLimit.GetRequestsPerUnit() == 5
	})
	_, err := s.call(t, rlsRequest("d", 0, rlsOverride(rlsDesc("k", "a"), 1, typev3.RateLimitUnit_UNKNOWN)))
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "UNKNOWN is not a unit") {
		t.Errorf("override with unit UNKNOWN = %v, want InvalidArgument naming the unit", err)
	}
}

// TestServeRatelimitConfigConventions: envoyproxy/ratelimit's configuration
// is answered with rlpkit's conventions, as every input of rlpkit serve:
// InvalidArgument for a bad request, Retry-After when over, and metrics
// labelled by the configured limit, never by a request value (a
// detailed_metric rule's statistics key embeds the request's values, and so
// does a limit override's).
func TestServeRatelimitConfigConventions(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.yaml", "domain: d\ndescriptors:\n  - key: user\n    detailed_metric: true\n    rate_limit: {unit: hour, requests_per_unit: 1}\n  - key: named\n    rate_limit: {name: per-name, unit: hour, requests_per_unit: 1}\n")
	s := startServe(t, "--ratelimit-config", dir, "--addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--response-headers")
	for range 2 {
		s.mustCall(t, rlsRequest("d", 0, rlsDesc("user", "secret-alice")))
	}
	r := s.mustCall(t, rlsRequest("d", 0, rlsDesc("named", "secret-bob")))
	if r.OverallCode != rlsv3.RateLimitResponse_OK {
		t.Errorf("first call of a named rule = %v, want OK", r)
	}
	for _, v := range []string{"secret-carol", "secret-dave"} { // overrides: one series per domain
		s.mustCall(t, rlsRequest("d", 0, rlsOverride(rlsDesc("tenant", v), 5, typev3.RateLimitUnit_MINUTE)))
	}
	r = s.mustCall(t, rlsRequest("d", 0, rlsDesc("user", "secret-alice")))
	retry := ""
	for _, h := range r.ResponseHeadersToAdd {
		if h.Key == "Retry-After" {
			retry = h.Value
		}
	}
	if r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT || retry == "" {
		t.Errorf("over the limit = %v, want OVER_LIMIT with Retry-After", r)
	}
	_, metrics := httpGet(t, "http://"+s.httpAddr+"/metrics")
	for _, want := range []string{`rlpkit_limit_hits_total{domain="d",limit="user"} 3`, `rlpkit_limit_hits_total{domain="d",limit="per-name"} 1`,
		`rlpkit_limit_hits_total{domain="d",limit="(override)"} 2`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, "secret") {
		t.Errorf("/metrics has a request value as a label:\n%s", metrics)
	}
	_, err := s.call(t, rlsRequest("", 0, rlsDesc("user", "a")))
	if st := status.Convert(err); st.Code() != codes.InvalidArgument || st.Message() != "rls: invalid request: domain: empty" {
		t.Errorf("empty domain = %v, want InvalidArgument rls: invalid request: domain: empty", err)
	}
}

func TestServeRatelimitConfigErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte("domain: d\ndescriptors:\n  - value: v\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad config at start", []string{"--ratelimit-config", dir}, "rlpkit serve: --ratelimit-config: " + filepath.Base(dir) + ".a.yaml:3: descriptors[0].key: descriptor has empty key"},
		{"with --limits", []string{"--ratelimit-config", dir, "--limits", "x.yaml"}, "--ratelimit-config DIR is an input of its own"},
		{"option without it", []string{"--ratelimit-shadow-mode", "--limits", "x.yaml"}, "need --ratelimit-config"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr lockedBuffer
			done := make(chan int, 1)
			go func() {
				done <- serveUntil(t.Context(), append(tc.args, "--addr", "127.0.0.1:0", "--http-addr", "off"), &lockedBuffer{}, &stderr, nil)
			}()
			select {
			case code := <-done:
				if code == 0 || !strings.Contains(stderr.String(), tc.want) {
					t.Errorf("serve %v = %d, stderr %q; want an error containing %q", tc.args, code, stderr.String(), tc.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("serve %v did not stop", tc.args)
			}
		})
	}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
