package main

import (
	"context"
	"slices"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestRedisClusterFirstEntryTags: with RLPKIT_REDIS_HASH_TAG=first-entry on
// a Redis Cluster, each descriptor's counter is tagged by its first entry,
// and a request spanning two tags is decided per tag: over on k=a, it is
// still charged on k=c, which had room.
func TestRedisClusterFirstEntryTags(t *testing.T) {
	srv := redistest.StartCluster(t)
	env := redisEnv(t, srv, "cluster")
	env["RLPKIT_REDIS_HASH_TAG"] = "first-entry"
	s := start(t, env)
	for _, want := range []uint32{1, 0} {
		r, err := s.call(t, "d", "k=a", "k=b")
		if err != nil || r.OverallCode != 1 || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("call = %v %v, want OK with remaining %d", r, err, want)
		}
	}
	r, err := s.call(t, "d", "k=a", "k=c")
	if err != nil || r.OverallCode != 2 || r.Statuses[0].Code != 2 || r.Statuses[1].Code != 1 || r.Statuses[1].LimitRemaining != 1 {
		t.Fatalf("call spanning tags = %v %v, want OVER_LIMIT: k=a over, k=c OK with remaining 1", r, err)
	}
	if r, err := s.call(t, "d", "k=c"); err != nil || r.Statuses[0].LimitRemaining != 0 {
		t.Errorf("k=c after the request over on k=a = %v %v, want remaining 0: charged under its own tag", r, err)
	}
	c := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	want := []string{"rl:{d|k|a}R3600:fixed_window:1:1:k1:a", "rl:{d|k|b}R3600:fixed_window:1:1:k1:b", "rl:{d|k|c}R3600:fixed_window:1:1:k1:c"}
	if !slices.Equal(keys, want) {
		t.Errorf("Redis keys %q, want %q", keys, want)
	}
}
