package main

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestRedisSentinelAuth: the sentinels ask for a password of their own
// (requirepass), the master none. With REDIS_SENTINEL_AUTH the service
// finds the master through them and counts; without it the sentinels
// refuse it, and it exits once REDIS_STARTUP_MAX_ELAPSED_TIME has passed.
func TestRedisSentinelAuth(t *testing.T) {
	master := redistest.Start(t)
	sentinel := startSentinel(t, master, "requirepass sentinel-secret")
	env := fastStartup(redisEnv(t, master, "sentinel"))
	env["REDIS_URL"] = "mymaster," + sentinel
	env["REDIS_STARTUP_MAX_ELAPSED_TIME"] = "300ms"

	withAuth := map[string]string{"REDIS_SENTINEL_AUTH": "sentinel-secret"}
	for k, v := range env {
		withAuth[k] = v
	}
	s := start(t, withAuth)
	for _, want := range []uint32{1, 0} {
		r, err := s.call(t, "d", "k=a")
		if err != nil || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("call through the sentinel with REDIS_SENTINEL_AUTH = %v %v, want remaining %d", r, err, want)
		}
	}

	code, log := runPending(t, env).exit(t)
	if code != 1 || !strings.Contains(log, "timed out waiting for Redis connection") {
		t.Errorf("without REDIS_SENTINEL_AUTH: run = %d, want 1 and the timeout:\n%s", code, log)
	}
}
