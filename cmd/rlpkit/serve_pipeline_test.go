package main

import (
	"fmt"
	"sync"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestServeRedisPipelineWindow serves with a window long enough that only
// --redis-pipeline-limit ends it: 4 calls, each of its own counter, sent
// 20 ms apart (each would find Redis free and go alone without a window),
// are decided by one script call, and each is answered as alone; with
// --redis-pipeline-limit 1, by one script call each.
func TestServeRedisPipelineWindow(t *testing.T) {
	for _, tc := range []struct {
		limit string
		want  int64
	}{{"4", 1}, {"1", 4}} {
		t.Run("limit="+tc.limit, func(t *testing.T) {
			testPipelineWindow(t, tc.limit, tc.want)
		})
	}
}

func testPipelineWindow(t *testing.T, limit string, want int64) {
	r := redistest.Start(t)
	file := writeFile(t, t.TempDir(), "limits.yaml", e2eLimits)
	hook := &redistest.Commands{}
	s := startServeWith(t, func(o *serveOptions) { o.redisHook = hook }, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL(),
		"--redis-timeout", "4s", "--redis-pipeline-window", "3s", "--redis-pipeline-limit", limit)
	const n = 4
	round := func(first int) {
		var wg sync.WaitGroup
		for i := range n {
			time.Sleep(20 * time.Millisecond)
			wg.Go(func() {
				resp, err := s.call(t, rlsRequest("shop", 0, rlsDesc("ip", fmt.Sprintf("10.0.0.%d", first+i))))
				if err != nil || resp.GetOverallCode() != rlsv3.RateLimitResponse_OK {
					t.Errorf("call %d: %v, %v; want OK", first+i, resp.GetOverallCode(), err)
				}
			})
		}
		wg.Wait()
	}
	round(1) // loads the script: EVALSHA answered NOSCRIPT, then EVAL
	sent := hook.Scripts()
	round(1 + n)
	if got := hook.Scripts() - sent; got != want {
		t.Errorf("%d calls within the window, --redis-pipeline-limit %s: %d script calls, want %d", n, limit, got, want)
	}
}

// TestPipelineOptionsApply sets limit/redis's options from the flags and
// their environment variables.
func TestPipelineOptionsApply(t *testing.T) {
	env := map[string]string{"RLPKIT_REDIS_PIPELINE_WINDOW": "250us"}
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	o, err := parseServe([]string{"--limits", "x.yaml", "--redis", "redis://127.0.0.1:1", "--redis-pipeline-limit", "8"}, lookup, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ro redis.Options
	o.pipeline.apply(&ro)
	if ro.Window != 250*time.Microsecond || ro.BatchRequests != 8 {
		t.Errorf("options from --redis-pipeline-limit 8 and RLPKIT_REDIS_PIPELINE_WINDOW=250us: Window %v, BatchRequests %d; want 250µs, 8", ro.Window, ro.BatchRequests)
	}
}
