package main

import (
	"context"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// concurrentScripts is a go-redis hook that holds each EVALSHA (alone or
// in a pipeline) until want of them are in flight at once, or until a
// guard of 3 s passes, and records the most seen in flight together.
type concurrentScripts struct {
	want    int
	mu      sync.Mutex
	inside  int
	most    int
	reached chan struct{}
}

func newConcurrentScripts(want int) *concurrentScripts {
	return &concurrentScripts{want: want, reached: make(chan struct{})}
}

func (h *concurrentScripts) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *concurrentScripts) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		if cmd.Name() == "evalsha" {
			defer h.hold()()
		}
		return next(ctx, cmd)
	}
}

func (h *concurrentScripts) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		for _, c := range cmds {
			if c.Name() == "evalsha" {
				defer h.hold()()
				break
			}
		}
		return next(ctx, cmds)
	}
}

// hold waits as described and returns what ends the call's stay.
func (h *concurrentScripts) hold() func() {
	h.mu.Lock()
	h.inside++
	h.most = max(h.most, h.inside)
	if h.inside == h.want {
		close(h.reached)
	}
	h.mu.Unlock()
	select {
	case <-h.reached:
	case <-time.After(3 * time.Second): // a guard: the test fails on most below
	}
	return func() {
		h.mu.Lock()
		h.inside--
		h.mu.Unlock()
	}
}

// TestRedisClusterPipelineParallelism: with
// REDIS_CLUSTER_PIPELINE_PARALLELISM=2 two calls' script calls are in
// flight to the Cluster at once (with the default, 1, the second waits for
// the first).
func TestRedisClusterPipelineParallelism(t *testing.T) {
	srv := redistest.StartCluster(t)
	env := redisEnv(t, srv, "cluster")
	env["REDIS_CLUSTER_PIPELINE_PARALLELISM"] = "2"
	hook := newConcurrentScripts(2)
	s := startWith(t, env, func(st *settings) { st.redisHook = hook })
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { _, errs[i] = s.call(t, "d", "k=a") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	hook.mu.Lock()
	defer hook.mu.Unlock()
	if hook.most != 2 {
		t.Errorf("at most %d script calls in flight at once, want 2", hook.most)
	}
}
