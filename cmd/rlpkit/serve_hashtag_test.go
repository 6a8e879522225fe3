package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
)

func TestParseRedisHashTag(t *testing.T) {
	env := map[string]string{"RLPKIT_REDIS_HASH_TAG": "first-entry"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	o, err := parseServe([]string{"--limits", "l.yaml", "--redis", "redis://r:6379"}, lookup, io.Discard)
	if err != nil || o.redisHashTag != limit.TagByFirstEntry {
		t.Errorf("RLPKIT_REDIS_HASH_TAG=first-entry: %v, %v; want first-entry", o.redisHashTag, err)
	}
	if o, err := parseServe([]string{"--limits", "l.yaml", "--redis", "redis://r:6379"}, noEnv, io.Discard); err != nil || o.redisHashTag != limit.TagByDomain {
		t.Errorf("by default: %v, %v; want domain", o.redisHashTag, err)
	}
	env["RLPKIT_REDIS_HASH_TAG"] = "tenant"
	_, err = parseServe([]string{"--limits", "l.yaml", "--redis", "redis://r:6379"}, lookup, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `RLPKIT_REDIS_HASH_TAG="tenant": invalid value for --redis-hash-tag: limit: hash tag "tenant": want domain or first-entry`) {
		t.Errorf("RLPKIT_REDIS_HASH_TAG=tenant: %v, want an error naming the variable and the choices", err)
	}
}

// clusterKeys returns the keys a Redis Cluster holds, sorted.
func clusterKeys(t *testing.T, r *redistest.Server) []string {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: r.Addr})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}

// TestServeRedisHashTagFirstEntry: with --redis-hash-tag first-entry on a
// Redis Cluster, a limit's counters are tagged by its first variable, and a
// request whose counters fall under two tags is decided per tag: refused for
// the user over its limit, it is still charged on the organisation's
// counter, which had room. The same for --ratelimit-config, by the
// descriptors' first entries.
func TestServeRedisHashTagFirstEntry(t *testing.T) {
	t.Run("limits", func(t *testing.T) {
		r := redistest.StartCluster(t)
		file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 1, seconds: 60, variables: [user]}\n- {namespace: shop, max_value: 5, seconds: 60, variables: [org]}\n")
		s := startServe(t, "--addr", "127.0.0.1:0", "--limits", file, "--redis", r.URL()+"?addr="+r.Addr, "--redis-hash-tag", "first-entry")
		req := rlsRequest("shop", 0, rlsDesc("user", "alice", "org", "acme"))
		for i, want := range []rlsv3.RateLimitResponse_Code{rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT} {
			if got := s.mustCall(t, req).GetOverallCode(); got != want {
				t.Fatalf("call %d: %v, want %v", i, got, want)
			}
		}
		keys := clusterKeys(t, r)
		if len(keys) != 2 || !strings.HasPrefix(keys[0], "{shop|org|acme}") || !strings.HasPrefix(keys[1], "{shop|user|alice}") {
			t.Fatalf("Redis keys %q, want one tagged {shop|org|acme} and one {shop|user|alice}", keys)
		}
		if got := redisCount(t, r, keys[0]); got != 2 {
			t.Errorf("org's counter holds %d hits, want 2: charged under its tag though the user's refused the request", got)
		}
		if got := redisCount(t, r, keys[1]); got != 1 {
			t.Errorf("user's counter holds %d hits, want 1", got)
		}
	})
	t.Run("ratelimit config", func(t *testing.T) {
		r := redistest.StartCluster(t)
		dir := t.TempDir()
		writeFile(t, dir, "a.yaml", "domain: d\ndescriptors:\n  - key: user\n    rate_limit: {unit: hour, requests_per_unit: 1}\n  - key: org\n    rate_limit: {unit: hour, requests_per_unit: 5}\n")
		s := startServe(t, "--addr", "127.0.0.1:0", "--ratelimit-config", dir, "--redis", r.URL()+"?addr="+r.Addr, "--redis-hash-tag", "first-entry")
		req := rlsRequest("d", 0, rlsDesc("user", "alice"), rlsDesc("org", "acme"))
		for i, want := range []rlsv3.RateLimitResponse_Code{rlsv3.RateLimitResponse_OK, rlsv3.RateLimitResponse_OVER_LIMIT} {
			if got := s.mustCall(t, req).GetOverallCode(); got != want {
				t.Fatalf("call %d: %v, want %v", i, got, want)
			}
		}
		want := []string{"{d|org|acme}R3600:fixed_window:1:3:org4:acme", "{d|user|alice}R3600:fixed_window:1:4:user5:alice"}
		if keys := clusterKeys(t, r); !slices.Equal(keys, want) {
			t.Fatalf("Redis keys %q, want %q", keys, want)
		}
		if got := redisCount(t, r, want[0]); got != 2 {
			t.Errorf("org's counter holds %d hits, want 2", got)
		}
	})
}

// redisCount returns the hits of the counter key holds in r.
func redisCount(t *testing.T, r *redistest.Server, key string) int {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: r.Addr})
	defer c.Close()
	v, err := c.Get(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	var at, n, prev int
	if _, err := fmt.Sscan(v, &at, &n, &prev); err != nil {
		t.Fatalf("counter %s holds %q: %v", key, v, err)
	}
	return n
}
