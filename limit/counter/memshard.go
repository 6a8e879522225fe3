package counter

import (
	"math"
	"sync"
)

// memShard is one lock's worth of the memory store: an open-addressing hash
// table with linear probing whose 32-byte slots hold the key's identity (see
// keyID) and the counter's state. Slots hold no pointers, so the garbage
// collector never scans them, and the slots of 100,000 counters take about
// 4 MB: a decision touches one slot, a single cache line, and updates the
// state in place.
type memShard struct {
	mu        sync.Mutex
	slots     []memSlot // length a power of two, or 0
	n         int       // occupied slots
	swept     int64     // the latest instant expired keys were removed at, Unix µs
	nextSweep int64
	rng       uint64
	// batchOnly is set, while a batch holds the lock, once eviction found
	// every stored key in the batch: until the batch ends, no key can be
	// evicted, and eviction says so without scanning again.
	batchOnly bool
	sweepAt   uint32   // the slot the pass of sweepStep under way goes on from
	_         [56]byte // 128 bytes: shards never share a cache line
}

// keyID is what tells keys apart in a shard: two independent 64-bit hashes
// of the key, with seeds of the store's own (see MemoryStore.id). The shard
// is chosen by the first hash's low bits, and a slot keeps its high half
// (the tag, never 0) and the whole second hash (the check): 96 bits besides
// the shard's.
type keyID struct {
	tag   uint32
	check uint64
}

// memSlot is 32 bytes, two to a cache line.
type memSlot struct {
	tag     uint32 // keyID.tag; 0 marks an empty slot
	expires uint32 // Unix seconds, rounded up, from which the state is as good as fresh
	check   uint64 // keyID.check
	time    int64
	count   uint32 // counts never exceed MaxPolicyValue, so they fit in 32 bits
	prev    uint32
}

// id returns the identity of the key sl holds.
func (sl *memSlot) id() keyID { return keyID{sl.tag, sl.check} }

// memLimits are a shard's bounds, the same for every shard of a store.
type memLimits struct {
	keys       int   // stored keys
	sweepEvery int64 // µs between sweeps on write
	// sweepBudget bounds the work of one sweep step on write (see
	// sweepStep); 0 means the default, sweepBudget.
	sweepBudget int
}

func (sl *memSlot) state() State {
	return State{Time: sl.time, Count: uint64(sl.count), Prev: uint64(sl.prev)}
}

// set stores s, fresh again from the instant expires (Unix µs).
func (sl *memSlot) set(s State, expires int64) {
	sl.time, sl.count, sl.prev = s.Time, uint32(min(s.Count, MaxPolicyValue)), uint32(min(s.Prev, MaxPolicyValue))
	sl.expires = expirySeconds(expires)
}

// expirySeconds rounds an instant in Unix µs up to whole seconds, clamped to
// what a slot holds. Keeping a counter up to a second past its expiry
// changes no answer: by then its state is as good as fresh.
func expirySeconds(us int64) uint32 {
	if us <= 0 {
		return 0
	}
	s := (us + 999_999) / 1_000_000
	if s > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(s)
}

// home is the slot a tag probes first.
func (sh *memShard) home(tag uint32) uint32 {
	return tag & uint32(len(sh.slots)-1)
}

// find returns the slot of the key of identity id, or nil.
func (sh *memShard) find(id keyID) *memSlot {
	if len(sh.slots) == 0 {
		return nil
	}
	mask := uint32(len(sh.slots) - 1)
	for i := sh.home(id.tag); ; i = (i + 1) & mask {
		sl := &sh.slots[i]
		if sl.tag == 0 {
			return nil
		}
		if sl.tag == id.tag && sl.check == id.check {
			return sl
		}
	}
}

// get returns the slot of the key of identity id (nil when absent) and its
// state.
func (sh *memShard) get(id keyID) (*memSlot, State) {
	sl := sh.find(id)
	if sl == nil {
		return nil, State{}
	}
	return sl, sl.state()
}

// put stores s for the key of identity id until expires (Unix µs),
// deciding at instant t. A new key first takes a step of the pass sweeping
// expired keys (a pass starts at most once per sweep interval, and goes on
// with every new key until it has been over the whole table); in a full
// shard it then evicts the sampled key closest to expiry that is not in
// keep. put returns false when nothing could be evicted (every key is in
// keep), leaving the key unstored: the shard never exceeds its bound.
func (sh *memShard) put(id keyID, s State, expires, t int64, lim *memLimits, keep *batchKeys) bool {
	if sl := sh.find(id); sl != nil {
		sl.set(s, expires)
		return true
	}
	if t >= sh.nextSweep && sh.sweepStep(t, lim.sweepBudget) {
		sh.nextSweep = t + lim.sweepEvery
	}
	if sh.n >= lim.keys && !sh.evict(keep) {
		return false
	}
	if (sh.n+1)*8 > len(sh.slots)*7 {
		sh.grow()
	}
	sl := sh.insertSlot(id.tag)
	sl.tag, sl.check = id.tag, id.check
	sl.set(s, expires)
	sh.n++
	return true
}

// insertSlot returns the empty slot where a new key of tag goes.
func (sh *memShard) insertSlot(tag uint32) *memSlot {
	mask := uint32(len(sh.slots) - 1)
	i := sh.home(tag)
	for sh.slots[i].tag != 0 {
		i = (i + 1) & mask
	}
	return &sh.slots[i]
}

// grow doubles the table (16 slots at first) and re-inserts every key; a
// pass of sweepStep under way starts again at the first slot.
func (sh *memShard) grow() {
	old := sh.slots
	sh.slots = make([]memSlot, max(16, 2*len(old)))
	sh.sweepAt = 0
	for i := range old {
		if old[i].tag != 0 {
			*sh.insertSlot(old[i].tag) = old[i]
		}
	}
}

// deleteAt empties slot i, shifting back the keys after it that would
// otherwise become unreachable (deletion without tombstones). It returns
// the number of slots it looked at after i.
func (sh *memShard) deleteAt(i uint32) int {
	mask := uint32(len(sh.slots) - 1)
	seen := 0
	for j := (i + 1) & mask; sh.slots[j].tag != 0; j = (j + 1) & mask {
		seen++
		k := sh.home(sh.slots[j].tag)
		// The key at j stays when its home lies cyclically in (i, j].
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		sh.slots[i] = sh.slots[j]
		i = j
	}
	sh.slots[i] = memSlot{}
	sh.n--
	return seen + 1
}

// sweep removes every key that expired at or before now (Unix µs), in one
// pass over the whole table, and remembers now so that no key is created
// again before it (see MemoryStore).
func (sh *memShard) sweep(now int64) {
	sh.sweepAt = 0
	sh.sweepStep(now, math.MaxInt)
}

// sweepStep goes on with the pass over the table from sweepAt, removing the
// keys that expired at or before now (Unix µs), and stops once it has
// looked at budget slots (the slots that deletions shift back included;
// 0: sweepBudget) or reached the end of the table. It remembers now so that
// no key is created again before it (see MemoryStore), and reports whether
// the pass reached the end; the next pass then starts at the first slot. A
// step's work is bounded whatever the table's size, so that removing
// millions of expired counters never holds a shard's lock for long; keys
// that other writes shift back past sweepAt between steps wait for the
// next pass.
func (sh *memShard) sweepStep(now int64, budget int) bool {
	if budget <= 0 {
		budget = sweepBudget
	}
	sec := floorDiv(now, 1_000_000)
	i, work := int(sh.sweepAt), 0
	for i < len(sh.slots) && work < budget {
		work++
		if sl := &sh.slots[i]; sl.tag != 0 && int64(sl.expires) <= sec {
			work += sh.deleteAt(uint32(i))
			continue // slot i may now hold a shifted key
		}
		i++
	}
	sh.swept = max(sh.swept, now)
	if i >= len(sh.slots) {
		sh.sweepAt = 0
		return true
	}
	sh.sweepAt = uint32(i)
	return false
}

const evictionSamples = 16

// evict removes, among up to 16 keys found from a random slot on, the one
// closest to expiry, skipping keys in keep (nil keeps none). It returns
// false when it found nothing to remove, and then, with a keep, remembers
// that the shard holds only keep's keys (batchOnly) so that the batch's
// further evictions return at once: a batch only adds its own keys.
func (sh *memShard) evict(keep *batchKeys) bool {
	if sh.n == 0 || keep != nil && sh.batchOnly {
		return false
	}
	mask := uint32(len(sh.slots) - 1)
	start := uint32(sh.random()) & mask
	victim, found, seen := uint32(0), false, 0
	for step := uint32(0); step <= mask && seen < evictionSamples; step++ {
		i := (start + step) & mask
		sl := &sh.slots[i]
		if sl.tag == 0 || keep.holds(sl.id()) {
			continue
		}
		seen++
		if !found || sl.expires < sh.slots[victim].expires {
			victim, found = i, true
		}
	}
	if found {
		sh.deleteAt(victim)
	} else if keep != nil {
		sh.batchOnly = true
	}
	return found
}

// random is xorshift64*.
func (sh *memShard) random() uint64 {
	sh.rng ^= sh.rng >> 12
	sh.rng ^= sh.rng << 25
	sh.rng ^= sh.rng >> 27
	return sh.rng * 2685821657736338717
}
