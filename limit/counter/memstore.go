package counter

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"time"
)

// DefaultMaxKeys is the memory store's default bound on stored counters.
const DefaultMaxKeys = 1_000_000

// DefaultSweepInterval is how often, at most, the memory store sweeps one
// shard's expired counters while writing to it.
const DefaultSweepInterval = time.Second

const memShards = 256

// minPerShard is the smallest shard capacity worth a shard of its own.
const minPerShard = 64

// MemoryOptions configures a MemoryStore. The zero value gives the defaults.
type MemoryOptions struct {
	// MaxKeys bounds the number of stored counters; 0 means DefaultMaxKeys.
	// The bound is split evenly over the shards (each holds at most
	// MaxKeys/shards) and is never exceeded.
	MaxKeys int
	// SweepInterval is how often, at most, a write sweeps its shard's
	// expired counters; 0 means DefaultSweepInterval.
	SweepInterval time.Duration
}

// MemoryStore is the in-process Store: counters in 256 shards (fewer when
// MaxKeys is below 16,384), each a mutex and an open-addressing hash table
// of 32-byte slots holding the states inline and the keys in a byte arena,
// with no pointers for the garbage collector to scan. A decision locks only
// the shards of its keys, in increasing order, so there is no global lock
// and batches spanning shards cannot deadlock.
//
// Counters expire when their state is back to fresh (Decision.ResetAfter),
// kept at the precision of whole seconds, rounded up. Expired counters are
// swept a shard at a time while writing to it, at most once per
// SweepInterval, or by Sweep. When a shard is full, a new counter first
// triggers a sweep (if one is due), then evicts the counter closest to expiry
// among 16 found from a random slot on. Evicting a live counter forgets its
// hits, so under more live keys than the bound the store errs towards
// admitting; it never refuses a new key, which would reject every new
// client, and never grows past the bound. A shard's arena holds at most 4 GiB
// of keys; a key that does not fit even in an emptied shard is decided as a
// fresh counter and not stored.
//
// Stored counters handle a stale now as Policy.Decide does, so the store
// answers exactly as Decide over the stored state would. A counter is never
// created at an instant earlier than its shard's last sweep: for an unknown
// key a stale now is taken as that instant (durations in decisions still
// count from the caller's now), so a counter that expired and was swept
// cannot be recreated in the past.
//
// A MemoryStore is safe for concurrent use; create it with NewMemoryStore.
type MemoryStore struct {
	seed   maphash.Seed
	shards []memShard
	mask   uint64
	lim    memLimits // per shard
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty memory store.
func NewMemoryStore(o MemoryOptions) *MemoryStore {
	maxKeys := o.MaxKeys
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	n := memShards
	for n > 1 && maxKeys/n < minPerShard {
		n /= 2 // small stores get fewer, larger shards
	}
	every := o.SweepInterval
	if every <= 0 {
		every = DefaultSweepInterval
	}
	m := &MemoryStore{
		seed:   maphash.MakeSeed(),
		shards: make([]memShard, n),
		mask:   uint64(n - 1),
		lim: memLimits{
			keys:       maxKeys / n,
			keyBytes:   math.MaxUint32,
			sweepEvery: max(every.Microseconds(), 1),
		},
	}
	for i := range m.shards {
		m.shards[i].rng = maphash.Comparable(m.seed, i) | 1
	}
	return m
}

// maxBatchOnStack is the batch size handled without allocating.
const maxBatchOnStack = 16

// Update implements Store. It fails only on invalid input: decisions shorter
// than updates, or an invalid policy.
func (m *MemoryStore) Update(_ context.Context, now time.Time, updates []Update, decisions []Decision) error {
	if len(decisions) < len(updates) {
		return fmt.Errorf("counter: %d decisions for %d updates", len(decisions), len(updates))
	}
	for i := range updates {
		if !validPolicy(updates[i].Policy) {
			return fmt.Errorf("counter: update %d (key %q): %s", i, updates[i].Key, strings.Join(updates[i].Policy.problems(), "; "))
		}
	}
	switch len(updates) {
	case 0:
		return nil
	case 1:
		decisions[0] = m.one(now, &updates[0])
		return nil
	}
	m.batch(now, updates, decisions)
	return nil
}

// UpdateOne applies a single update: Update without the slices.
func (m *MemoryStore) UpdateOne(now time.Time, u Update) (Decision, error) {
	if !validPolicy(u.Policy) {
		return Decision{}, fmt.Errorf("counter: update (key %q): %s", u.Key, strings.Join(u.Policy.problems(), "; "))
	}
	return m.one(now, &u), nil
}

func validPolicy(p Policy) bool {
	return int(p.Algorithm) < len(algorithmNames) && p.Max <= MaxPolicyValue &&
		p.Window >= time.Microsecond && p.Window <= MaxWindow && (!p.Weighted || p.Weight <= 100)
}

// hash returns the key's tag in its shard's table (never 0) and its shard:
// the high and the low half of one hash.
func (m *MemoryStore) hash(key string) (uint32, int) {
	h := maphash.String(m.seed, key)
	tag := uint32(h >> 32)
	if tag == 0 {
		tag = 1 // 0 marks an empty slot
	}
	return tag, int(h & m.mask)
}

// one decides a single update under one shard lock.
func (m *MemoryStore) one(now time.Time, u *Update) Decision {
	h, si := m.hash(u.Key)
	sh := &m.shards[si]
	nowUs := now.UnixMicro()
	var d Decision
	sh.mu.Lock()
	if sl := sh.find(h, u.Key); sl != nil {
		s := sl.state()
		u.Policy.step(&s, nowUs, u.Cost, &d)
		if d.Allowed && u.Cost > 0 { // only consumed hits change state
			sl.set(s, nowUs+d.ResetAfter.Microseconds())
		}
		sh.mu.Unlock()
		return d
	}
	t := sh.instant(nowUs, false)
	var s State
	u.Policy.step(&s, t, u.Cost, &d)
	if d.Allowed && u.Cost > 0 {
		sh.put(h, u.Key, s, t+d.ResetAfter.Microseconds(), t, &m.lim, nil)
	}
	sh.mu.Unlock()
	skewStore(&d, t, nowUs, u)
	return d
}

// instant returns the instant to decide at: the caller's, except that a new
// counter is never created before the shard last removed expired counters.
func (sh *memShard) instant(nowUs int64, found bool) int64 {
	if found {
		return nowUs
	}
	return max(nowUs, sh.swept)
}

// batch decides several updates atomically under all their shards' locks.
func (m *MemoryStore) batch(now time.Time, updates []Update, decisions []Decision) {
	n := len(updates)
	var (
		hashBuf  [maxBatchOnStack]uint32
		shardBuf [maxBatchOnStack]int
		lockBuf  [maxBatchOnStack]int
		atBuf    [maxBatchOnStack]int64
		origBuf  [maxBatchOnStack]State
		workBuf  [maxBatchOnStack]State
		slotBuf  [maxBatchOnStack]*memSlot
	)
	hashes, shardOf, locks, ats, orig, work, slots := hashBuf[:0], shardBuf[:0], lockBuf[:0], atBuf[:0], origBuf[:0], workBuf[:0], slotBuf[:0]
	if n > maxBatchOnStack {
		hashes, shardOf, locks, ats = make([]uint32, 0, n), make([]int, 0, n), make([]int, 0, n), make([]int64, 0, n)
		orig, work, slots = make([]State, 0, n), make([]State, 0, n), make([]*memSlot, 0, n)
	}
	for i := range updates {
		h, s := m.hash(updates[i].Key)
		hashes = append(hashes, h)
		shardOf = append(shardOf, s)
		locks = append(locks, s)
	}
	slices.Sort(locks)
	locks = slices.Compact(locks)
	for _, s := range locks {
		m.shards[s].mu.Lock()
	}

	nowUs := now.UnixMicro()
	allowed := true
	for i := range updates {
		u := &updates[i]
		sh := &m.shards[shardOf[i]]
		sl, cur := sh.get(hashes[i], u.Key)
		t := sh.instant(nowUs, sl != nil)
		slots = append(slots, sl)
		ats = append(ats, t)
		orig = append(orig, cur)
		for j := i - 1; j >= 0; j-- {
			if updates[j].Key == u.Key {
				cur = work[j]
				break
			}
		}
		u.Policy.step(&cur, t, u.Cost, &decisions[i])
		work = append(work, cur)
		allowed = allowed && decisions[i].Allowed
	}

	if allowed {
		// Stored counters first, in the slots found above: storing a new
		// counter may move slots.
		for i := range updates {
			if slots[i] != nil && lastOfKey(updates, i) && consumes(updates, updates[i].Key) {
				slots[i].set(work[i], ats[i]+decisions[i].ResetAfter.Microseconds())
			}
		}
		for i := range updates {
			if slots[i] == nil && lastOfKey(updates, i) && consumes(updates, updates[i].Key) {
				exp := ats[i] + decisions[i].ResetAfter.Microseconds()
				m.shards[shardOf[i]].put(hashes[i], updates[i].Key, work[i], exp, ats[i], &m.lim, updates)
			}
		}
	} else {
		// Nothing is consumed: describe the admitted ones as checks.
		for i := range updates {
			if decisions[i].Allowed {
				s := orig[i]
				updates[i].Policy.step(&s, ats[i], 0, &decisions[i])
			}
		}
	}

	for k := len(locks) - 1; k >= 0; k-- {
		m.shards[locks[k]].mu.Unlock()
	}
	for i := range updates {
		skewStore(&decisions[i], ats[i], nowUs, &updates[i])
	}
}

// lastOfKey reports whether updates[i] is the last update of its key.
func lastOfKey(updates []Update, i int) bool {
	for j := i + 1; j < len(updates); j++ {
		if updates[j].Key == updates[i].Key {
			return false
		}
	}
	return true
}

// consumes reports whether any update of key has a cost.
func consumes(updates []Update, key string) bool {
	for i := range updates {
		if updates[i].Key == key && updates[i].Cost > 0 {
			return true
		}
	}
	return false
}

// skewStore makes d's durations count from the caller's instant when the
// store decided at a later one.
func skewStore(d *Decision, t, nowUs int64, u *Update) {
	if t != nowUs {
		skew(d, t, nowUs, need(u.Cost) > clampMax(u.Policy.Max))
	}
}

// Sweep removes every counter that expired at or before now, one shard at a
// time. New counters are not created before now afterwards (see
// MemoryStore), so never sweep with an instant ahead of the decisions' clock.
func (m *MemoryStore) Sweep(now time.Time) {
	nowUs := now.UnixMicro()
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		sh.sweep(nowUs)
		sh.mu.Unlock()
	}
}

// Len returns the number of stored counters.
func (m *MemoryStore) Len() int {
	n := 0
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		n += sh.n
		sh.mu.Unlock()
	}
	return n
}

// MaxKeys returns the store's bound on stored counters: the configured
// MaxKeys rounded down to a multiple of the shard count.
func (m *MemoryStore) MaxKeys() int { return m.lim.keys * len(m.shards) }
