package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestParseStoreCacheFlags: the flags of the over-limit cache and the
// approximate mode, from the command line and the environment, and their
// usage errors.
func TestParseStoreCacheFlags(t *testing.T) {
	const redisURL = "redis://127.0.0.1:6379"
	tests := []struct {
		name       string
		env        map[string]string
		args       []string
		want       storeCacheOptions
		serverTime bool
		err        string
	}{
		{"defaults", nil, []string{"--redis", redisURL}, storeCacheOptions{redisFlushPeriod: time.Second}, true, ""},
		{"flags", nil, []string{"--redis", redisURL, "--local-cache-size", "1048576", "--redis-approximate", "--redis-flush-period", "250ms"},
			storeCacheOptions{localCacheSize: 1 << 20, redisApproximate: true, redisFlushPeriod: 250 * time.Millisecond}, false, ""},
		{"environment", map[string]string{"RLPKIT_REDIS_URL": redisURL, "RLPKIT_LOCAL_CACHE_SIZE": "4096", "RLPKIT_REDIS_APPROXIMATE": "true", "RLPKIT_REDIS_FLUSH_PERIOD": "2s"}, nil,
			storeCacheOptions{localCacheSize: 4096, redisApproximate: true, redisFlushPeriod: 2 * time.Second}, false, ""},
		{"the flag wins", map[string]string{"RLPKIT_LOCAL_CACHE_SIZE": "4096"}, []string{"--redis", redisURL, "--local-cache-size", "0"},
			storeCacheOptions{redisFlushPeriod: time.Second}, true, ""},
		{"cache without Redis", nil, []string{"--local-cache-size", "4096"}, storeCacheOptions{}, false, "--local-cache-size saves calls to Redis; it needs --redis"},
		{"cache without Redis, from the environment", map[string]string{"RLPKIT_LOCAL_CACHE_SIZE": "4096"}, nil, storeCacheOptions{}, false,
			"RLPKIT_LOCAL_CACHE_SIZE saves calls to Redis; it needs --redis"},
		{"negative cache", nil, []string{"--redis", redisURL, "--local-cache-size", "-1"}, storeCacheOptions{}, false, "--local-cache-size -1: want 0 or more"},
		{"approximate without Redis", nil, []string{"--redis-approximate"}, storeCacheOptions{}, false,
			"--redis-approximate counts in process and writes to Redis; it needs --redis"},
		{"flush period alone", nil, []string{"--redis", redisURL, "--redis-flush-period", "2s"}, storeCacheOptions{}, false,
			"--redis-flush-period needs --redis-approximate"},
		{"zero flush period", nil, []string{"--redis", redisURL, "--redis-approximate", "--redis-flush-period", "0s"}, storeCacheOptions{}, false,
			"--redis-flush-period 0s: want more than 0"},
		{"approximate with the Redis clock", nil, []string{"--redis", redisURL, "--redis-approximate", "--redis-server-time"}, storeCacheOptions{}, false,
			"--redis-approximate decides at this server's clock; it cannot use --redis-server-time"},
		{"approximate without the Redis clock", nil, []string{"--redis", redisURL, "--redis-approximate", "--redis-server-time=false"},
			storeCacheOptions{redisApproximate: true, redisFlushPeriod: time.Second}, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"--limits", "l.yaml"}, tc.args...)
			o, err := parseServe(args, lookup, io.Discard)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("parseServe(%v, %v) error = %v, want %q", args, tc.env, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseServe(%v, %v) error = %v", args, tc.env, err)
			}
			if diff := cmp.Diff(tc.want, o.cache, cmp.AllowUnexported(storeCacheOptions{})); diff != "" {
				t.Errorf("parseServe(%v, %v) mismatch (-want +got):\n%s", args, tc.env, diff)
			}
			if o.redisServerTime != tc.serverTime {
				t.Errorf("parseServe(%v, %v): Redis clock %v, want %v", args, tc.env, o.redisServerTime, tc.serverTime)
			}
		})
	}
}

// TestServeLocalCache: with --local-cache-size, a counter Redis showed full
// is answered over the limit without any Redis command until its window
// ends, as MONITOR shows.
func TestServeLocalCache(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 2, seconds: 31536000, variables: [user]}\n")
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--local-cache-size", "65536")
	req := rlsRequest("shop", 0, rlsDesc("user", "alice"))
	for i, want := range []rlsv3.RateLimitResponse_Code{rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT} {
		if got := s.mustCall(t, req).GetOverallCode(); got != want {
			t.Fatalf("call %d: %v, want %v", i, got, want)
		}
	}
	stop := monitor(t, r)
	for i := range 10 {
		if got := s.mustCall(t, req).GetOverallCode(); got != rlsv3.RateLimitResponse_OVER_LIMIT {
			t.Fatalf("cached call %d: %v, want OVER_LIMIT", i, got)
		}
	}
	// Another user is not cached: one EVALSHA.
	if got := s.mustCall(t, rlsRequest("shop", 0, rlsDesc("user", "bob"))).GetOverallCode(); got != rlsv3.RateLimitResponse_OK {
		t.Fatalf("bob: %v, want OK", got)
	}
	if got := stop(); !cmp.Equal(got, map[string]int{"evalsha": 1}) {
		t.Errorf("Redis ran %v for 10 calls over a cached full counter and one other, want evalsha 1 and nothing else", got)
	}
}

// TestServeApproximate: with --redis-approximate, calls are decided without
// Redis commands, and stopping the server writes their hits to Redis in
// limit/redis's format: a second server, exact, then sees them.
func TestServeApproximate(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 50, seconds: 31536000, variables: [user]}\n")
	// An hour between flushes: nothing is written before the stop, and the
	// allowance (50/10 = 5) is not reached.
	approx := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--redis-approximate", "--redis-flush-period", "1h")
	req := rlsRequest("shop", 0, rlsDesc("user", "alice"))
	stop := monitor(t, r)
	for i := range 5 {
		if got := approx.mustCall(t, req).GetOverallCode(); got != rlsv3.RateLimitResponse_OK {
			t.Fatalf("call %d: %v, want OK", i, got)
		}
	}
	if got := stop(); len(got) != 0 {
		t.Errorf("Redis ran %v for 5 calls within the allowance, want nothing", got)
	}
	if code := approx.stop(); code != exitOK {
		t.Fatalf("serve exited %d:\n%s", code, approx.log)
	}
	keys, err := redisClient(t, r).Keys(context.Background(), "*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("Redis keys %q (%v), want one counter", keys, err)
	}
	v, err := redisClient(t, r).Get(context.Background(), keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, rest, _ := strings.Cut(v, " "); !strings.HasPrefix(rest, "5 ") {
		t.Errorf("Redis holds %q for %s after the stop, want a count of 5", v, keys[0])
	}
	exact := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL())
	st := exact.mustCall(t, req).GetStatuses()[0]
	if got := st.GetLimitRemaining(); got != 44 {
		t.Errorf("exact server after the approximate one's 5 hits: remaining %d, want 44", got)
	}
}

// TestServeApproximateRedisDown: with --redis-approximate, a server whose
// Redis dies keeps answering from its own counts (OK up to the limit, then
// OVER_LIMIT, never Unavailable), stays ready, logs the outage, and writes
// the hits it kept once Redis is back.
func TestServeApproximateRedisDown(t *testing.T) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 10, seconds: 31536000, variables: [user]}\n")
	s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--redis-approximate", "--redis-flush-period", "50ms")
	req := rlsRequest("shop", 0, rlsDesc("user", "alice"))
	r.Kill()
	var codes []rlsv3.RateLimitResponse_Code
	for range 12 {
		codes = append(codes, s.mustCall(t, req).GetOverallCode())
	}
	want := []rlsv3.RateLimitResponse_Code{}
	for i := range 12 {
		if i < 10 {
			want = append(want, rlsv3.RateLimitResponse_OK)
		} else {
			want = append(want, rlsv3.RateLimitResponse_OVER_LIMIT)
		}
	}
	if diff := cmp.Diff(want, codes); diff != "" {
		t.Errorf("answers with Redis down (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := healthpb.NewHealthClient(s.conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || h.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health with Redis down in approximate mode: %v, %v; want SERVING", h, err)
	}
	waitFor(t, "the outage to be logged", func() bool {
		return strings.Contains(s.log.String(), "store unreachable; fixed windows are decided in process")
	})
	r.Restart(t)
	waitFor(t, "the recovery to be logged", func() bool { return strings.Contains(s.log.String(), "store reachable again") })
	var keys []string
	waitFor(t, "the kept hits to be written", func() bool {
		var err error
		keys, err = redisClient(t, r).Keys(context.Background(), "*").Result()
		return err == nil && len(keys) == 1
	})
	v, err := redisClient(t, r).Get(context.Background(), keys[0]).Result()
	if err != nil {
		t.Fatal(err)
	}
	if _, rest, _ := strings.Cut(v, " "); !strings.HasPrefix(rest, "10 ") {
		t.Errorf("Redis holds %q for %s once back, want the 10 hits admitted while it was down", v, keys[0])
	}
}
