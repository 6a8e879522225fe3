// Package overlimitcache is a counter.Store wrapper that remembers, in
// process and within a byte budget, the fixed-window counters known to be
// full, and answers requests that only touch such counters without asking
// the wrapped store (typically Redis) until their windows end. It is what
// envoyproxy/ratelimit's LOCAL_CACHE_SIZE_IN_BYTES does, for any Store.
//
// It is not a counter store of its own: it never admits a hit, only
// rejects ones the wrapped store would reject.
//
// # Exactness
//
// A counter is remembered only when a decision of the wrapped store showed
// it full (no hit left) under a fixed window, the one algorithm where a
// full counter stays full until a known instant (the window's end) whatever
// happens meanwhile. The remembered entry is tied to the policy (maximum,
// window), so a raised limit is not answered from an old entry; a decision
// under a higher maximum on the same window (limit/envoyratelimit counts a
// rejected hit that way) does not drop it, as the window's count never
// goes down; and once such a decision counted hits on a counter
// remembered full (it is then over its maximum), further hits of maximum
// counter.MaxPolicyValue on it are answered allowed without the wrapped
// store and not counted, until its window ends, as envoyproxy/ratelimit's
// cache increments nothing for a key it holds over. A request
// is answered locally only when every counter it touches is remembered
// full and it hits each (a check, cost 0, on a full counter is allowed, so
// the wrapped store decides it): a request that also touches other counters goes to the wrapped
// store, which then decides it all or nothing as usual. So the answers are
// the wrapped store's, except that durations are computed from the
// remembered window end. A remembered key is a copy, so a caller may reuse
// its keys' memory once Update returns, as counter.Store allows.
//
// # Where it differs from envoyproxy/ratelimit
//
// The reference sizes a freecache by bytes; here the budget counts each
// entry as its key's length plus a fixed overhead (EntryOverhead), and
// when it is full, expired entries go first, then arbitrary ones, down to
// seven eighths of the budget: the cache is scanned once for every eighth
// of its budget that new entries take, so the work of remembering a
// counter is constant however large the budget, and a request's work is
// linear in its counters.
package overlimitcache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/internal/budget"
)

// EntryOverhead is what an entry costs beyond its key's bytes, in the
// byte budget.
const EntryOverhead = 64

// Cache is a counter.Store that answers from memory for counters known to
// be full. It is safe for concurrent use; create it with New.
type Cache struct {
	inner counter.Store

	mu sync.Mutex
	m  budget.Map[entry]

	hits atomic.Uint64
}

type entry struct {
	max     uint64
	window  time.Duration
	untilUs int64 // Unix microseconds at which the window ends
	over    bool  // rejected hits were counted on it: it holds more than max
}

// ExpiredAt reports whether the entry's window has ended at nowUs.
func (e entry) ExpiredAt(nowUs int64) bool { return e.untilUs <= nowUs }

var _ counter.Store = (*Cache)(nil)

// New returns a Cache in front of inner holding at most budgetBytes of
// entries (see EntryOverhead); it must be positive.
func New(inner counter.Store, budgetBytes int) *Cache {
	return &Cache{inner: inner, m: budget.New[entry](max(budgetBytes, 1), EntryOverhead)}
}

// Hits returns how many updates were answered from the cache.
func (c *Cache) Hits() uint64 { return c.hits.Load() }

// Len returns the number of remembered counters.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m.Entries)
}

// Update implements counter.Store.
func (c *Cache) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if len(updates) > 0 && (c.answer(now, updates, decisions) || c.dropOver(now, updates, decisions)) {
		c.hits.Add(uint64(len(updates)))
		return nil
	}
	if err := c.inner.Update(ctx, now, updates, decisions); err != nil {
		return err
	}
	c.learn(now, updates, decisions)
	return nil
}

// answer fills decisions when every update's counter is remembered full at
// now, and reports whether it did.
func (c *Cache) answer(now time.Time, updates []counter.Update, decisions []counter.Decision) bool {
	if len(decisions) < len(updates) {
		return false // let the wrapped store report the misuse
	}
	nowUs := now.UnixMicro()
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range updates {
		u := &updates[i]
		if u.Cost == 0 {
			// A check on a full counter is allowed (only going over
			// is over), and one on a counter over a lowered max is
			// not: the store knows which.
			return false
		}
		e, ok := c.m.Entries[u.Key]
		if !ok || !fits(e, u.Policy) {
			return false
		}
		if nowUs >= e.untilUs {
			c.m.Remove(u.Key) // the window has ended: the store decides again
			return false
		}
		if nowUs < e.untilUs-e.window.Microseconds() {
			return false // a stale instant before the window: the store knows
		}
	}
	for i := range updates {
		e := c.m.Entries[updates[i].Key]
		left := time.Duration(e.untilUs-nowUs) * time.Microsecond
		decisions[i] = counter.Decision{Used: float64(e.max + updates[i].Cost), ResetAfter: left, RetryAfter: left}
		if updates[i].Cost > e.max {
			decisions[i].RetryAfter = e.window // never fits, as counter.Policy says
		}
	}
	return true
}

func fits(e entry, p counter.Policy) bool {
	return p.Algorithm == counter.AlgorithmFixedWindow && p.Max == e.max && p.Window == e.window
}

// learn remembers the fixed-window counters the decisions show full.
func (c *Cache) learn(now time.Time, updates []counter.Update, decisions []counter.Decision) {
	nowUs := now.UnixMicro()
	for i := range updates {
		u, d := &updates[i], &decisions[i]
		if u.Policy.Algorithm != counter.AlgorithmFixedWindow {
			continue
		}
		if d.Remaining != 0 || d.ResetAfter <= 0 {
			// Not full (any more): a stale entry must not answer.
			// Unless this was a higher capacity on the same window
			// (limit/envoyratelimit counting rejected hits that way):
			// the window's count is still at least the entry's.
			c.notFull(u, d)
			continue
		}
		if !atMax(u, d) {
			// Past its maximum: an entry known over (it counted rejected
			// hits) still describes it; any other is left to the wrapped
			// store, which Adjust may have charged past the maximum.
			c.pastMax(u)
			continue
		}
		c.put(u.Key, entry{max: u.Policy.Max, window: u.Policy.Window, untilUs: nowUs + d.ResetAfter.Microseconds()}, nowUs)
	}
}

func (c *Cache) put(key string, e entry, nowUs int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m.Entries[key]; ok {
		e.over = e.over || old.over && old.max == e.max && old.window == e.window
	}
	c.m.Put(key, e, nowUs)
}
