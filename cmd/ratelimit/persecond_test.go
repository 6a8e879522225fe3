package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

var (
	psNow   = time.Unix(1_700_000_000, 0)
	perSec  = counter.Policy{Max: 2, Window: time.Second}
	perMin  = counter.Policy{Max: 5, Window: time.Minute}
	perTenS = counter.Policy{Max: 5, Window: 10 * time.Second}
	perHour = counter.Policy{Max: 5, Window: time.Hour}
)

// spend charges cost on key under p in st, which must admit it.
func spend(t *testing.T, st counter.Store, key string, p counter.Policy, cost uint64) {
	t.Helper()
	ds := make([]counter.Decision, 1)
	if err := st.Update(context.Background(), psNow, []counter.Update{{Key: key, Policy: p, Cost: cost}}, ds); err != nil || !ds[0].Allowed {
		t.Fatalf("spending %d on %s: %v %+v", cost, key, err, ds[0])
	}
}

// used returns how much of key's limit under p is used in st.
func used(t *testing.T, st counter.Store, key string, p counter.Policy) uint64 {
	t.Helper()
	ds := make([]counter.Decision, 1)
	if err := st.Update(context.Background(), psNow, []counter.Update{{Key: key, Policy: p}}, ds); err != nil {
		t.Fatal(err)
	}
	return p.Max - ds[0].Remaining
}

// twoStores returns a perSecondStore over two memory stores, and a single
// memory store to compare with, each with fast (per-second) and slow
// counters charged alike.
func twoStores(t *testing.T, fastUsed, slowUsed uint64) (perSecondStore, counter.Store, counter.Store, counter.Store) {
	t.Helper()
	fast, slow, single := counter.NewMemoryStore(counter.MemoryOptions{}), counter.NewMemoryStore(counter.MemoryOptions{}), counter.NewMemoryStore(counter.MemoryOptions{})
	for _, st := range []counter.Store{fast, single} {
		if fastUsed > 0 {
			spend(t, st, "{d}s", perSec, fastUsed)
		}
	}
	for _, st := range []counter.Store{slow, single} {
		if slowUsed > 0 {
			spend(t, st, "{d}m", perMin, slowUsed)
		}
	}
	return perSecondStore{perSecond: fast, other: slow}, fast, slow, single
}

// request is one descriptor per window: a per-second counter, a minute
// counter costing 2 and an hour one.
func request() []counter.Update {
	return []counter.Update{
		{Key: "{d}s", Policy: perSec, Cost: 1},
		{Key: "{d}m", Policy: perMin, Cost: 2},
		{Key: "{d}h", Policy: perHour, Cost: 1},
	}
}

// TestPerSecondRefusedChargesNothing: when the per-second Redis refuses,
// no counter moves in either, and every decision is the one a single store
// gives: with the minute counter at 4 of 5, the cost 2 puts it over too;
// with it empty, the other Redis alone would have admitted its counters,
// which are then reported as checks.
func TestPerSecondRefusedChargesNothing(t *testing.T) {
	for _, slowUsed := range []uint64{4, 0} {
		ps, fast, slow, single := twoStores(t, 2, slowUsed)
		got := make([]counter.Decision, 3)
		if err := ps.Update(context.Background(), psNow, request(), got); err != nil {
			t.Fatal(err)
		}
		want := make([]counter.Decision, 3)
		if err := single.Update(context.Background(), psNow, request(), want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("minute counter at %d: decisions (-single store +two stores):\n%s", slowUsed, diff)
		}
		if want[1].Allowed != (slowUsed == 0) || !want[2].Allowed {
			t.Fatalf("the case is not the one meant: %+v", want)
		}
		if s, m, h := used(t, fast, "{d}s", perSec), used(t, slow, "{d}m", perMin), used(t, slow, "{d}h", perHour); s != 2 || m != slowUsed || h != 0 {
			t.Errorf("used after a refusal: per-second %d, minute %d, hour %d; want 2, %d, 0", s, m, h, slowUsed)
		}
	}
}

// TestPerSecondAdmittedOtherRefused: the per-second hits stay charged
// (marked PartAdmitted) when the other Redis refuses afterwards; nothing
// moves there.
func TestPerSecondAdmittedOtherRefused(t *testing.T) {
	ps, fast, slow, _ := twoStores(t, 0, 4)
	got := make([]counter.Decision, 3)
	if err := ps.Update(context.Background(), psNow, request(), got); err != nil {
		t.Fatal(err)
	}
	if !got[0].Allowed || !got[0].PartAdmitted || got[1].Allowed || got[1].PartAdmitted || !got[2].Allowed || got[2].PartAdmitted {
		t.Errorf("decisions %+v: want the per-second one allowed and PartAdmitted, the minute one refused, the hour one a check", got)
	}
	if s, m, h := used(t, fast, "{d}s", perSec), used(t, slow, "{d}m", perMin), used(t, slow, "{d}h", perHour); s != 1 || m != 4 || h != 0 {
		t.Errorf("used: per-second %d, minute %d, hour %d; want 1, 4, 0", s, m, h)
	}
}

// TestPerSecondBothAdmit: every counter is charged in its own store, and
// the windows under a minute go to the per-second one.
func TestPerSecondBothAdmit(t *testing.T) {
	ps, fast, slow, _ := twoStores(t, 0, 0)
	updates := append(request(), counter.Update{Key: "{d}t", Policy: perTenS, Cost: 1})
	got := make([]counter.Decision, 4)
	if err := ps.Update(context.Background(), psNow, updates, got); err != nil {
		t.Fatal(err)
	}
	for i, d := range got {
		if !d.Allowed || d.PartAdmitted {
			t.Errorf("decision %d = %+v, want allowed, not PartAdmitted", i, d)
		}
	}
	if s, ten, m, h := used(t, fast, "{d}s", perSec), used(t, fast, "{d}t", perTenS), used(t, slow, "{d}m", perMin), used(t, slow, "{d}h", perHour); s != 1 || ten != 1 || m != 2 || h != 1 {
		t.Errorf("used: per-second %d, 10 s %d, minute %d, hour %d; want 1, 1, 2, 1", s, ten, m, h)
	}
	if n := used(t, slow, "{d}s", perSec) + used(t, slow, "{d}t", perTenS) + used(t, fast, "{d}m", perMin) + used(t, fast, "{d}h", perHour); n != 0 {
		t.Errorf("%d hits counted in the wrong store", n)
	}
}

// recorder is a counter.Store that records the batches it is given and
// allows everything.
type recorder struct {
	mu      sync.Mutex
	batches [][]counter.Update
}

func (r *recorder) Update(_ context.Context, _ time.Time, updates []counter.Update, decisions []counter.Decision) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, slices.Clone(updates))
	for i := range updates {
		decisions[i] = counter.Decision{Allowed: true}
	}
	return nil
}

// TestPerSecondOneStoreOnly: a request whose counters are all in one Redis
// is one Update there, unchanged; one refused per-second sends the other
// Redis one refusal per hash tag, so that a store deciding per tag charges
// none either.
func TestPerSecondOneStoreOnly(t *testing.T) {
	fast, slow := &recorder{}, &recorder{}
	ps := perSecondStore{perSecond: fast, other: slow}
	ds := make([]counter.Decision, 2)
	for _, u := range [][]counter.Update{
		{{Key: "{a}1", Policy: perSec, Cost: 1}, {Key: "{b}2", Policy: perSec, Cost: 1}},
		{{Key: "{a}3", Policy: perMin, Cost: 1}, {Key: "{b}4", Policy: perHour, Cost: 1}},
	} {
		if err := ps.Update(context.Background(), psNow, u, ds); err != nil {
			t.Fatal(err)
		}
	}
	if len(fast.batches) != 1 || len(fast.batches[0]) != 2 || len(slow.batches) != 1 || len(slow.batches[0]) != 2 {
		t.Errorf("batches: per-second %v, other %v; want one of 2 each", fast.batches, slow.batches)
	}

	refusing := perSecondStore{perSecond: counter.NewMemoryStore(counter.MemoryOptions{}), other: slow}
	slow.batches = nil
	u := []counter.Update{{Key: "{a}s", Policy: counter.Policy{Window: time.Second}, Cost: 1},
		{Key: "{a}m", Policy: perMin, Cost: 1}, {Key: "{b}m", Policy: perMin, Cost: 1}, {Key: "{a}h", Policy: perHour, Cost: 1}}
	if err := refusing.Update(context.Background(), psNow, u, make([]counter.Decision, 4)); err != nil {
		t.Fatal(err)
	}
	var refused []string
	for _, b := range slow.batches[0][3:] {
		if b.Policy.Max != 0 || b.Cost == 0 {
			t.Errorf("refusal %+v: want a limit of 0 and a cost", b)
		}
		refused = append(refused, b.Key)
	}
	if diff := cmp.Diff([]string{"{a}m", "{b}m"}, refused); diff != "" || len(slow.batches) != 1 {
		t.Errorf("refusals sent with %v (-want +got):\n%s", slow.batches, diff)
	}
}

// evalshas is a go-redis hook counting EVALSHA commands, alone or in
// pipelines (not the EVAL that follows a NOSCRIPT).
type evalshas struct {
	mu sync.Mutex
	n  int
}

func (h *evalshas) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *evalshas) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.add(cmd)
		return next(ctx, cmd)
	}
}

func (h *evalshas) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		for _, c := range cmds {
			h.add(c)
		}
		return next(ctx, cmds)
	}
}

func (h *evalshas) add(c goredis.Cmder) {
	if c.Name() == "evalsha" {
		h.mu.Lock()
		h.n++
		h.mu.Unlock()
	}
}

func (h *evalshas) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// keysOf returns the keys of the Redis at addr, sorted.
func keysOf(t *testing.T, addr string) []string {
	t.Helper()
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}

// perSecondEnv starts a main and a per-second Redis and returns them with the
// environment of a service using both (REDIS_PERSECOND=true), configured with
// domain d, a limit per second on key s and one per minute on key m.
func perSecondEnv(t *testing.T) (mainSrv, psSrv *redistest.Server, env map[string]string) {
	t.Helper()
	mainSrv, psSrv = redistest.Start(t), redistest.Start(t)
	env = redisEnv(t, mainSrv, "single")
	writeFile(t, filepath.Join(env["RUNTIME_ROOT"], "ratelimit/config/a.yaml"), `domain: d
descriptors:
  - key: s
    rate_limit: {unit: second, requests_per_unit: 1000}
  - key: m
    rate_limit: {unit: minute, requests_per_unit: 1000}
`)
	env["REDIS_PERSECOND"] = "true"
	env["REDIS_PERSECOND_SOCKET_TYPE"] = "tcp"
	env["REDIS_PERSECOND_URL"] = psSrv.Addr
	return mainSrv, psSrv, env
}

// TestRedisPerSecond runs the service with REDIS_PERSECOND=true on two
// Redis: a per-second limit's key lands in the per-second Redis only, the
// minute limit's in the main one only. With REDIS_*PIPELINE_WINDOW far
// longer than the test and REDIS_*PIPELINE_LIMIT=4, four concurrent
// requests are decided by one script call in each Redis.
func TestRedisPerSecond(t *testing.T) {
	mainSrv, psSrv, env := perSecondEnv(t)
	for _, p := range []string{"REDIS_", "REDIS_PERSECOND_"} {
		env[p+"PIPELINE_WINDOW"] = "1h"
		env[p+"PIPELINE_LIMIT"] = "4"
	}
	mainHook, psHook := &evalshas{}, &evalshas{}
	s := startWith(t, env, func(st *settings) { st.redisHook, st.redis.perSecondHook = mainHook, psHook })
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		wg.Go(func() { _, errs[i] = s.call(t, "d", "s=a", "m=b") })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if m, p := mainHook.count(), psHook.count(); m != 1 || p != 1 {
		t.Errorf("4 concurrent calls sent %d script calls to the main Redis and %d to the per-second one, want 1 and 1", m, p)
	}
	mainKeys, psKeys := keysOf(t, mainSrv.Addr), keysOf(t, psSrv.Addr)
	if len(mainKeys) != 1 || !strings.Contains(mainKeys[0], "R60:") || len(psKeys) != 1 || !strings.Contains(psKeys[0], "R1:") {
		t.Errorf("keys: main Redis %q, per-second Redis %q; want the minute limit's in the main one, the second limit's in the per-second one", mainKeys, psKeys)
	}
}

// TestRedisPerSecondDown: the per-second Redis down mid-run fails the calls
// that need it, is logged by its name and, with
// REDIS_HEALTH_CHECK_ACTIVE_CONNECTION, fails the health checks while the
// main Redis keeps answering the others.
func TestRedisPerSecondDown(t *testing.T) {
	_, psSrv, env := perSecondEnv(t)
	env["REDIS_HEALTH_CHECK_ACTIVE_CONNECTION"] = "true"
	s := start(t, env)
	psSrv.Kill()
	if _, err := s.call(t, "d", "s=a"); err == nil {
		t.Fatal("a per-second call with its Redis down succeeded")
	}
	eventually(t, "health to fail", func() bool { return grpcHealth(t, s) == healthpb.HealthCheckResponse_NOT_SERVING })
	if !strings.Contains(s.log.String(), "store=redis_per_second") {
		t.Errorf("the outage is not logged with store=redis_per_second:\n%s", s.log)
	}
	if r, err := s.call(t, "d", "m=b"); err != nil || r.OverallCode != 1 {
		t.Errorf("a minute call with the main Redis up = %v %v, want OK", r, err)
	}
	psSrv.Restart(t)
	eventually(t, "health to pass again", func() bool { return grpcHealth(t, s) == healthpb.HealthCheckResponse_SERVING })
}

// TestReferenceKeysPerSecond: with RLPKIT_REDIS_KEYS=reference and
// REDIS_PERSECOND=true, a second limit's counter is kept in the per-second
// Redis under the reference's key, the minute limit's in the main one.
func TestReferenceKeysPerSecond(t *testing.T) {
	mainSrv, psSrv, env := perSecondEnv(t)
	env["RLPKIT_REDIS_KEYS"] = "reference"
	s := start(t, env)
	if _, err := s.call(t, "d", "s=a", "m=b"); err != nil {
		t.Fatal(err)
	}
	mainKeys, psKeys := keysOf(t, mainSrv.Addr), keysOf(t, psSrv.Addr)
	prefix := env["CACHE_KEY_PREFIX"]
	if len(mainKeys) != 1 || !strings.HasPrefix(mainKeys[0], prefix+"d_m_b_") || len(psKeys) != 1 || !strings.HasPrefix(psKeys[0], prefix+"d_s_a_") {
		t.Errorf("keys: main Redis %q, per-second Redis %q; want d_m_b_<window> in the main one, d_s_a_<window> in the per-second one", mainKeys, psKeys)
	}
}
