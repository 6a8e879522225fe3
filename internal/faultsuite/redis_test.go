package faultsuite

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// budget is each user's limit in the Redis fault tests: per day, so that
// the whole test is one window (two when it spans midnight UTC).
const budget = 200

// TestRedisFaults drives each Redis-backed server with concurrent clients
// of short deadlines while Redis is frozen, resumed, killed and restarted
// (with its acknowledged writes), then checks what was admitted and what
// Redis holds.
func TestRedisFaults(t *testing.T) {
	var limits, config strings.Builder
	config.WriteString("domain: " + faultDomain + "\ndescriptors:\n")
	for _, r := range roles {
		limits.WriteString("- {namespace: " + faultDomain + ", max_value: " + strconv.Itoa(budget) + ", seconds: 86400, variables: [" + r + "]}\n")
		config.WriteString("  - key: " + r + "\n    rate_limit: {unit: day, requests_per_unit: " + strconv.Itoa(budget) + "}\n")
	}
	for _, tc := range []struct {
		name  string
		exact bool // the approximate store may count a lost flush twice in Redis
		start func(t *testing.T, redis *redistest.Server) *server
	}{
		{"rlpkit serve --redis", true, func(t *testing.T, r *redistest.Server) *server {
			return startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits.String()), "--redis", r.URL())
		}},
		{"rlpkit serve --redis-approximate", false, func(t *testing.T, r *redistest.Server) *server {
			return startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits.String()), "--redis", r.URL(), "--redis-approximate")
		}},
		{"cmd/ratelimit", true, func(t *testing.T, r *redistest.Server) *server {
			return startRatelimit(t, config.String(), "BACKEND_TYPE=redis", "REDIS_SOCKET_TYPE=tcp", "REDIS_URL="+r.Addr)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			redis := redistest.StartDurable(t)
			srv := tc.start(t, redis)
			firstDay := time.Now().Unix() / 86400
			tl := newTally()
			stop := make(chan struct{})
			wg := tl.load(srv.client, 16, stop)
			faults(t, redis)
			close(stop)
			wg.Wait()
			tl.exhaust(t, srv.client, budget)
			windows := int64(1 + time.Now().Unix()/86400 - firstDay)
			checkAdmitted(t, tl, windows*budget)
			checkKeys(t, redis, tl, tc.exact)
			t.Logf("%s: answers by code %v", tc.name, tl.codeCounts())
			// Two outages (frozen, killed), each logged once when found and
			// once when over; a frozen Redis may also pass for slow only. The
			// approximate store reaches Redis only at its flushes (every
			// second, or when an allowance is used up), so both faults may
			// fall between two of them and pass unseen.
			down, up := len(srv.lines("store unreachable")), len(srv.lines("store reachable again"))
			t.Logf("%s: %d outages and %d recoveries logged", tc.name, down, up)
			least := 1
			if !tc.exact {
				least = 0
			}
			if down < least || down > 2 || up != down {
				t.Errorf("%s logged %d outages and %d recoveries for two faults; want one line each per outage:\n%s", tc.name, down, up, srv.log)
			}
		})
	}
}

// faults freezes, resumes, kills and restarts redis, with a second or so
// of load between.
func faults(t *testing.T, redis *redistest.Server) {
	t.Helper()
	time.Sleep(time.Second)
	redis.Pause(t)
	time.Sleep(time.Second)
	redis.Resume(t)
	time.Sleep(time.Second)
	redis.Kill()
	time.Sleep(800 * time.Millisecond)
	redis.Restart(t)
	time.Sleep(1500 * time.Millisecond)
}

// checkAdmitted fails the test for a counter admitted more than max hits.
func checkAdmitted(t *testing.T, tl *tally, max int64) {
	t.Helper()
	var admitted, sent int64
	for _, n := range sortedKeys(tl.admitted) {
		a := tl.admitted[n].Load()
		admitted += a
		sent += tl.sent[n].Load()
		if a > max {
			t.Errorf("counter %s: %d hits admitted, budget %d", n, a, max)
		}
	}
	t.Logf("admitted %d hits of %d sent, for %d counters of budget %d (at most %d)", admitted, sent, len(tl.admitted), max, int64(len(tl.admitted))*max)
}

// checkKeys fails the test for a key in Redis that no client asked for
// (one holding anything but exactly one user's token) and, with exact, for
// a user whose counters hold more hits than were sent for it.
func checkKeys(t *testing.T, redis *redistest.Server, tl *tally, exact bool) {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: redis.Addr})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("KEYS: %v", err)
	}
	counted := map[string]int64{}
	for _, k := range keys {
		var owner string
		for _, u := range users {
			if strings.Contains(k, u) {
				if owner != "" {
					t.Errorf("key %q names users %s and %s", k, owner, u)
				}
				owner = u
			}
		}
		if owner == "" {
			t.Errorf("key %q names no user a client sent", k)
			continue
		}
		v, err := c.Get(ctx, k).Result()
		if err != nil {
			t.Errorf("GET %q: %v", k, err)
			continue
		}
		f := strings.Fields(v)
		if len(f) != 3 {
			t.Errorf("key %q holds %q, not a counter state", k, v)
			continue
		}
		n, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			t.Errorf("key %q holds %q: %v", k, v, err)
		}
		counted[owner] += n
	}
	var hits, sent, over int64
	for _, u := range sortedKeys(counted) {
		hits += counted[u]
		sent += tl.sentFor(u)
		if s := tl.sentFor(u); counted[u] > s {
			over++
			if exact {
				t.Errorf("user %s: Redis counts %d hits, %d were sent", u, counted[u], s)
			}
		}
	}
	t.Logf("Redis holds %d keys for %d users sent; they count %d hits of %d sent (%d users counted above what was sent)", len(keys), len(users), hits, sent, over)
}

// writeTemp writes data to a new file name in the test's directory.
func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
