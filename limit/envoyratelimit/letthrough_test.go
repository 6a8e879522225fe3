package envoyratelimit

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/overlimitcache"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/limit/redis/cached"
	"github.com/rlpkit/rlpkit/limit/redis/refcount"
)

// raceRequests is how many requests each concurrency test sends at once,
// against an enforced limit of raceLimit.
const (
	raceRequests = 64
	raceLimit    = 5
)

// letThroughCase is a request that the first Store.Update refuses through
// a limit that does not refuse the request, so that the request is let
// through and charged on its enforced limit of raceLimit a minute.
type letThroughCase struct {
	name string
	o    Options // ShadowMode, QuotaMode
	cfg  string  // a template: %[1]d is the enforced limit, %[2]d the soft one
	req  Request
	// soft and enforced are the descriptors whose counters every request
	// moves: one hit each, admitted or counted over.
	soft, enforced Descriptor
}

var letThroughCases = []letThroughCase{
	{name: "shadow_mode rule", cfg: `domain: d
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: %[2]d}
  - key: real
    rate_limit: {unit: minute, requests_per_unit: %[1]d}
`, req: req(desc("trial", "x"), desc("real", "x")), soft: desc("trial", "x"), enforced: desc("real", "x")},
	{name: "quota_mode rules", cfg: `domain: d
descriptors:
  - key: q0
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: %[2]d}
  - key: q5
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: %[1]d}
`, req: req(desc("q0", "x"), desc("q5", "x")), soft: desc("q0", "x"), enforced: desc("q5", "x")},
	{name: "QUOTA_MODE", o: Options{QuotaMode: true}, cfg: `domain: d
descriptors:
  - key: a
    rate_limit: {unit: minute, requests_per_unit: %[2]d}
  - key: b
    rate_limit: {unit: minute, requests_per_unit: %[1]d}
`, req: req(desc("a", "x"), desc("b", "x")), soft: desc("a", "x"), enforced: desc("b", "x")},
	{name: "SHADOW_MODE and a shadow_mode rule", o: Options{ShadowMode: true}, cfg: `domain: d
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: %[2]d}
  - key: real
    rate_limit: {unit: minute, requests_per_unit: %[1]d}
`, req: req(desc("trial", "x"), desc("real", "x")), soft: desc("trial", "x"), enforced: desc("real", "x")},
	{name: "shadow_mode rule beside rate_limits", cfg: `domain: d
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: %[2]d}
  - key: real
    rate_limits:
      - {unit: minute, requests_per_unit: %[1]d}
      - {unit: hour, requests_per_unit: 1000}
`, req: req(desc("trial", "x"), desc("real", "x")), soft: desc("trial", "x"), enforced: desc("real", "x")},
}

// raceStore is a store for the concurrency tests; exactCount is set when
// it counts every hit of a request once, admitted or rejected (no local
// cache keeps a rejected one from the store, no read before the increment
// spares it).
type raceStore struct {
	name       string
	keys       KeyFormat
	tagBy      limit.TagBy
	exactCount bool
	make       func(t *testing.T) counter.Store
}

// raceStores returns the stores a let-through request can meet: memory,
// Redis, either behind limit/overlimitcache, limit/redis/cached, and
// limit/redis/refcount with and without the reference's
// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT and local cache. The Redis ones
// share one redis-server, each store under keys of its own.
func raceStores(t *testing.T) []raceStore {
	srv := redistest.Start(t)
	client, err := redis.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	var mu sync.Mutex
	prefixes := 0
	redisClient := func(*testing.T) (goredis.UniversalClient, string) {
		mu.Lock()
		defer mu.Unlock()
		prefixes++
		return client, fmt.Sprintf("t%d:", prefixes)
	}
	exact := func(t *testing.T) counter.Store {
		c, prefix := redisClient(t)
		s, err := redis.New(c, redis.Options{KeyPrefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	ref := func(o refcount.Options) func(t *testing.T) counter.Store {
		return func(t *testing.T) counter.Store {
			c, prefix := redisClient(t)
			o.KeyPrefix = prefix
			s, err := refcount.New(c, o)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	clusterSrv := redistest.StartCluster(t)
	cluster, err := redis.NewClient(clusterSrv.URL() + "?addr=" + clusterSrv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cluster.Close() })
	memory := func(*testing.T) counter.Store { return counter.NewMemoryStore(counter.MemoryOptions{}) }
	return []raceStore{
		{name: "memory", exactCount: true, make: memory},
		{name: "redis", exactCount: true, make: exact},
		{name: "overlimitcache/memory", make: func(t *testing.T) counter.Store { return overlimitcache.New(memory(t), 1<<20) }},
		{name: "overlimitcache/redis", make: func(t *testing.T) counter.Store { return overlimitcache.New(exact(t), 1<<20) }},
		{name: "redis/cached", exactCount: true, make: func(t *testing.T) counter.Store {
			c, prefix := redisClient(t)
			s, err := cached.New(c, cached.Options{Redis: redis.Options{KeyPrefix: prefix}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close(context.Background()) })
			return s
		}},
		// Tagged by first entry over a Cluster, a request's descriptors
		// are decided one tag at a time (limit/redis SplitHashTags).
		{name: "redis-cluster/split", tagBy: limit.TagByFirstEntry, exactCount: true, make: func(t *testing.T) counter.Store {
			mu.Lock()
			prefixes++
			prefix := fmt.Sprintf("t%d:", prefixes)
			mu.Unlock()
			s, err := redis.New(cluster, redis.Options{KeyPrefix: prefix, SplitHashTags: true})
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{name: "redis/refcount", keys: KeysReference, exactCount: true, make: ref(refcount.Options{})},
		// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT decides what to add from
		// a read before the increments, as the reference does: a counter
		// filled between them is found over with nothing added.
		{name: "redis/refcount/stop-increment", keys: KeysReference, make: ref(refcount.Options{StopIncrementWhenOverLimit: true})},
		{name: "redis/refcount/stop-increment/local-cache", keys: KeysReference, make: ref(refcount.Options{StopIncrementWhenOverLimit: true, LocalCacheBytes: 1 << 20})},
	}
}

// barrierStore holds the first Update of every request marked in its
// context (withBarrier) until n of them have been made: every request then
// decides on counters no other has charged yet, the interleaving in which
// deciding on one call and charging in another goes wrong.
type barrierStore struct {
	counter.Store
	wg *sync.WaitGroup
}

type firstCallKey struct{}

// withBarrier marks ctx as one request's for a barrierStore.
func withBarrier(ctx context.Context) context.Context {
	return context.WithValue(ctx, firstCallKey{}, new(bool))
}

func (s barrierStore) Update(ctx context.Context, now time.Time, u []counter.Update, d []counter.Decision) error {
	made, _ := ctx.Value(firstCallKey{}).(*bool)
	if made == nil || *made {
		return s.Store.Update(ctx, now, u, d)
	}
	*made = true // a request's calls are sequential: no other goroutine reads it
	err := s.Store.Update(ctx, now, u, d)
	s.wg.Done()
	s.wg.Wait()
	return err
}

// raceOutcome is what raceRequests concurrent requests were answered.
type raceOutcome struct {
	ok, within int // answered OK; answered neither OVER_LIMIT nor ShadowedOverLimit
}

// raceEvaluate sends raceRequests copies of r at once to ev at now, all
// held at their first Update until each has made it when barrier is set.
func raceEvaluate(t *testing.T, ev *Evaluator, now time.Time, r Request, barrier bool) raceOutcome {
	t.Helper()
	if barrier {
		wg := new(sync.WaitGroup)
		wg.Add(raceRequests)
		ev = &Evaluator{o: ev.o, cfg: ev.cfg, scratch: ev.scratch}
		ev.o.Store = barrierStore{Store: ev.o.Store, wg: wg}
	}
	var mu sync.Mutex
	var out raceOutcome
	var wg sync.WaitGroup
	for range raceRequests {
		wg.Go(func() {
			ctx := context.Background()
			if barrier {
				ctx = withBarrier(ctx)
			}
			r := r
			r.Descriptors = append([]Descriptor(nil), r.Descriptors...)
			res := new(Response)
			if err := ev.Evaluate(ctx, now, &r, res); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if res.OverallCode == CodeOK {
				out.ok++
			}
			if res.OverallCode == CodeOK && !res.ShadowedOverLimit {
				out.within++
			}
		})
	}
	wg.Wait()
	return out
}

// remaining is what a check (hits_addend 0) of d reports left.
func remaining(t *testing.T, ev *Evaluator, now time.Time, d Descriptor) uint32 {
	t.Helper()
	d.HitsAddend = u64(0)
	r := req(d)
	res := new(Response)
	if err := ev.Evaluate(context.Background(), now, &r, res); err != nil {
		t.Fatal(err)
	}
	return res.Statuses[0].LimitRemaining
}

// TestLetThroughExactAtTheLimit: 64 concurrent requests, each with a
// descriptor over a limit that does not refuse the request (a shadow_mode
// rule, a quota descriptor, QUOTA_MODE, SHADOW_MODE) and one under an
// enforced limit of 5 a minute, are let through exactly 5 times, on every
// store, whether each request's first Update is held until all have made
// theirs (the interleaving that let 59 more through, answered OK and
// counted nowhere) or they run as they come. Afterwards, with both limits
// raised to 1,000, each counter holds exactly 64 hits: every request was
// counted once on each, admitted or over.
func TestLetThroughExactAtTheLimit(t *testing.T) {
	stores := raceStores(t)
	for _, barrier := range []bool{true, false} {
		for _, st := range stores {
			for _, tc := range letThroughCases {
				name := fmt.Sprintf("%s/%s/barrier=%v", st.name, tc.name, barrier)
				t.Run(name, func(t *testing.T) {
					cfg := mustLoadWith(t, fmt.Sprintf(tc.cfg, raceLimit, 0), st.keys)
					raised := mustLoadWith(t, fmt.Sprintf(tc.cfg, 1000, 1000), st.keys)
					o := tc.o
					o.Store, o.Keys, o.TagBy = st.make(t), st.keys, st.tagBy
					ev, err := NewEvaluator(o)
					if err != nil {
						t.Fatal(err)
					}
					now := time.Now()
					got := raceEvaluate(t, ev.WithConfig(cfg), now, tc.req, barrier)
					// Answered OK: those within the limits, and under
					// SHADOW_MODE every one.
					wantOK := raceLimit
					if tc.o.ShadowMode {
						wantOK = raceRequests
					}
					if got.ok != wantOK || got.within != raceLimit {
						t.Errorf("%d requests at a limit of %d: %d answered OK, %d within the limits; want %d and %d",
							raceRequests, raceLimit, got.ok, got.within, wantOK, raceLimit)
					}
					if !st.exactCount {
						return
					}
					for _, d := range []Descriptor{tc.soft, tc.enforced} {
						if left := remaining(t, ev.WithConfig(raised), now, d); left != 1000-raceRequests {
							t.Errorf("%v: %d left of 1000, want %d (each request counted once)", d.Entries, left, 1000-raceRequests)
						}
					}
				})
			}
		}
	}
}

func mustLoadWith(t *testing.T, src string, keys KeyFormat) *Config {
	t.Helper()
	cfg, err := Load([]File{{Key: "config.t", Data: []byte(src)}}, LoadOptions{Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// interposingStore runs before, once, just ahead of the store call number
// at (counting from 1): another request's work between two calls of one.
type interposingStore struct {
	counter.Store
	at     int
	before func()
	calls  int
}

func (s *interposingStore) Update(ctx context.Context, now time.Time, u []counter.Update, d []counter.Decision) error {
	s.calls++
	if s.calls == s.at {
		s.before()
	}
	return s.Store.Update(ctx, now, u, d)
}

// TestLetThroughDecidedAgain: when another request takes the room of a
// let-through request between its first call and its charge, the request
// is decided again from the refused charge: over when an enforced counter
// is now over (nothing charged), and still let through, charged on what
// still has room in a third call, when only quota counters filled.
func TestLetThroughDecidedAgain(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: real
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: other
    rate_limit: {unit: minute, requests_per_unit: 100}
  - key: q0
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 0}
  - key: q1
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: q5
    quota_mode: true
    rate_limit: {unit: minute, requests_per_unit: 5}
`)
	setup := func(t *testing.T, take Descriptor) (*Evaluator, *interposingStore) {
		st := &interposingStore{Store: counter.NewMemoryStore(counter.MemoryOptions{}), at: 2}
		ev, err := NewEvaluator(Options{Store: st})
		if err != nil {
			t.Fatal(err)
		}
		st.before = func() {
			st.at = 0 // the interposed request's own calls are not counted against at
			r := req(take)
			if res, err := evaluate(ev, cfg, t0, &r); err != nil || res.OverallCode != OK {
				t.Fatalf("the interposed request: %v %v", res, err)
			}
		}
		return ev, st
	}

	t.Run("an enforced counter filled: over, nothing charged", func(t *testing.T) {
		ev, _ := setup(t, desc("real", "x"))
		run(t, ev, cfg, []step{
			{0, req(desc("trial", "x"), desc("real", "x"), desc("other", "x")),
				resp(OVER, lim(OK, "", 0, UnitMinute, 0, 50*sec), lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 100, UnitMinute, 100, 50*sec)), ""},
			{0, req(hits(desc("other", "x"), 0)), resp(OK, lim(OK, "", 100, UnitMinute, 100, 50*sec)), ""},
		})
	})
	t.Run("a quota counter filled: still let through, charged on the rest", func(t *testing.T) {
		ev, st := setup(t, desc("q1", "x"))
		run(t, ev, cfg, []step{
			{0, req(desc("q0", "x"), desc("q1", "x"), desc("q5", "x"), desc("other", "x")),
				resp(OK, lim(OVER, "", 0, UnitMinute, 0, 50*sec), lim(OVER, "", 1, UnitMinute, 0, 50*sec), lim(OK, "", 5, UnitMinute, 4, 50*sec), lim(OK, "", 100, UnitMinute, 99, 50*sec)), ""},
		})
		// First call, refused charge, charge, the rejected hits of q0 and
		// q1 (the interposed request's one call is counted too).
		if st.calls != 5 {
			t.Errorf("%d store calls, want 5 (the interposed one, and four for the request)", st.calls)
		}
		run(t, ev, cfg, []step{
			{0, req(hits(desc("q5", "x"), 0), hits(desc("other", "x"), 0)),
				resp(OK, lim(OK, "", 5, UnitMinute, 4, 50*sec), lim(OK, "", 100, UnitMinute, 99, 50*sec)), ""},
		})
	})
}
