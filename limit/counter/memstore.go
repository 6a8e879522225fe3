package counter

import (
	"context"
	"fmt"
	"hash/maphash"
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

// sweepBudget bounds the slots one write's sweep step looks at (see
// memShard.sweepStep): 4,096 slots are 128 KiB, tens of microseconds.
const sweepBudget = 4096

// minPerShard is the smallest shard capacity worth a shard of its own, and
// maxPerShard the largest before the store takes more shards (up to
// maxShards): whatever touches a whole shard (growing its table) then stays
// a matter of microseconds at millions of counters.
const (
	minPerShard = 64
	maxPerShard = 4096
	maxShards   = 1 << 16
)

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
// MaxKeys is below 16,384; more, of at most 4,096 counters each, when it is
// above 1,048,576), each a mutex and an open-addressing hash table
// of 32-byte slots holding the states inline, with no pointers for the
// garbage collector to scan. A decision locks only the shards of its keys,
// in increasing order, so there is no global lock and batches spanning
// shards cannot deadlock.
//
// The store keeps no key, only its identity: two independent 64-bit hashes
// of it (hash/maphash, with two seeds drawn for the store), the first one's
// low bits choosing the shard, its high half and the whole second one, 96
// bits, kept in the slot. So a decision reads a single cache line of the
// table, and a counter takes 32 bytes of slot and nothing else (about 55 to
// 70 bytes per live counter with the table's free slots). Two keys share a
// counter only when both hashes agree: for a new key, a chance of at most
// 2^-84 (about 5e-26) of meeting any of the at most 4,096 counters of its
// shard (MaxKeys up to 2^28), for keys chosen by anyone, since the seeds
// never leave the process. Keeping no key bytes spares a decision over
// millions of counters a second cache and TLB miss (the key's bytes would sit
// at an address only the slot gives) and halves the memory per counter.
//
// A batch's work under those locks is linear in its size, however large and
// whatever keys it repeats: its updates are grouped by key once (comparing
// keys with each other up to 16 updates, without allocating; with a map
// above), then each key is looked up, decided and stored once, and eviction
// tells the batch's own keys (never evicted) from others with one look-up.
//
// Counters expire when their state is back to fresh under every policy
// that can read it, whatever its Max (see Policy.freshFrom), kept at the
// precision of whole seconds, rounded up. Expired counters are
// swept a shard at a time while writing new counters to it, a pass over the
// shard starting at most once per SweepInterval, or by Sweep; a pass goes a
// bounded step (4,096 slots) per write, so that no write holds a shard's
// lock for the sweep of a whole shard. When a shard is full, a new counter
// first triggers a sweep (if one is due), then evicts the counter closest to
// expiry among 16 found from a random slot on. Evicting a live counter
// forgets its hits, so under more live keys than the bound the store errs
// towards admitting; it never refuses a new key, which would reject every
// new client, and never grows past the bound.
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
	seed   maphash.Seed // the first hash's: shard and tag
	check  maphash.Seed // the second hash's
	shards []memShard
	mask   uint64
	lim    memLimits // per shard
	// onBatch, when set (by tests), is called after each batch with the
	// number of key comparisons and map look-ups it took.
	onBatch func(probes int)
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
	for n < maxShards && maxKeys/n > maxPerShard {
		n *= 2 // large ones more, of at most 4,096 counters
	}
	every := o.SweepInterval
	if every <= 0 {
		every = DefaultSweepInterval
	}
	m := &MemoryStore{
		seed:   maphash.MakeSeed(),
		check:  maphash.MakeSeed(),
		shards: make([]memShard, n),
		mask:   uint64(n - 1),
		lim: memLimits{
			keys:       maxKeys / n,
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

// id returns the key's identity in its shard (see keyID) and its shard:
// the first hash's high half is the tag (never 0), its low bits the shard;
// the second hash, of a seed of its own, is the check.
func (m *MemoryStore) id(key string) (keyID, int) {
	h := maphash.String(m.seed, key)
	tag := uint32(h >> 32)
	if tag == 0 {
		tag = 1 // 0 marks an empty slot
	}
	return keyID{tag: tag, check: maphash.String(m.check, key)}, int(h & m.mask)
}

// one decides a single update under one shard lock.
func (m *MemoryStore) one(now time.Time, u *Update) Decision {
	id, si := m.id(u.Key)
	sh := &m.shards[si]
	nowUs := now.UnixMicro()
	var d Decision
	sh.mu.Lock()
	if sl := sh.find(id); sl != nil {
		s := sl.state()
		u.Policy.step(&s, nowUs, u.Cost, &d)
		if d.Allowed && u.Cost > 0 { // only consumed hits change state
			sl.set(s, u.Policy.freshFrom(s))
		}
		sh.mu.Unlock()
		return d
	}
	t := sh.instant(nowUs, false)
	var s State
	u.Policy.step(&s, t, u.Cost, &d)
	if d.Allowed && u.Cost > 0 {
		sh.put(id, s, u.Policy.freshFrom(s), t, &m.lim, nil)
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

// batchKey is one distinct key of a batch: where its shard keeps it, the
// counter before the batch and as the batch is applied.
type batchKey struct {
	slot       *memSlot // nil when the shard does not hold the key
	orig, work State
	at         int64 // the instant to decide at (see instant)
	id         keyID
	shard      int
	last       int  // the index of the key's last update
	consumes   bool // some update of the key has a cost
}

// batch decides several updates atomically under all their shards' locks.
// Its work is linear in the batch size: updates are grouped by key once
// (see batchKeys), then each key is looked up, decided and stored once.
func (m *MemoryStore) batch(now time.Time, updates []Update, decisions []Decision) {
	n := len(updates)
	var (
		keyBuf  [maxBatchOnStack]batchKey
		nameBuf [maxBatchOnStack]string
		idBuf   [maxBatchOnStack]keyID
		ofBuf   [maxBatchOnStack]int
		lockBuf [maxBatchOnStack]int
	)
	keys, names, ids, keyOf, locks := keyBuf[:0], nameBuf[:0], idBuf[:0], ofBuf[:0], lockBuf[:0]
	if n > maxBatchOnStack {
		keys, names, ids = make([]batchKey, 0, n), make([]string, 0, n), make([]keyID, 0, n)
		keyOf, locks = make([]int, 0, n), make([]int, 0, n)
	}
	set := newBatchKeys(n, names, ids)
	for i := range updates {
		u := &updates[i]
		k := set.Find(u.Key)
		if k < 0 {
			id, s := m.id(u.Key)
			set, k = set.add(u.Key, id)
			keys = append(keys, batchKey{id: id, shard: s})
			locks = append(locks, s)
		}
		keys[k].last = i
		keys[k].consumes = keys[k].consumes || u.Cost > 0
		keyOf = append(keyOf, k)
	}
	slices.Sort(locks)
	locks = slices.Compact(locks)
	for _, s := range locks {
		m.shards[s].mu.Lock()
	}

	nowUs := now.UnixMicro()
	for k := range keys {
		c := &keys[k]
		sh := &m.shards[c.shard]
		c.slot, c.orig = sh.get(c.id)
		c.at = sh.instant(nowUs, c.slot != nil)
		c.work = c.orig
	}
	allowed := true
	for i := range updates {
		u, c := &updates[i], &keys[keyOf[i]]
		u.Policy.step(&c.work, c.at, u.Cost, &decisions[i])
		allowed = allowed && decisions[i].Allowed
	}
	if allowed {
		m.store(updates, keys, keyOf, &set)
	} else {
		checks(updates, decisions, keys, keyOf)
	}
	for k := len(locks) - 1; k >= 0; k-- {
		sh := &m.shards[locks[k]]
		sh.batchOnly = false
		sh.mu.Unlock()
	}
	for i := range updates {
		skewStore(&decisions[i], keys[keyOf[i]].at, nowUs, &updates[i])
	}
	if m.onBatch != nil {
		m.onBatch(set.Probes)
	}
}

// store writes an admitted batch's counters, each once, at its key's last
// update, in the order of those updates: stored counters first, in the
// slots batch found (storing a new counter may move slots), then new ones,
// which eviction makes room for without evicting any key of the batch.
func (m *MemoryStore) store(updates []Update, keys []batchKey, keyOf []int, set *batchKeys) {
	for i := range updates {
		if c := &keys[keyOf[i]]; c.last == i && c.consumes && c.slot != nil {
			c.slot.set(c.work, updates[i].Policy.freshFrom(c.work))
		}
	}
	for i := range updates {
		if c := &keys[keyOf[i]]; c.last == i && c.consumes && c.slot == nil {
			m.shards[c.shard].put(c.id, c.work, updates[i].Policy.freshFrom(c.work), c.at, &m.lim, set)
		}
	}
}

// checks describes a rejected batch's admitted updates as checks: nothing
// is consumed.
func checks(updates []Update, decisions []Decision, keys []batchKey, keyOf []int) {
	for i := range updates {
		if decisions[i].Allowed {
			c := &keys[keyOf[i]]
			s := c.orig
			updates[i].Policy.step(&s, c.at, 0, &decisions[i])
		}
	}
}

// skewStore makes d's durations count from the caller's instant when the
// store decided at a later one.
func skewStore(d *Decision, t, nowUs int64, u *Update) {
	if t != nowUs {
		skew(d, t, nowUs, u.Cost > clampMax(u.Policy.Max))
	}
}

// Sweep removes every counter that expired at or before now, one shard at a
// time, a bounded step at a time: it releases the shard's lock between
// steps, so that decisions never wait for a whole shard's sweep, and a
// counter that a concurrent write moves back past the step under way is
// left to the next sweep. New counters are not created before now
// afterwards (see MemoryStore), so never sweep with an instant ahead of the
// decisions' clock.
func (m *MemoryStore) Sweep(now time.Time) {
	nowUs := now.UnixMicro()
	for i := range m.shards {
		sh := &m.shards[i]
		sh.mu.Lock()
		sh.sweepAt = 0
		for !sh.sweepStep(nowUs, m.lim.sweepBudget) {
			sh.mu.Unlock()
			sh.mu.Lock()
		}
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
