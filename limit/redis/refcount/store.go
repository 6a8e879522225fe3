package refcount

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// DefaultJitterMaxSeconds is the reference's EXPIRATION_JITTER_MAX_SECONDS.
const DefaultJitterMaxSeconds = 300

// Options configures a Store. The zero value counts as the reference does
// with EXPIRATION_JITTER_MAX_SECONDS=0 and no local cache.
type Options struct {
	// KeyPrefix is prepended to every key: the reference's
	// CACHE_KEY_PREFIX. Unlike limit/redis's, it may hold '{' and '}', as
	// the reference's may: keys then take its hash tag.
	KeyPrefix string
	// JitterMaxSeconds bounds the random seconds added to every key's
	// TTL: [0, JitterMaxSeconds); 0 adds none. It must not be negative.
	JitterMaxSeconds int64
	// Jitter, when set, draws the jitter: a number in [0, n). Nil means
	// math/rand/v2. Tests set it to make TTLs known.
	Jitter func(n int64) int64
	// StopIncrementWhenOverLimit is the reference's
	// STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (see the package doc).
	StopIncrementWhenOverLimit bool
	// LocalCacheBytes, above 0, remembers the counters found over within
	// that many bytes (the reference's LOCAL_CACHE_SIZE_IN_BYTES).
	LocalCacheBytes int
	// Breaker, when set, makes Update fail at once while it knows Redis to
	// be down, and learns from every round trip that fails (see
	// limit/redis.Breaker). The Store does not close it.
	Breaker *redis.Breaker
	// PerSecondClient, when set, keeps the counters of one-second windows,
	// as the reference's REDIS_PERSECOND Redis does: a request's counters
	// then take one pipeline on the main client, then one on this one.
	// PerSecondBreaker is its Breaker, as Breaker is the main client's.
	PerSecondClient  goredis.UniversalClient
	PerSecondBreaker *redis.Breaker
}

// Store is a counter.Store counting as envoyproxy/ratelimit does (see the
// package doc), on a go-redis client: standalone, Sentinel or Cluster. It
// is safe for concurrent use; create it with New.
type Store struct {
	client goredis.UniversalClient
	o      Options
	cache  *localCache // nil without LocalCacheBytes
}

var _ counter.Store = (*Store)(nil)

// New returns a Store on client. Deadlines of the contexts given to Update
// bound its round trips when the client has ContextTimeoutEnabled set.
func New(client goredis.UniversalClient, o Options) (*Store, error) {
	if client == nil {
		return nil, errors.New("limit/redis/refcount: no client")
	}
	if o.JitterMaxSeconds < 0 {
		return nil, fmt.Errorf("limit/redis/refcount: JitterMaxSeconds %d is negative", o.JitterMaxSeconds)
	}
	if o.LocalCacheBytes < 0 {
		return nil, fmt.Errorf("limit/redis/refcount: LocalCacheBytes %d is negative", o.LocalCacheBytes)
	}
	if o.Jitter == nil {
		o.Jitter = rand.Int64N
	}
	s := &Store{client: client, o: o}
	if o.LocalCacheBytes > 0 {
		s.cache = newLocalCache(o.LocalCacheBytes)
	}
	return s, nil
}

// counterOf is one update as the reference counts it.
type counterOf struct {
	key    string // with the prefix
	window int64  // seconds
	max    uint64
	cached bool // over in the local cache: no command
	second bool // on the per-second client
	addend uint64
	value  *goredis.IntCmd // INCRBY's reply
}

// Update implements counter.Store (see the package doc for how it
// departs from its all-or-nothing contract). It returns an error for
// invalid input (decisions shorter than updates, a policy the reference
// cannot count) and when Redis fails or does not answer within ctx; the
// counters a failed pipeline did increment stay incremented, as with the
// reference.
func (s *Store) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if len(decisions) < len(updates) {
		return fmt.Errorf("limit/redis/refcount: %d decisions for %d updates", len(decisions), len(updates))
	}
	cs := make([]counterOf, len(updates))
	nowSec := now.Unix()
	anyCached := false
	for i := range updates {
		u := &updates[i]
		if err := check(u.Policy); err != nil {
			return fmt.Errorf("limit/redis/refcount: update %d (key %q): %w", i, u.Key, err)
		}
		c := &cs[i]
		c.key, c.window, c.max, c.addend = s.o.KeyPrefix+u.Key, int64(u.Policy.Window/time.Second), u.Policy.Max, u.Cost
		c.second = s.o.PerSecondClient != nil && c.window == 1
		if s.cache != nil && s.cache.over(c.key, nowSec, c.max) {
			c.cached, anyCached = true, true
		}
	}
	if len(updates) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("limit/redis/refcount: %w", err)
	}
	if err := s.o.Breaker.Err(); err != nil {
		return err
	}
	if s.o.PerSecondClient != nil {
		if err := s.o.PerSecondBreaker.Err(); err != nil {
			return err
		}
	}
	if s.o.StopIncrementWhenOverLimit {
		if err := s.spare(ctx, cs, anyCached); err != nil {
			return err
		}
	}
	if err := s.count(ctx, cs); err != nil {
		return err
	}
	for i := range cs {
		decisions[i] = s.decide(&cs[i], updates[i].Cost, nowSec)
	}
	return nil
}

// check returns an error for a policy the reference does not count.
func check(p counter.Policy) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if p.Algorithm != counter.AlgorithmFixedWindow || p.FirstHit {
		return fmt.Errorf("only epoch-aligned fixed windows are counted with the reference's keys, not %v", p.Algorithm)
	}
	if p.Window < time.Second || p.Window%time.Second != 0 {
		return fmt.Errorf("window %v is not a whole number of seconds", p.Window)
	}
	return nil
}

// spare sets the addends of StopIncrementWhenOverLimit: 0 for every
// counter when one is over in the local cache; else, from the counters'
// current values (one pipeline of GETs), the cost of those that would go
// over and 0 for the others when any would, every cost when none would.
func (s *Store) spare(ctx context.Context, cs []counterOf, anyCached bool) error {
	if anyCached {
		for i := range cs {
			cs[i].addend = 0
		}
		return nil
	}
	gets := make([]*goredis.StringCmd, len(cs))
	err := s.pipelines(ctx, cs, func(pipe goredis.Pipeliner, i int) bool {
		gets[i] = pipe.Get(ctx, cs[i].key)
		return true
	})
	if err != nil {
		return fmt.Errorf("limit/redis/refcount: read %d counters: %w", len(cs), err)
	}
	would := make([]bool, len(cs))
	anyWould := false
	for i := range cs {
		cur, err := gets[i].Uint64()
		if err != nil && !errors.Is(err, goredis.Nil) {
			return fmt.Errorf("limit/redis/refcount: counter %q: %w", cs[i].key, err)
		}
		if cur+cs[i].addend > cs[i].max {
			would[i], anyWould = true, true
		}
	}
	if anyWould {
		for i := range cs {
			if !would[i] {
				cs[i].addend = 0
			}
		}
	}
	return nil
}

// count sends INCRBY and EXPIRE for every counter not over in the local
// cache, in one pipeline.
func (s *Store) count(ctx context.Context, cs []counterOf) error {
	n := 0
	err := s.pipelines(ctx, cs, func(pipe goredis.Pipeliner, i int) bool {
		c := &cs[i]
		if c.cached {
			return false
		}
		ttl := c.window
		if s.o.JitterMaxSeconds > 0 {
			ttl += s.o.Jitter(s.o.JitterMaxSeconds)
		}
		c.value = pipe.IncrBy(ctx, c.key, int64(c.addend))
		pipe.Expire(ctx, c.key, time.Duration(ttl)*time.Second)
		n++
		return true
	})
	if err != nil {
		return fmt.Errorf("limit/redis/refcount: update %d counters: %w", n, err)
	}
	return nil
}

// pipelines queues, with add, the commands of every counter on its
// client's pipeline, and sends the main client's then the per-second
// client's, as the reference does; add reports whether it queued any. A
// failure is reported to the client's Breaker; a missing key (GET) is no
// failure.
func (s *Store) pipelines(ctx context.Context, cs []counterOf, add func(goredis.Pipeliner, int) bool) error {
	for _, second := range []bool{false, true} {
		client, breaker := s.client, s.o.Breaker
		if second {
			client, breaker = s.o.PerSecondClient, s.o.PerSecondBreaker
		}
		if client == nil {
			continue
		}
		pipe, queued := client.Pipeline(), false
		for i := range cs {
			if cs[i].second == second && add(pipe, i) {
				queued = true
			}
		}
		if !queued {
			continue
		}
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
			breaker.Report(err)
			return err
		}
	}
	return nil
}

// decide is the decision of one counter after count, as the reference
// makes it; a counter found over is remembered in the local cache.
func (s *Store) decide(c *counterOf, cost uint64, nowSec int64) counter.Decision {
	reset := time.Duration(c.window-mod(nowSec, c.window)) * time.Second
	if c.cached {
		// As over as can be: every hit of this request is over.
		return counter.Decision{Used: float64(c.max + cost), ResetAfter: reset, RetryAfter: reset}
	}
	after := uint64(c.value.Val())
	d := counter.Decision{Used: float64(after), ResetAfter: reset, RetryAfter: reset}
	if after <= c.max {
		// Charged only when its cost was added: a counter
		// StopIncrementWhenOverLimit spared was checked, not charged, and
		// an evaluator letting the request through charges it again.
		d.Allowed, d.PartAdmitted, d.Remaining = true, c.addend == cost, c.max-after
		return d
	}
	if s.cache != nil {
		s.cache.put(c.key, c.max, nowSec+c.window, nowSec)
	}
	return d
}

// mod is a mod b, from 0 to b-1.
func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}
