package main

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// refConfig is the configuration both fleets run: a per-user hourly
// limit, a per-minute limit under it on API paths sharing one counter
// (share_threshold), and a shadow_mode rule.
const refConfig = `domain: d
descriptors:
  - key: user
    rate_limit: {unit: hour, requests_per_unit: 5}
    descriptors:
      - key: path
        value: "/api/*"
        share_threshold: true
        rate_limit: {unit: minute, requests_per_unit: 3}
  - key: shadow
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
`

// refT0 is 10 s into an hour: the decisions' instant for both fleets.
var refT0 = time.Unix(1_800_000_000-1_800_000_000%3600+10, 0)

// refRequest is request k of the tests' sequence, as the double and as
// gRPC see it: user alice, an API path that changes (one shared counter),
// and the shadow_mode rule.
func refRequest(k int) ([]refDescriptor, *rlsv3.RateLimitRequest) {
	path := "/api/v" + itoa(k%2+1)
	descs := []refDescriptor{
		{entries: [][2]string{{"user", "alice"}}, limit: &refLimit{5, 3600}, hits: 1},
		{entries: [][2]string{{"user", "alice"}, {"path", path}}, limit: &refLimit{3, 60}, pattern: map[int]string{1: "/api/*"}, hits: 1},
		{entries: [][2]string{{"shadow", "s"}}, limit: &refLimit{1, 60}, shadow: true, hits: 1},
	}
	req := &rlsv3.RateLimitRequest{Domain: "d"}
	for _, d := range descs {
		var es []*rlv3.RateLimitDescriptor_Entry
		for _, e := range d.entries {
			es = append(es, &rlv3.RateLimitDescriptor_Entry{Key: e[0], Value: e[1]})
		}
		req.Descriptors = append(req.Descriptors, &rlv3.RateLimitDescriptor{Entries: es})
	}
	return descs, req
}

// outcome is one request's answer, from either fleet.
type outcome struct {
	over bool
	sts  []refStatus
}

// fromGRPC is the outcome of a gRPC answer.
func fromGRPC(r *rlsv3.RateLimitResponse) outcome {
	o := outcome{over: r.OverallCode == rlsv3.RateLimitResponse_OVER_LIMIT}
	for _, st := range r.Statuses {
		o.sts = append(o.sts, refStatus{over: st.Code == rlsv3.RateLimitResponse_OVER_LIMIT, remaining: uint64(st.LimitRemaining), reset: st.DurationUntilReset.GetSeconds()})
	}
	return o
}

// refFleet is a Redis with a reference double and, optionally, a
// cmd/ratelimit with RLPKIT_REDIS_KEYS=reference on it, each logging the
// counting commands it sends.
type refFleet struct {
	client           goredis.UniversalClient
	double           *referenceDouble
	srv              *server
	doubleLog, okLog *commandLog
}

// newRefFleet starts a Redis, the double, and with env (nil: none) a
// cmd/ratelimit whose jitter and clock are the double's.
func newRefFleet(t *testing.T, env func(map[string]string), stop bool) *refFleet {
	t.Helper()
	rs := redistest.Start(t)
	c, err := redis.NewClient(rs.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	f := &refFleet{client: c, doubleLog: &commandLog{}, okLog: &commandLog{}}
	c.AddHook(f.doubleLog)
	jitter := func(n int64) int64 { return n - 1 }
	now := func() time.Time { return refT0 }
	f.double = &referenceDouble{client: c, prefix: "rl:", jitterMax: 300, jitter: jitter, stop: stop, now: now}
	if env == nil {
		return f
	}
	e := redisEnv(t, rs, "single")
	writeFile(t, filepath.Join(e["RUNTIME_ROOT"], "ratelimit/config/a.yaml"), refConfig)
	e["RLPKIT_REDIS_KEYS"] = "reference"
	if stop {
		e["STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT"] = "true"
	}
	env(e)
	f.srv = startWith(t, e, func(s *settings) {
		s.redisHook = f.okLog
		s.refKeys.jitter = jitter
		s.refKeys.clock = now
	})
	return f
}

// do sends request k to the double (double true) or to cmd/ratelimit.
func (f *refFleet) do(t *testing.T, k int, double bool) outcome {
	t.Helper()
	descs, req := refRequest(k)
	if double {
		over, sts, err := f.double.shouldRateLimit(context.Background(), "d", descs)
		if err != nil {
			t.Fatal(err)
		}
		return outcome{over, sts}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := f.srv.client.ShouldRateLimit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return fromGRPC(r)
}

// counters returns every key in Redis with its value.
func (f *refFleet) counters(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	keys, err := f.client.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		out[k] = f.client.Get(ctx, k).Val()
	}
	return out
}

const refRequests = 8

// pureReference runs the sequence on the double alone: what a fleet of
// reference replicas answers and leaves in Redis.
func pureReference(t *testing.T, stop bool) ([]outcome, map[string]string) {
	t.Helper()
	f := newRefFleet(t, nil, stop)
	var out []outcome
	for k := 1; k <= refRequests; k++ {
		out = append(out, f.do(t, k, true))
	}
	return out, f.counters(t)
}

// TestReferenceKeysShareBudgets is a rollout: requests alternate between a
// reference replica (the double) and cmd/ratelimit with
// RLPKIT_REDIS_KEYS=reference on one Redis. Together they answer every
// request as a fleet of reference replicas does, and leave the same
// counters: one budget, no jump, no second budget. Each cmd/ratelimit
// request sends byte for byte the commands the double sent for the one
// before it (same keys, same TTLs; with
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, the increments follow the
// counters, so only keys and TTLs compare).
//
// With STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT, where a request whose
// shadow_mode rule goes over is let through, the reference adds 0 to its
// other counters, so that user and path are never charged again and admit
// every request; cmd/ratelimit then charges them, in one more pipeline
// after the reference's (refStopFleet).
func TestReferenceKeysShareBudgets(t *testing.T) {
	for _, stop := range []bool{false, true} {
		want, wantCounters := pureReference(t, stop)
		if stop {
			want, wantCounters = refStopFleet()
		}
		f := newRefFleet(t, func(map[string]string) {}, stop)
		for k := 1; k <= refRequests; k++ {
			double := k%2 == 1
			got := f.do(t, k, double)
			if !equalOutcome(got, want[k-1]) {
				t.Errorf("stop=%v: request %d (double %v): %+v, want %+v", stop, k, double, got, want[k-1])
			}
			if !double {
				d, o := f.doubleLog.take(), f.okLog.take()
				if stop { // the increments depend on the counters: compare keys and TTLs
					d, o = withoutAmounts(d), withoutAmounts(o)
					if len(o) > len(d) && !strings.Contains(strings.Join(o[len(d):], " "), "shadow") {
						o = o[:len(d)] // the charge of a request let through
					}
				}
				if !slices.Equal(d, o) {
					t.Errorf("stop=%v: request %d sent\n%q\nthe double's request %d sent\n%q", stop, k, o, k-1, d)
				}
			}
		}
		got := f.counters(t)
		if !mapsEqual(got, wantCounters) {
			t.Errorf("stop=%v: Redis holds %v, want %v", stop, got, wantCounters)
		}
	}
}

// refStopFleet is what the rollout of TestReferenceKeysShareBudgets
// answers and leaves with STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT. From
// request 2 on the shadow rule (1 a minute) goes over in every request.
// Requests 2 and 4 (cmd/ratelimit) are let through and charged on user and
// path; request 3 (a reference replica) is let through with nothing
// charged but the shadow counter. From request 5 on, path (3 a minute) is
// over: every request adds its hit there (it goes over), none to user.
func refStopFleet() ([]outcome, map[string]string) {
	ok := func(user, path uint64) outcome {
		return outcome{false, []refStatus{{remaining: user, reset: 3590}, {remaining: path, reset: 50}, {reset: 50}}}
	}
	over := outcome{true, []refStatus{{remaining: 2, reset: 3590}, {over: true, reset: 50}, {reset: 50}}}
	return []outcome{ok(4, 2), ok(3, 1), ok(3, 1), ok(2, 0), over, over, over, over},
		map[string]string{"rl:d_shadow_s_1800000000": "8", "rl:d_user_alice_1800000000": "3", "rl:d_user_alice_path_/api/*_1800000000": "7"}
}

// TestReferenceKeysSequence pins what the double answers, as the
// reference's code does: every descriptor counted, the rejected ones too;
// the shadow_mode rule over but OK.
func TestReferenceKeysSequence(t *testing.T) {
	got, counters := pureReference(t, false)
	for k := 1; k <= refRequests; k++ {
		o := got[k-1]
		user := refStatus{over: k > 5, remaining: uint64(max(5-k, 0)), reset: 3590}
		path := refStatus{over: k > 3, remaining: uint64(max(3-k, 0)), reset: 50}
		shadow := refStatus{remaining: uint64(max(1-k, 0)), reset: 50}
		if want := (outcome{k > 3, []refStatus{user, path, shadow}}); !equalOutcome(o, want) {
			t.Errorf("request %d: %+v, want %+v", k, o, want)
		}
	}
	hour, minute := refT0.Unix()-10, refT0.Unix()-10
	want := map[string]string{
		"rl:d_user_alice_" + itoa(int(hour)):               "8",
		"rl:d_user_alice_path_/api/*_" + itoa(int(minute)): "8",
		"rl:d_shadow_s_" + itoa(int(minute)):               "8",
	}
	if !mapsEqual(counters, want) {
		t.Errorf("counters %v, want %v", counters, want)
	}
}

// TestReferenceKeysTTL: EXPIRE is the unit plus a jitter drawn in
// [0, EXPIRATION_JITTER_MAX_SECONDS), none when it is 0.
func TestReferenceKeysTTL(t *testing.T) {
	for _, jitter := range []int{0, 3} {
		rs := redistest.Start(t)
		e := redisEnv(t, rs, "single")
		e["RLPKIT_REDIS_KEYS"] = "reference"
		e["EXPIRATION_JITTER_MAX_SECONDS"] = itoa(jitter)
		log := &commandLog{}
		s := startWith(t, e, func(s *settings) { s.redisHook = log })
		seen := map[string]bool{}
		for range 100 {
			if _, err := s.call(t, "d", "k=a"); err != nil {
				t.Fatal(err)
			}
			for _, c := range log.take() {
				if strings.HasPrefix(c, "expire ") {
					_, ttl, _ := strings.Cut(strings.TrimPrefix(c, "expire "), " ")
					seen[ttl] = true
				}
			}
		}
		var got []string
		for ttl := range seen {
			got = append(got, ttl)
		}
		sort.Strings(got)
		want := []string{"3600"}
		if jitter == 3 {
			want = []string{"3600", "3601", "3602"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("EXPIRATION_JITTER_MAX_SECONDS=%d: TTLs %q, want %q", jitter, got, want)
		}
	}
}

// withoutAmounts drops the amounts of INCRBY commands.
func withoutAmounts(cmds []string) []string {
	out := make([]string, len(cmds))
	for i, c := range cmds {
		if strings.HasPrefix(c, "incrby ") {
			c = c[:strings.LastIndexByte(c, ' ')]
		}
		out[i] = c
	}
	return out
}

func equalOutcome(a, b outcome) bool {
	return a.over == b.over && slices.Equal(a.sts, b.sts)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestReferenceKeysLocalCache: with LOCAL_CACHE_SIZE_IN_BYTES, a counter
// cmd/ratelimit found over is answered over from the process, without a
// command for it, as a reference replica with its local cache does: the
// answers stay those of a reference fleet, and the counters skip the
// increments a cached replica skips.
func TestReferenceKeysLocalCache(t *testing.T) {
	want, _ := pureReference(t, false)
	f := newRefFleet(t, func(e map[string]string) { e["LOCAL_CACHE_SIZE_IN_BYTES"] = "1000000" }, false)
	for k := 1; k <= refRequests; k++ {
		double := k%2 == 1
		if got := f.do(t, k, double); !equalOutcome(got, want[k-1]) {
			t.Errorf("request %d (double %v): %+v, want %+v", k, double, got, want[k-1])
		}
	}
	start := itoa(int(refT0.Unix() - 10)) // of the hour and of the minute
	// cmd/ratelimit found shadow over at request 2, path at 4, user at 6,
	// and sent nothing for them afterwards.
	wantCounters := map[string]string{
		"rl:d_user_alice_" + start:             "7",
		"rl:d_user_alice_path_/api/*_" + start: "6",
		"rl:d_shadow_s_" + start:               "5",
	}
	if got := f.counters(t); !mapsEqual(got, wantCounters) {
		t.Errorf("Redis holds %v, want %v", got, wantCounters)
	}
}

// TestReferenceKeysStats: the statistics split a request's hits as the
// reference's do when its counter crosses the limit: near_limit up to the
// limit (above the near-limit threshold), over_limit beyond.
func TestReferenceKeysStats(t *testing.T) {
	f := newRefFleet(t, func(map[string]string) {}, false)
	user := []refDescriptor{{entries: [][2]string{{"user", "alice"}}, limit: &refLimit{5, 3600}, hits: 2}}
	for range 2 {
		if _, _, err := f.double.shouldRateLimit(t.Context(), "d", user); err != nil {
			t.Fatal(err)
		}
	}
	// 4 of 5 used; 3 more hits take it to 7: the 5th is near (above
	// floor(0.8*5) = 4), the 6th and 7th over.
	req := &rlsv3.RateLimitRequest{Domain: "d", HitsAddend: 3, Descriptors: []*rlv3.RateLimitDescriptor{
		{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "user", Value: "alice"}}}}}
	r, err := f.srv.client.ShouldRateLimit(t.Context(), req)
	if err != nil || r.OverallCode != rlsv3.RateLimitResponse_OVER_LIMIT {
		t.Fatalf("%v %v, want OVER_LIMIT", r, err)
	}
	_, text := get(t, "http://"+f.srv.addrs.debug+"/stats")
	for name, want := range map[string]string{"total_hits": "3", "over_limit": "2", "near_limit": "1", "within_limit": "0"} {
		line := "ratelimit.service.rate_limit.d.user." + name + ": " + want
		if !strings.Contains(text, line+"\n") {
			t.Errorf("/stats has no line %q:\n%s", line, text)
		}
	}
}

// TestReferenceKeysCluster: on a Redis Cluster, the reference's keys (no
// hash tag: several slots in one request) are counted in one Update, and
// SHADOW_MODE turns the overall code to OK while every hit is counted.
func TestReferenceKeysCluster(t *testing.T) {
	rs := redistest.StartCluster(t)
	e := redisEnv(t, rs, "cluster")
	e["RLPKIT_REDIS_KEYS"] = "reference"
	e["SHADOW_MODE"] = "true"
	s := startWith(t, e, func(s *settings) { s.refKeys.clock = func() time.Time { return refT0 } })
	for i, want := range []uint32{1, 0, 0} {
		r, err := s.call(t, "d", "k=a", "k=b")
		if err != nil || r.OverallCode != rlsv3.RateLimitResponse_OK || r.Statuses[1].LimitRemaining != want {
			t.Fatalf("call %d = %v %v, want OK with remaining %d", i, r, err, want)
		}
		if over := r.Statuses[0].Code == rlsv3.RateLimitResponse_OVER_LIMIT; over != (i == 2) {
			t.Errorf("call %d: status %v, want OVER_LIMIT only on the third", i, r.Statuses[0].Code)
		}
	}
	c, err := redis.NewClient(rs.URL() + "?addr=" + rs.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hour := itoa(int(refT0.Unix() - 10))
	for _, k := range []string{"rl:d_k_a_" + hour, "rl:d_k_b_" + hour} {
		if v := c.Get(t.Context(), k).Val(); v != "3" {
			t.Errorf("%s = %q, want 3", k, v)
		}
	}
}

// TestReferenceKeysRefuseOtherAlgorithms: a configuration the reference's
// counters cannot keep is refused at load, with its file and line.
func TestReferenceKeysRefuseOtherAlgorithms(t *testing.T) {
	rs := redistest.Start(t)
	e := redisEnv(t, rs, "single")
	e["RLPKIT_REDIS_KEYS"] = "reference"
	writeFile(t, filepath.Join(e["RUNTIME_ROOT"], "ratelimit/config/a.yaml"),
		"domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 2, algorithm: token_bucket}\n")
	s := start(t, e)
	if _, err := s.call(t, "d", "k=a"); err == nil || !strings.Contains(err.Error(), "no rate limit configuration loaded") {
		t.Errorf("call: %v, want no configuration loaded", err)
	}
	want := "config.a.yaml:3: descriptors[0].rate_limit.algorithm: algorithm token_bucket cannot be counted with the reference's Redis keys"
	if !strings.Contains(s.log.String(), want) {
		t.Errorf("log has no %q:\n%s", want, s.log)
	}
}

// TestReferenceKeysSentinel: through a Sentinel, the reference's keys
// land in the master.
func TestReferenceKeysSentinel(t *testing.T) {
	master := redistest.Start(t)
	sentinel := startSentinel(t, master)
	e := redisEnv(t, master, "sentinel")
	e["REDIS_URL"] = "mymaster," + sentinel
	e["RLPKIT_REDIS_KEYS"] = "reference"
	s := startWith(t, e, func(s *settings) { s.refKeys.clock = func() time.Time { return refT0 } })
	for _, want := range []uint32{1, 0} {
		r, err := s.call(t, "d", "k=a")
		if err != nil || r.Statuses[0].LimitRemaining != want {
			t.Fatalf("call through sentinel = %v %v, want remaining %d", r, err, want)
		}
	}
	c, err := redis.NewClient(master.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if v := c.Get(t.Context(), "rl:d_k_a_"+itoa(int(refT0.Unix()-10))).Val(); v != "2" {
		t.Errorf("the master holds %q, want 2", v)
	}
}

// TestReferenceKeysConcurrentBudget: requests racing on both fleets at
// once are admitted exactly up to the one limit they share.
func TestReferenceKeysConcurrentBudget(t *testing.T) {
	f := newRefFleet(t, func(map[string]string) {}, false)
	user := []refDescriptor{{entries: [][2]string{{"user", "bob"}}, limit: &refLimit{5, 3600}, hits: 1}}
	req := &rlsv3.RateLimitRequest{Domain: "d", Descriptors: []*rlv3.RateLimitDescriptor{
		{Entries: []*rlv3.RateLimitDescriptor_Entry{{Key: "user", Value: "bob"}}}}}
	const each = 20
	oks := make(chan bool, 2*each)
	errs := make(chan error, 2*each)
	var wg sync.WaitGroup
	for range each {
		wg.Go(func() {
			over, _, err := f.double.shouldRateLimit(context.Background(), "d", user)
			errs <- err
			oks <- err == nil && !over
		})
		wg.Go(func() {
			r, err := f.srv.client.ShouldRateLimit(context.Background(), req)
			errs <- err
			oks <- err == nil && r.OverallCode == rlsv3.RateLimitResponse_OK
		})
	}
	wg.Wait()
	close(oks)
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	admitted := 0
	for ok := range oks {
		if ok {
			admitted++
		}
	}
	if admitted != 5 {
		t.Errorf("%d of %d racing requests admitted, want the limit, 5", admitted, 2*each)
	}
	if v := f.counters(t)["rl:d_user_bob_"+itoa(int(refT0.Unix()-10))]; v != itoa(2*each) {
		t.Errorf("counter %q, want %d: every request counted once", v, 2*each)
	}
}
