package cached

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/internal/keyset"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// Defaults of Options, as Limitador's "cached Redis" storage has them.
const (
	// DefaultFlushPeriod is how often pending hits are written to Redis.
	DefaultFlushPeriod = time.Second
	// DefaultBatchSize is the number of counters with pending hits that
	// makes a flush start before its period ends.
	DefaultBatchSize = 100
	// DefaultMaxCounters bounds the counters kept in memory.
	DefaultMaxCounters = 10_000
	// DefaultFlushTimeout bounds one flush, as Limitador's response
	// timeout.
	DefaultFlushTimeout = 350 * time.Millisecond
	// DefaultAllowanceDivisor sets the allowance of a counter whose
	// Options.MaxUnflushed is 0: max(1, Max/DefaultAllowanceDivisor).
	DefaultAllowanceDivisor = 10
)

// maxNowMicros bounds the instants Update accepts, as limit/redis does, so
// that the script's arithmetic in doubles is exact.
const maxNowMicros = 1 << 52

// Options configures a Store. The zero value gives the defaults.
type Options struct {
	// Redis configures the exact store that takes the batches this store
	// does not count locally (see the package doc) and the keys both
	// write. Its ServerTime must be false: local decisions are taken at
	// the caller's clock. Its Breaker, when set, serves the flushes too:
	// they report their failures to it and, while it knows Redis to be
	// down, fail at once without a round trip.
	Redis redis.Options
	// FlushPeriod is how often pending hits are written to Redis; 0 means
	// DefaultFlushPeriod. A negative period starts no timer: the owner
	// calls Flush (tests, or a caller with its own schedule). Hits are
	// written sooner when BatchSize counters have pending hits, and a
	// counter reaching its allowance (MaxUnflushed) is flushed by the
	// request that needs it.
	FlushPeriod time.Duration
	// FlushTimeout bounds a flush, and how long a request waits for one;
	// 0 means DefaultFlushTimeout.
	FlushTimeout time.Duration
	// BatchSize is the number of counters with pending hits that starts a
	// flush before the period ends; 0 means DefaultBatchSize.
	BatchSize int
	// MaxUnflushed is a counter's allowance: the most of its hits this
	// instance admits that Redis has not acknowledged yet (pending or being
	// flushed). A request that would go past it waits for a flush, which
	// is what bounds the error (see the package doc). 0 means
	// max(1, Max/DefaultAllowanceDivisor) for each counter's Max.
	MaxUnflushed uint64
	// MaxCounters bounds the counters kept in memory; 0 means
	// DefaultMaxCounters.
	MaxCounters int
	// OnStateChange, when set, is called when a failed flush makes the
	// store down (down true, with the flush's error) and when a flush that
	// succeeds ends it (down false, nil), for logs and metrics. It is
	// called from the flushing goroutine, after the flush, and must not
	// block.
	OnStateChange func(down bool, err error)
}

// Store is a counter.Store that decides fixed windows locally and writes
// their hits to Redis in batches; see the package doc for what it admits.
// It is safe for concurrent use; create it with New and stop it with Close.
type Store struct {
	client      goredis.UniversalClient
	exact       *redis.Store
	prefix      string
	marginMs    int64
	allowance   uint64
	batchSize   int
	maxCounters int
	timeout     time.Duration
	sharded     bool
	onChange    func(down bool, err error)
	breaker     *redis.Breaker // Redis.Breaker; nil: none
	// onDecide, when set (by tests), is called after each local decision
	// with the number of key comparisons and map look-ups it took.
	onDecide func(probes int)

	mu       sync.Mutex
	counters map[string]*entry
	dirty    int   // counters with pending > 0
	lastNow  int64 // the latest instant an Update decided at, Unix µs: a flush's clock
	down     bool  // the last flush failed: decide without waiting for Redis
	closed   bool

	flushing chan struct{} // holds a token while a flush runs: one at a time
	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}

	flushes, flushErrors, exactBatches atomic.Uint64
}

// entry is this instance's view of one counter: the window it counts in,
// the count Redis last reported for it and the hits admitted here since.
type entry struct {
	start    int64  // window start, Unix µs; 0 for a counter that has seen nothing
	window   int64  // window length, µs
	base     uint64 // hits Redis acknowledged in the window (a lower bound of all hits)
	pending  uint64 // hits admitted here, not yet sent
	inflight uint64 // hits admitted here, in the flush under way
	firstHit bool   // the window starts at its first hit (limitador's)
	bad      error  // a flush found the key holding no counter state (see Flush)
}

func (e *entry) state() counter.State {
	return counter.State{Time: e.start, Count: e.base + e.pending + e.inflight}
}

var _ counter.Store = (*Store)(nil)

// New returns a Store on client and, unless o.FlushPeriod is negative,
// starts its flush timer. The caller closes the Store (Close) before the
// client.
func New(client goredis.UniversalClient, o Options) (*Store, error) {
	var errs []error
	if o.Redis.ServerTime {
		errs = append(errs, errors.New("limit/redis/cached: Redis.ServerTime cannot be used: local decisions are taken at the caller's clock"))
	}
	if o.FlushTimeout < 0 {
		errs = append(errs, fmt.Errorf("limit/redis/cached: negative flush timeout %v", o.FlushTimeout))
	}
	if o.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("limit/redis/cached: negative batch size %d", o.BatchSize))
	}
	if o.MaxCounters < 0 {
		errs = append(errs, fmt.Errorf("limit/redis/cached: negative max counters %d", o.MaxCounters))
	}
	exact, err := redis.New(client, o.Redis)
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	margin := o.Redis.TTLMargin
	if margin == 0 {
		margin = redis.DefaultTTLMargin
	}
	_, standalone := client.(*goredis.Client)
	s := &Store{
		client:      client,
		exact:       exact,
		prefix:      o.Redis.KeyPrefix,
		marginMs:    ceilMillis(margin.Microseconds()),
		allowance:   o.MaxUnflushed,
		batchSize:   orDefault(o.BatchSize, DefaultBatchSize),
		maxCounters: orDefault(o.MaxCounters, DefaultMaxCounters),
		timeout:     orDefault(o.FlushTimeout, DefaultFlushTimeout),
		sharded:     !standalone,
		onChange:    o.OnStateChange,
		breaker:     o.Redis.Breaker,
		counters:    map[string]*entry{},
		flushing:    make(chan struct{}, 1),
		kick:        make(chan struct{}, 1),
		stop:        make(chan struct{}),
		done:        make(chan struct{}),
	}
	period := orDefault(o.FlushPeriod, DefaultFlushPeriod)
	if period > 0 {
		go s.loop(period)
	} else {
		close(s.done)
	}
	return s, nil
}

func orDefault[T int | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Approximate reports whether updates are decided locally: every update
// is a fixed window. Other batches go to the exact store.
func Approximate(updates []counter.Update) bool {
	for i := range updates {
		if updates[i].Policy.Algorithm != counter.AlgorithmFixedWindow {
			return false
		}
	}
	return true
}

// Update implements counter.Store. A batch of fixed windows is decided
// from this instance's view of its counters, without Redis, unless a
// counter's allowance is used up: it then waits for a flush (one round
// trip, at most the flush timeout) unless the store is down, and decides
// from the view. Any other batch is the exact store's (limit/redis), one round
// trip. It returns an error for invalid input, when the store is closed,
// and when a batch needs room for new counters while every counter kept
// holds hits Redis has not acknowledged and Redis cannot be reached.
func (s *Store) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if err := counter.CheckBatch("limit/redis/cached", updates, decisions); err != nil {
		return err
	}
	if len(updates) == 0 {
		return nil
	}
	nowUs := now.UnixMicro()
	if nowUs < 0 || nowUs >= maxNowMicros {
		return fmt.Errorf("limit/redis/cached: instant %v is outside the range the store computes exactly (1970 to 2112)", now)
	}
	if !Approximate(updates) {
		s.exactBatches.Add(1)
		return s.exact.Update(ctx, now, updates, decisions)
	}
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return errors.New("limit/redis/cached: Update after Close")
		}
		s.lastNow = max(s.lastNow, nowUs)
		why := s.decide(now, updates, decisions)
		s.mu.Unlock()
		switch why {
		case decided:
			return nil
		case badKey:
			return s.exactForBadKey(ctx, now, updates, decisions)
		}
		// A counter's allowance is used up, or there is no room for a new
		// counter: a flush acknowledges the hits, then decide again. The
		// wait is bounded by the flush timeout too, so that a Redis that
		// does not answer leaves time to decide without it.
		fctx, cancel := context.WithTimeout(ctx, s.timeout)
		err := s.Flush(fctx)
		cancel()
		if err == nil {
			continue
		}
		if ctx.Err() != nil {
			return fmt.Errorf("limit/redis/cached: waiting for a flush: %w", ctx.Err())
		}
		if why == noRoom {
			return fmt.Errorf("limit/redis/cached: %d counters hold hits Redis has not acknowledged and there is no room for another: %w", s.maxCounters, err)
		}
		// The first failure marks the store down; the loop decides again
		// without waiting.
	}
}

// outcome is why decide did or did not decide.
type outcome int

const (
	decided       outcome = iota
	overAllowance         // a counter would go past its allowance
	noRoom                // a new counter finds the store full
	badKey                // a counter's key holds no counter state
)

// exactForBadKey decides, with the exact store, a batch touching a key a
// flush found holding no counter state: it fails naming the key while the
// key holds something else. Once it succeeds the key holds a counter
// again, and its counters are forgotten here, to be counted locally from
// an empty view (as after an eviction).
func (s *Store) exactForBadKey(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	s.exactBatches.Add(1)
	if err := s.exact.Update(ctx, now, updates, decisions); err != nil {
		return err
	}
	s.mu.Lock()
	for i := range updates {
		if e := s.counters[updates[i].Key]; e != nil && e.bad != nil {
			s.drop(updates[i].Key, e)
		}
	}
	s.mu.Unlock()
	return nil
}

// maxLocalBatch is the batch size up to which decide keeps its scratch on
// the stack.
const maxLocalBatch = 8

// scratch is decide's scratch for a batch of up to maxLocalBatch updates,
// kept on its stack: per distinct key, its name, the counter kept (or
// nil), its state as the batch is applied and before, the hits Redis has
// not acknowledged and those the batch adds; per update, its key's index.
type scratch struct {
	names          [maxLocalBatch]string
	entries        [maxLocalBatch]*entry
	work, orig     [maxLocalBatch]counter.State
	unacked, added [maxLocalBatch]uint64
	keyOf          [maxLocalBatch]int
}

// decide applies updates to the local view, all or nothing, as
// counter.MemoryStore does, and reports whether it could. s.mu must be held.
// It is the store's hot path: its helpers inline, its scratch stays on the
// stack up to maxLocalBatch updates, and its work is linear in the batch
// size (see package keyset).
func (s *Store) decide(now time.Time, updates []counter.Update, decisions []counter.Decision) outcome {
	n := len(updates)
	var sc scratch
	names, entries, work, orig := sc.names[:0], sc.entries[:0], sc.work[:0], sc.orig[:0]
	unacked, added, keyOf := sc.unacked[:0], sc.added[:0], sc.keyOf[:0]
	if n > maxLocalBatch {
		names, entries, work, orig = make([]string, 0, n), make([]*entry, 0, n), make([]counter.State, 0, n), make([]counter.State, 0, n)
		unacked, added, keyOf = make([]uint64, 0, n), make([]uint64, 0, n), make([]int, 0, n)
	}
	groups := keyset.New(n, maxLocalBatch, names)
	for i := range updates {
		key := updates[i].Key
		k := groups.Find(key)
		if k < 0 {
			k = len(entries)
			groups.Names = append(groups.Names, key)
			if groups.Index != nil {
				groups.Index[key] = k
			}
			e := s.counters[key]
			if e != nil && e.bad != nil {
				return badKey
			}
			st, un := e.snapshot()
			entries, work, orig = append(entries, e), append(work, st), append(orig, st)
			unacked, added = append(unacked, un), append(added, 0)
		}
		keyOf = append(keyOf, k)
	}
	if s.onDecide != nil {
		s.onDecide(groups.Probes)
	}

	admitted := true
	for i := range updates {
		u := &updates[i]
		k := keyOf[i]
		st, d := u.Policy.Decide(work[k], now, u.Cost)
		if d.Allowed && u.Cost > 0 {
			if st.Time != work[k].Time {
				unacked[k], added[k] = 0, 0 // a new window: what was counted is over
			}
			if s.pastAllowance(unacked[k], added[k], u) {
				return overAllowance
			}
			added[k] += u.Cost
		}
		work[k] = st
		decisions[i] = d
		admitted = admitted && d.Allowed
	}
	if !admitted {
		// Nothing is consumed: describe the admitted ones as checks.
		for i := range updates {
			if decisions[i].Allowed {
				_, decisions[i] = updates[i].Policy.Decide(orig[keyOf[i]], now, 0)
			}
		}
		return decided
	}
	if newKeys := countNew(entries, added); newKeys > 0 && len(s.counters)+newKeys > s.maxCounters && !s.evict(now.UnixMicro(), newKeys) {
		return noRoom
	}
	for i := range updates {
		k := keyOf[i]
		if added[k] == 0 {
			continue
		}
		if entries[k] == nil {
			entries[k] = s.keep(updates[i].Key)
		}
		s.addHits(entries[k], work[k].Time, &updates[i].Policy, added[k])
		added[k] = 0
	}
	return decided
}

// snapshot returns e's state and its hits Redis has not acknowledged, or
// zeros for a counter not kept (nil).
func (e *entry) snapshot() (counter.State, uint64) {
	if e == nil {
		return counter.State{}, 0
	}
	return e.state(), e.pending + e.inflight
}

// pastAllowance reports whether admitting u would take a counter holding
// unacked hits Redis has not acknowledged, and added more from the batch
// being decided, past its allowance, so that a flush must come first;
// never while the store is down, nor for a counter holding no hit from
// before the batch: a flush cannot acknowledge the batch's own hits.
func (s *Store) pastAllowance(unacked, added uint64, u *counter.Update) bool {
	return !s.down && unacked > 0 && unacked+added+u.Cost > s.allowanceOf(u.Policy)
}

// keep adds a counter for key, holding nothing yet, and returns it.
func (s *Store) keep(key string) *entry {
	e := &entry{}
	s.counters[strings.Clone(key)] = e // keys may alias the caller's buffer
	return e
}

// countNew returns how many of a batch's counters are not kept yet and get
// hits.
func countNew(entries []*entry, added []uint64) int {
	n := 0
	for k := range entries {
		if entries[k] == nil && added[k] > 0 {
			n++
		}
	}
	return n
}

// addHits adds hits, counted in the window starting at start under p, to
// e's pending ones, and starts a flush early when enough counters have some.
func (s *Store) addHits(e *entry, start int64, p *counter.Policy, hits uint64) {
	if start != e.start {
		if e.pending > 0 {
			s.dirty--
		}
		e.start, e.base, e.pending, e.inflight = start, 0, 0, 0
	}
	e.window, e.firstHit = p.Window.Microseconds(), p.FirstHit
	if e.pending == 0 {
		s.dirty++
		if s.dirty >= s.batchSize {
			select {
			case s.kick <- struct{}{}:
			default:
			}
		}
	}
	e.pending += hits
}

// allowanceOf returns the most unacknowledged hits a counter under p may
// hold.
func (s *Store) allowanceOf(p counter.Policy) uint64 {
	if s.allowance > 0 {
		return s.allowance
	}
	return max(1, p.Max/DefaultAllowanceDivisor)
}

// evict makes room for n more counters, dropping first those whose window
// has ended (their hits decide nothing any more), then those holding no
// hit Redis has not acknowledged. It drops down to seven eighths of the
// bound, so that a full store does not scan on every new counter, and
// reports whether n more fit. s.mu must be held.
func (s *Store) evict(nowUs int64, n int) bool {
	target := min(s.maxCounters-n, s.maxCounters-s.maxCounters/8)
	for k, e := range s.counters {
		if len(s.counters) <= target {
			break
		}
		if e.start+e.window <= nowUs {
			s.drop(k, e)
		}
	}
	for k, e := range s.counters {
		if len(s.counters) <= target {
			break
		}
		if e.pending+e.inflight == 0 {
			s.drop(k, e)
		}
	}
	return len(s.counters)+n <= s.maxCounters
}

func (s *Store) drop(k string, e *entry) {
	if e.pending > 0 {
		s.dirty--
	}
	delete(s.counters, k)
}

// Stats describes a Store at one instant.
type Stats struct {
	// Counters is the number of counters kept in memory.
	Counters int
	// Pending is the number of hits admitted and not yet acknowledged by
	// Redis.
	Pending uint64
	// Flushes and FlushErrors count the flushes that reached Redis and
	// those that failed.
	Flushes, FlushErrors uint64
	// ExactBatches counts the batches sent to the exact store.
	ExactBatches uint64
	// Down reports whether the last flush failed.
	Down bool
}

// Stats returns the Store's counts.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Stats{Counters: len(s.counters), Down: s.down, Flushes: s.flushes.Load(), FlushErrors: s.flushErrors.Load(), ExactBatches: s.exactBatches.Load()}
	for _, e := range s.counters {
		st.Pending += e.pending + e.inflight
	}
	return st
}

// ceilMillis converts microseconds to milliseconds, rounding up.
func ceilMillis(us int64) int64 {
	return (us + 999) / 1000
}
