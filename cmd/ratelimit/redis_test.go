package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

func redisEnv(t *testing.T, srv *redistest.Server, typ string) map[string]string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), limitYAML(2))
	env := baseEnv(root)
	env["BACKEND_TYPE"] = "redis"
	env["REDIS_SOCKET_TYPE"] = "tcp"
	env["REDIS_URL"] = srv.Addr
	env["REDIS_TYPE"] = typ
	env["REDIS_TIMEOUT"] = "1s"
	env["CACHE_KEY_PREFIX"] = "rl:"
	return env
}

// failsFast checks that a call fails with Unknown, quickly.
func failsFast(t *testing.T, s *server) {
	t.Helper()
	begin := time.Now()
	_, err := s.call(t, "d", "k=a")
	if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "counter store") {
		t.Fatalf("call with Redis down = %v, want Unknown with the store's error", err)
	}
	if d := time.Since(begin); d > 2*time.Second {
		t.Errorf("call with Redis down took %v, want at most REDIS_TIMEOUT", d)
	}
}

// TestRedisDownAtStartAndMidRun: Redis down at start holds the ports
// closed until it answers (TestRedisStartupWaitsForRedis); down mid-run,
// calls fail fast, each counted as a redis_error, until it is back.
func TestRedisDownAtStartAndMidRun(t *testing.T) {
	srv := redistest.Start(t)
	srv.Kill()
	p := runPending(t, fastStartup(redisEnv(t, srv, "single")))
	eventually(t, "a retry at start", func() bool { return strings.Contains(p.log.String(), "retrying the Redis connection") })
	srv.Restart(t)
	s := p.serving(t)
	if r, err := s.call(t, "d", "k=a"); err != nil || r.Statuses[0].LimitRemaining != 1 {
		t.Fatalf("first call once Redis is up = %v %v, want OK remaining 1", r, err)
	}
	before := redisErrors(t, s)
	srv.Kill()
	failsFast(t, s)
	if got := redisErrors(t, s); got != before+1 {
		t.Errorf("/stats counts %d redis errors after one more failed call, want %d", got, before+1)
	}
	srv.Restart(t)
	eventually(t, "calls answered after a restart", func() bool { _, err := s.call(t, "d", "k=a"); return err == nil })
}

// redisErrors returns ratelimit.service.call.should_rate_limit.redis_error
// from /stats.
func redisErrors(t *testing.T, s *server) int {
	t.Helper()
	_, stats := get(t, "http://"+s.addrs.debug+"/stats")
	const name = "ratelimit.service.call.should_rate_limit.redis_error: "
	for _, line := range strings.Split(stats, "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("/stats line %q: %v", line, err)
			}
			return n
		}
	}
	t.Fatalf("/stats has no %s:\n%s", name, stats)
	return 0
}

func TestRedisSingleSharedAndAllOrNothing(t *testing.T) {
	srv := redistest.Start(t)
	env := redisEnv(t, srv, "single")
	a, b := start(t, env), start(t, env)
	for i, want := range []uint32{1, 0} {
		s := []*server{a, b}[i]
		r, err := s.call(t, "d", "k=x")
		if err != nil || r.OverallCode != 1 || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("call %d = %v %v, want OK remaining %d", i, r, err, want)
		}
	}
	// Over on k=x: the k=y counter does not move.
	r, err := a.call(t, "d", "k=y", "k=x")
	if err != nil || r.OverallCode != 2 || r.Statuses[0].LimitRemaining != 2 {
		t.Fatalf("rejected call = %v %v, want OVER_LIMIT with k=y remaining 2", r, err)
	}
}

func TestRedisCluster(t *testing.T) {
	srv := redistest.StartCluster(t)
	s := start(t, redisEnv(t, srv, "cluster"))
	for _, want := range []uint32{1, 0} {
		r, err := s.call(t, "d", "k=a", "k=b")
		if err != nil || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("cluster call = %v %v, want remaining %d", r, err, want)
		}
	}
}

func TestLocalCacheAnswersFullCountersWithoutRedis(t *testing.T) {
	srv := redistest.Start(t)
	env := redisEnv(t, srv, "single")
	env["LOCAL_CACHE_SIZE_IN_BYTES"] = "100000"
	s := start(t, env)
	for range 2 {
		if _, err := s.call(t, "d", "k=full"); err != nil {
			t.Fatal(err)
		}
	}
	srv.Kill()
	// k=full is known to be full for the rest of the hour: answered locally.
	r, err := s.call(t, "d", "k=full")
	if err != nil || r.OverallCode != 2 {
		t.Errorf("full counter with Redis down = %v %v, want OVER_LIMIT from the local cache", r, err)
	}
	// Its rejected hit could not be counted in Redis: the answer stands,
	// the failure is a redis_error.
	if n := redisErrors(t, s); n != 1 {
		t.Errorf("redis_error = %d after the refused call, want 1", n)
	}
	failsFast(t, s) // k=a is not known: Redis is needed
}
