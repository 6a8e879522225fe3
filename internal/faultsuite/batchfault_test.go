package faultsuite

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestBadKeyBesideHealthy turns one user's counter key in Redis into a list
// and has 32 concurrent clients call each server, one of them as that user:
// the Redis store decides concurrent requests in shared script calls, and
// the bad key must fail only the requests that touch it. Every call of the
// other 31 clients is answered OK, and every call of the one is an error.
func TestBadKeyBesideHealthy(t *testing.T) {
	const clients, calls = 32, 50
	limits := "- {namespace: " + faultDomain + ", max_value: 1000, seconds: 86400, variables: [user]}\n"
	config := "domain: " + faultDomain + "\ndescriptors:\n  - key: user\n    rate_limit: {unit: day, requests_per_unit: 1000}\n"
	for _, tc := range []struct {
		name  string
		start func(t *testing.T, redis *redistest.Server) *server
	}{
		{"rlpkit serve --redis", func(t *testing.T, r *redistest.Server) *server {
			return startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits), "--redis", r.URL())
		}},
		{"cmd/ratelimit", func(t *testing.T, r *redistest.Server) *server {
			return startRatelimit(t, config, "BACKEND_TYPE=redis", "REDIS_SOCKET_TYPE=tcp", "REDIS_URL="+r.Addr)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := redistest.Start(t)
			srv := tc.start(t, redis)
			call := func(user string) error {
				req := &rlsv3.RateLimitRequest{Domain: faultDomain, Descriptors: []*rlcommon.RateLimitDescriptor{
					{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: user}}},
				}}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				resp, err := srv.client.ShouldRateLimit(ctx, req)
				if err == nil && resp.GetOverallCode() != rlsv3.RateLimitResponse_OK {
					err = fmt.Errorf("answered %v", resp.GetOverallCode())
				}
				return err
			}
			const poison = "poisonq7z"
			if err := call(poison); err != nil {
				t.Fatalf("first call as %s: %v", poison, err)
			}
			poisonKey(t, redis, poison)

			var healthyFailed atomic.Int64
			var firstErr atomic.Value
			badOK := 0
			var wg sync.WaitGroup
			for g := range clients {
				wg.Go(func() {
					user := fmt.Sprintf("healthy%02dq", g)
					if g == 0 {
						user = poison
					}
					for range calls {
						err := call(user)
						switch {
						case g == 0 && err == nil:
							badOK++
						case g != 0 && err != nil:
							healthyFailed.Add(1)
							firstErr.CompareAndSwap(nil, status.Convert(err).Message())
						}
					}
				})
			}
			wg.Wait()
			if n := healthyFailed.Load(); n != 0 {
				t.Errorf("%d of %d calls of healthy users failed (first: %v), want 0", n, (clients-1)*calls, firstErr.Load())
			}
			if badOK != 0 {
				t.Errorf("%d of %d calls whose counter key holds a list were answered OK, want an error", badOK, calls)
			}
		})
	}
}

// poisonKey replaces the counter key naming user in redis by a list.
func poisonKey(t *testing.T, redis *redistest.Server, user string) {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer c.Close()
	ctx := context.Background()
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	n := 0
	for _, k := range keys {
		if !strings.Contains(k, user) {
			continue
		}
		n++
		if err := c.Del(ctx, k).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.RPush(ctx, k, "x").Err(); err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatalf("no key names %s among %q", user, keys)
	}
}
