package main

import (
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestServeRedisFailsFast kills Redis under `rlpkit serve --redis` (and
// --redis-approximate, for a token bucket, which it sends to Redis): once
// a call has found the outage, every call answers Unavailable with the
// store-down error without sending anything to Redis; the log has one
// outage line and, once Redis is back on the same port, one recovery
// line; then calls are decided again.
func TestServeRedisFailsFast(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		req   *rlsv3.RateLimitRequest
	}{
		{"exact", nil, rlsRequest("shop", 0, rlsDesc("ip", "10.0.0.1"))},
		{"approximate", []string{"--redis-approximate"}, rlsRequest("shop", 0, rlsDesc("path", "/cart", "user", "alice"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := redistest.Start(t)
			file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
			hook := &redistest.Commands{}
			args := append([]string{"--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(), "--log-format", "json"}, tc.flags...)
			s := startServeWith(t, func(o *serveOptions) { o.redisHook = hook }, args...)
			s.mustCall(t, tc.req)

			r.Kill()
			if _, err := s.call(t, tc.req); status.Code(err) != codes.Unavailable {
				t.Fatalf("the call finding Redis killed: %v, want Unavailable", err)
			}
			sent := hook.Scripts()
			const n = 50
			for i := range n {
				_, err := s.call(t, tc.req)
				if status.Code(err) != codes.Unavailable || !strings.Contains(status.Convert(err).Message(), "store known to be down") {
					t.Fatalf("call %d with Redis known down: %v, want Unavailable: ...store known to be down...", i, err)
				}
			}
			if got := hook.Scripts() - sent; got != 0 {
				t.Errorf("%d calls with Redis known down sent %d scripts, want none", n, got)
			}

			r.Restart(t)
			waitFor(t, "the recovery to be logged", func() bool { return strings.Contains(s.log.String(), `"msg":"store reachable again"`) })
			s.mustCall(t, tc.req)
			log := s.log.String()
			if down, up := strings.Count(log, `"msg":"store unreachable`), strings.Count(log, `"msg":"store reachable again"`); down != 1 || up != 1 {
				t.Errorf("the log has %d outage and %d recovery lines, want one each:\n%s", down, up, log)
			}
		})
	}
}
