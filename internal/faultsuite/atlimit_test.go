package faultsuite

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// Each concurrency-at-the-limit check sends atLimitCalls calls at once
// against an enforced limit of atLimitBudget a day.
const (
	atLimitCalls  = 64
	atLimitBudget = 5
	atLimitDomain = "atlimit"
)

// atLimitConfig is the envoyproxy/ratelimit configuration of the checks:
// a shadow_mode rule that every call is over (trial) beside an enforced
// limit (real), two quota descriptors of which one is always over (q0, q5),
// and two plain limits for QUOTA_MODE (a, b). trial and q0 count per
// second, so that with REDIS_PERSECOND they live in the other Redis.
var atLimitConfig = fmt.Sprintf(`domain: %s
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: real
    rate_limit: {unit: day, requests_per_unit: %[2]d}
  - key: q0
    quota_mode: true
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: q5
    quota_mode: true
    rate_limit: {unit: day, requests_per_unit: %[2]d}
  - key: a
    rate_limit: {unit: second, requests_per_unit: 0}
  - key: b
    rate_limit: {unit: day, requests_per_unit: %[2]d}
`, atLimitDomain, atLimitBudget)

// atLimitCase is one shape of call: its descriptors' keys, the last one
// the enforced limit. A call is let through when it is answered OK; with
// shadow set (a server in SHADOW_MODE, which answers every call OK), when
// the enforced descriptor's status is OK.
type atLimitCase struct {
	name   string
	keys   []string
	shadow bool
}

// shadowed returns c for a server in SHADOW_MODE.
func (c atLimitCase) shadowed() atLimitCase {
	c.shadow = true
	return c
}

var (
	shadowRule = atLimitCase{name: "shadow_mode rule", keys: []string{"trial", "real"}}
	quotaRule  = atLimitCase{name: "quota_mode rules", keys: []string{"q0", "q5"}}
	quotaMode  = atLimitCase{name: "QUOTA_MODE", keys: []string{"a", "b"}}
)

// TestConcurrencyAtTheLimit: on every path where a server calls its
// counter store more than once for a call (a shadow_mode rule, quota_mode
// rules, QUOTA_MODE and SHADOW_MODE letting a call through after a first
// call refused it, the counting of rejected hits, the local over-limit
// cache, reference keys with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, two
// Redis with REDIS_PERSECOND, the approximate store's flushes) and on the
// one-call paths beside them (Limitador's limits, the net/http
// middleware), 64 concurrent calls against a limit of 5 a day are let
// through exactly 5 times, on the processes users run.
func TestConcurrencyAtTheLimit(t *testing.T) {
	redisEnv := func(r *redistest.Server, more ...string) ([]string, *redistest.Server) {
		return append([]string{"BACKEND_TYPE=redis", "REDIS_SOCKET_TYPE=tcp", "REDIS_URL=" + r.Addr}, more...), r
	}
	for _, tc := range []struct {
		name  string
		cases []atLimitCase
		env   func(t *testing.T) ([]string, *redistest.Server) // the variables, the Redis of the enforced counters
	}{
		{"memory", []atLimitCase{shadowRule, quotaRule}, func(*testing.T) ([]string, *redistest.Server) { return []string{"BACKEND_TYPE=memory"}, nil }},
		{"redis", []atLimitCase{shadowRule, quotaRule}, func(t *testing.T) ([]string, *redistest.Server) { return redisEnv(redistest.Start(t)) }},
		{"redis LOCAL_CACHE_SIZE_IN_BYTES", []atLimitCase{shadowRule, quotaRule}, func(t *testing.T) ([]string, *redistest.Server) {
			return redisEnv(redistest.Start(t), "LOCAL_CACHE_SIZE_IN_BYTES=1000000")
		}},
		{"redis reference keys STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT", []atLimitCase{shadowRule, quotaRule}, func(t *testing.T) ([]string, *redistest.Server) {
			return redisEnv(redistest.Start(t), "RLPKIT_REDIS_KEYS=reference", "STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=true")
		}},
		{"redis reference keys LOCAL_CACHE_SIZE_IN_BYTES", []atLimitCase{shadowRule, quotaRule}, func(t *testing.T) ([]string, *redistest.Server) {
			return redisEnv(redistest.Start(t), "RLPKIT_REDIS_KEYS=reference", "LOCAL_CACHE_SIZE_IN_BYTES=1000000")
		}},
		{"redis REDIS_PERSECOND", []atLimitCase{shadowRule, quotaRule}, func(t *testing.T) ([]string, *redistest.Server) {
			ps := redistest.Start(t)
			return redisEnv(redistest.Start(t), "REDIS_PERSECOND=true", "REDIS_PERSECOND_SOCKET_TYPE=tcp", "REDIS_PERSECOND_URL="+ps.Addr)
		}},
		{"memory QUOTA_MODE", []atLimitCase{quotaMode}, func(*testing.T) ([]string, *redistest.Server) {
			return []string{"BACKEND_TYPE=memory", "QUOTA_MODE=true"}, nil
		}},
		{"redis QUOTA_MODE", []atLimitCase{quotaMode}, func(t *testing.T) ([]string, *redistest.Server) {
			return redisEnv(redistest.Start(t), "QUOTA_MODE=true")
		}},
		{"redis SHADOW_MODE", []atLimitCase{shadowRule.shadowed(), quotaRule.shadowed()}, func(t *testing.T) ([]string, *redistest.Server) {
			return redisEnv(redistest.Start(t), "SHADOW_MODE=true")
		}},
	} {
		t.Run("cmd/ratelimit "+tc.name, func(t *testing.T) {
			env, redis := tc.env(t)
			srv := startRatelimit(t, atLimitConfig, env...)
			for _, c := range tc.cases {
				rlsAtLimit(t, srv, c, redis)
			}
		})
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "atlimit.yaml"), []byte(atLimitConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		redis bool
		args  []string
	}{
		{"memory", false, nil},
		{"--redis", true, nil},
		{"--ratelimit-shadow-mode", false, []string{"--ratelimit-shadow-mode"}},
		{"--ratelimit-shadow-mode --redis", true, []string{"--ratelimit-shadow-mode"}},
	} {
		t.Run("rlpkit serve --ratelimit-config "+tc.name, func(t *testing.T) {
			args, redis := redisArgs(t, tc.redis, append([]string{"--ratelimit-config", dir}, tc.args...))
			srv := startRlpkit(t, args...)
			shadow, quota := shadowRule, quotaRule
			if len(tc.args) > 0 {
				shadow, quota = shadow.shadowed(), quota.shadowed()
			}
			rlsAtLimit(t, srv, shadow, redis)
			rlsAtLimit(t, srv, quota, redis)
		})
	}

	limits := writeTemp(t, "limits.yaml", fmt.Sprintf("- {namespace: %s, max_value: %d, seconds: 86400, variables: [real]}\n", atLimitDomain, atLimitBudget))
	for _, tc := range []struct {
		name  string
		redis bool
		args  []string
	}{
		{"memory", false, nil},
		{"--redis", true, nil},
		{"--redis-approximate", true, []string{"--redis-approximate"}},
	} {
		t.Run("rlpkit serve --limits "+tc.name, func(t *testing.T) {
			args, redis := redisArgs(t, tc.redis, append([]string{"--limits", limits}, tc.args...))
			srv := startRlpkit(t, args...)
			rlsAtLimit(t, srv, atLimitCase{name: "Limitador limit", keys: []string{"real"}}, redis)
		})
	}

	for _, withRedis := range []bool{false, true} {
		t.Run(fmt.Sprintf("examples/middleware redis=%v", withRedis), func(t *testing.T) {
			var args []string
			var redis *redistest.Server
			if withRedis {
				redis = redistest.Start(t)
				args = []string{"-redis", redis.URL()}
			}
			middlewareAtLimit(t, args, redis)
		})
	}
}

// redisArgs returns args for rlpkit serve, with --redis and the Redis
// started for it when withRedis is set.
func redisArgs(t *testing.T, withRedis bool, args []string) ([]string, *redistest.Server) {
	if !withRedis {
		return args, nil
	}
	r := redistest.Start(t)
	return append(args, "--redis", r.URL()), r
}

// atLimitFreeze is how long a check keeps the Redis of its enforced
// counters frozen while its calls arrive: they then all find it with room,
// and all charge it at about the same time, the interleaving that deciding
// in one call and charging in another gets wrong. Nothing is asserted on
// it: a call that arrives later is decided all the same.
const atLimitFreeze = 300 * time.Millisecond

// atLimit runs atLimitCalls concurrent calls of call, each reporting
// whether it was let through within the limit, with redis (when not nil)
// frozen for atLimitFreeze as they start, and fails the test unless
// exactly atLimitBudget were in each day the calls spanned (two at
// midnight UTC).
func atLimit(t *testing.T, what string, redis *redistest.Server, call func(i int) (bool, error)) {
	t.Helper()
	firstDay := time.Now().Unix() / 86400
	var mu sync.Mutex
	within := 0
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range atLimitCalls {
		wg.Go(func() {
			<-start
			ok, err := call(i)
			if err != nil {
				t.Errorf("%s: call %d: %v", what, i, err)
				return
			}
			if ok {
				mu.Lock()
				within++
				mu.Unlock()
			}
		})
	}
	if redis != nil {
		redis.Pause(t)
	}
	close(start)
	if redis != nil {
		time.Sleep(atLimitFreeze)
		redis.Resume(t)
	}
	wg.Wait()
	days := int(1 + time.Now().Unix()/86400 - firstDay)
	t.Logf("%s: %d of %d concurrent calls within a limit of %d", what, within, atLimitCalls, atLimitBudget)
	if within < atLimitBudget || within > days*atLimitBudget || days == 1 && within != atLimitBudget {
		t.Errorf("%s: %d of %d concurrent calls let through within a limit of %d a day; want exactly %d", what, within, atLimitCalls, atLimitBudget, atLimitBudget)
	}
}

var atLimitRun int

// atLimitRounds is how many times each check runs, each on counters of
// its own: the interleavings that go wrong are found by some rounds only.
const atLimitRounds = 2

// atLimitConns is how many connections the calls of a check are spread
// over, so that the server reads them in parallel.
const atLimitConns = 8

// rlsAtLimit sends the calls of c to srv, each carrying c's descriptors
// with a value of this round (redis frozen as they start, see atLimit), and counts those answered OK with the
// enforced descriptor (the last) OK: under SHADOW_MODE, where every call
// is answered OK, the enforced descriptor's status tells.
func rlsAtLimit(t *testing.T, srv *server, c atLimitCase, redis *redistest.Server) {
	t.Helper()
	clients := make([]rlsv3.RateLimitServiceClient, atLimitConns)
	for i := range clients {
		conn, err := grpc.NewClient(srv.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		clients[i] = rlsv3.NewRateLimitServiceClient(conn)
	}
	for range atLimitRounds {
		atLimitRun++
		value := fmt.Sprintf("run%d", atLimitRun)
		req := &rlsv3.RateLimitRequest{Domain: atLimitDomain}
		for _, k := range c.keys {
			req.Descriptors = append(req.Descriptors, &rlcommon.RateLimitDescriptor{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: k, Value: value}}})
		}
		atLimit(t, srv.name+" "+c.name, redis, func(i int) (bool, error) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			resp, err := clients[i%len(clients)].ShouldRateLimit(ctx, req)
			if err != nil {
				return false, err
			}
			sts := resp.GetStatuses()
			if len(sts) != len(c.keys) {
				return false, fmt.Errorf("%d statuses for %d descriptors", len(sts), len(c.keys))
			}
			if c.shadow {
				return resp.GetOverallCode() == rlsv3.RateLimitResponse_OK && sts[len(sts)-1].GetCode() == rlsv3.RateLimitResponse_OK, nil
			}
			return resp.GetOverallCode() == rlsv3.RateLimitResponse_OK, nil
		})
	}
}

var middlewareListening = regexp.MustCompile(`listening on http://(\S+)`)

// middlewareAtLimit runs examples/middleware with a rate plugin of
// atLimitBudget a day per X-User (weight 100: at most that many a window)
// behind a wider one, in front of an upstream that answers 204, and sends
// it the calls.
func middlewareAtLimit(t *testing.T, args []string, redis *redistest.Server) {
	t.Helper()
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(upstream.Close)
	config := writeTemp(t, "limits.toml", fmt.Sprintf(`[plugins.wide]
category = "limit"
type = "rate"
tag = "header"
key = "X-User"
max = 1000
interval = "24h"
weight = 100

[plugins.perUser]
category = "limit"
type = "rate"
tag = "header"
key = "X-User"
max = %d
interval = "24h"
weight = 100
`, atLimitBudget))
	cmd := exec.Command(buildCmd(t, "github.com/rlpkit/rlpkit/examples/middleware"),
		append([]string{"-config", config, "-upstream", upstream.URL, "-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	log := &syncBuffer{}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = io.MultiWriter(log, pw), log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		pw.Close()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if l := log.String(); strings.Contains(l, "WARNING: DATA RACE") || strings.Contains(l, "panic:") {
			t.Errorf("examples/middleware reported a race or a panic:\n%s", l)
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if m := middlewareListening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, pr) //nolint:errcheck // drain
	}()
	var addr string
	select {
	case addr = <-found:
	case <-exited:
		t.Fatalf("examples/middleware exited before listening:\n%s", log)
	case <-time.After(60 * time.Second):
		t.Fatalf("examples/middleware did not listen within 60s:\n%s", log)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: atLimitCalls}}
	atLimit(t, "examples/middleware", redis, func(int) (bool, error) {
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+"/", nil)
		if err != nil {
			return false, err
		}
		req.Header.Set("X-User", "alice")
		resp, err := client.Do(req)
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusNoContent:
			return true, nil
		case http.StatusTooManyRequests:
			return false, nil
		}
		return false, fmt.Errorf("status %d", resp.StatusCode)
	})
}
