package main

import (
	"context"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// check calls with one descriptor k=value of hits_addend 0.
func (s *server) check(t *testing.T, value string) (*rlsv3.RateLimitResponse, error) {
	t.Helper()
	req := &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlv3.RateLimitDescriptor{{
		Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "k", Value: value}}, HitsAddend: wrapperspb.UInt64(0)}}}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.client.ShouldRateLimit(ctx, req)
}

// TestRedisCountsOverHits: on Redis, shared by two instances (one with
// LOCAL_CACHE_SIZE_IN_BYTES), a refused request counts on the counter it
// is over, as the reference with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT
// does, and the other counter does not move; a check of the over counter
// (hits_addend 0, Envoy Gateway's check of a budget its responses spend)
// is then over, where a counter at its limit is not.
func TestRedisCountsOverHits(t *testing.T) {
	srv := redistest.Start(t)
	env := redisEnv(t, srv, "single")
	plain := start(t, env)
	env["LOCAL_CACHE_SIZE_IN_BYTES"] = "100000"
	cached := start(t, env)
	const ok, over = rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT
	steps := []struct {
		s         *server
		check     bool
		entries   []string
		code      rlsv3.RateLimitResponse_Code
		remaining uint32 // of the first descriptor
	}{
		{cached, false, []string{"k=x"}, ok, 1},
		{plain, false, []string{"k=x"}, ok, 0},
		{plain, true, []string{"x"}, ok, 0}, // at its limit: not over
		{cached, false, []string{"k=y", "k=x"}, over, 2},
		{plain, true, []string{"x"}, over, 0}, // 3 of 2
		{cached, true, []string{"x"}, over, 0},
		{plain, true, []string{"y"}, ok, 2}, // k=y did not move
		{cached, false, []string{"k=x"}, over, 0},
		{cached, false, []string{"k=y"}, ok, 1},
	}
	for i, st := range steps {
		var r *rlsv3.RateLimitResponse
		var err error
		if st.check {
			r, err = st.s.check(t, st.entries[0])
		} else {
			r, err = st.s.call(t, "d", st.entries...)
		}
		if err != nil || r.OverallCode != st.code || r.Statuses[0].LimitRemaining != st.remaining {
			t.Fatalf("step %d: %v = %v %v, want %v remaining %d", i, st.entries, r, err, st.code, st.remaining)
		}
	}
	if n := redisErrors(t, plain) + redisErrors(t, cached); n != 0 {
		t.Errorf("redis_error = %d, want 0", n)
	}
	// Counting the rejected hits did not make the local cache forget that
	// k=x is full: with Redis gone, it still answers; and k=x being known
	// over, its rejected hit is not sent to Redis again (the reference's
	// cache increments nothing for a key it holds over): no redis_error.
	srv.Kill()
	if r, err := cached.call(t, "d", "k=x"); err != nil || r.OverallCode != over {
		t.Errorf("k=x with Redis down = %v %v, want OVER_LIMIT from the local cache", r, err)
	}
	if n := redisErrors(t, cached); n != 0 {
		t.Errorf("redis_error = %d after a call answered from the local cache, want 0", n)
	}
}
