package limit

import (
	"strings"
	"sync"
)

// memShard is one lock's worth of the memory store: an open-addressing hash
// table with linear probing. A slot holds the key's hash, the key and the
// packed state, so a decision usually touches one cache line of the table and
// the key's bytes, and updates the state in place.
type memShard struct {
	mu        sync.Mutex
	slots     []memSlot // length a power of two, or 0
	n         int       // occupied slots
	swept     int64     // the latest instant expired keys were removed at, Unix µs
	nextSweep int64
	rng       uint64
	_         [16]byte // keep shards on separate cache lines
}

// memSlot is 48 bytes. hash 0 marks an empty slot (no key hashes to 0).
// Counts never exceed MaxPolicyValue, so they fit in 32 bits.
type memSlot struct {
	hash    uint64
	key     string
	time    int64
	count   uint32
	prev    uint32
	expires int64 // Unix µs from which the state is as good as fresh
}

func (sl *memSlot) state() State {
	return State{Time: sl.time, Count: uint64(sl.count), Prev: uint64(sl.prev)}
}

func (sl *memSlot) set(s State, expires int64) {
	sl.time, sl.count, sl.prev, sl.expires = s.Time, uint32(min(s.Count, MaxPolicyValue)), uint32(min(s.Prev, MaxPolicyValue)), expires
}

// home is the slot a hash probes first. The low bits pick the shard, so the
// table uses the high ones.
func (sh *memShard) home(h uint64) uint64 {
	return (h >> 32) & uint64(len(sh.slots)-1)
}

// find returns the slot of key, or nil.
func (sh *memShard) find(h uint64, key string) *memSlot {
	if len(sh.slots) == 0 {
		return nil
	}
	mask := uint64(len(sh.slots) - 1)
	for i := sh.home(h); ; i = (i + 1) & mask {
		sl := &sh.slots[i]
		if sl.hash == 0 {
			return nil
		}
		if sl.hash == h && sl.key == key {
			return sl
		}
	}
}

// get returns the slot of key (nil when absent) and its state.
func (sh *memShard) get(h uint64, key string) (*memSlot, State) {
	sl := sh.find(h, key)
	if sl == nil {
		return nil, State{}
	}
	return sl, sl.state()
}

// put stores s for key until expires, deciding at instant t. A new key
// first sweeps expired keys (at most once per sweep interval); in a full
// shard it then evicts the sampled key closest to expiry that is not in
// keep. put returns false when nothing could be evicted (every key is in
// keep), leaving the key unstored: the shard never exceeds capacity.
func (sh *memShard) put(h uint64, key string, s State, expires, t int64, capacity int, sweepEvery int64, keep []Update) bool {
	if sl := sh.find(h, key); sl != nil {
		sl.set(s, expires)
		return true
	}
	if t >= sh.nextSweep {
		sh.sweep(t)
		sh.nextSweep = t + sweepEvery
	}
	if sh.n >= capacity && !sh.evict(keep) {
		return false
	}
	if (sh.n+1)*4 > len(sh.slots)*3 {
		sh.grow()
	}
	sl := sh.insertSlot(h)
	sl.hash, sl.key = h, strings.Clone(key) // never alias a caller's buffer
	sl.set(s, expires)
	sh.n++
	return true
}

// insertSlot returns the empty slot where a new key of hash h goes.
func (sh *memShard) insertSlot(h uint64) *memSlot {
	mask := uint64(len(sh.slots) - 1)
	i := sh.home(h)
	for sh.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	return &sh.slots[i]
}

// grow doubles the table (16 slots at first) and re-inserts every key.
func (sh *memShard) grow() {
	old := sh.slots
	sh.slots = make([]memSlot, max(16, 2*len(old)))
	for i := range old {
		if old[i].hash != 0 {
			*sh.insertSlot(old[i].hash) = old[i]
		}
	}
}

// deleteAt empties slot i, shifting back the keys after it that would
// otherwise become unreachable (deletion without tombstones).
func (sh *memShard) deleteAt(i uint64) {
	mask := uint64(len(sh.slots) - 1)
	for j := (i + 1) & mask; sh.slots[j].hash != 0; j = (j + 1) & mask {
		k := sh.home(sh.slots[j].hash)
		// The key at j stays when its home lies cyclically in (i, j].
		if i <= j && i < k && k <= j || i > j && (i < k || k <= j) {
			continue
		}
		sh.slots[i] = sh.slots[j]
		i = j
	}
	sh.slots[i] = memSlot{}
	sh.n--
}

// sweep removes every key that expired at or before now, and remembers now
// so that no key is created again before it (see MemoryStore).
func (sh *memShard) sweep(now int64) {
	for i := 0; i < len(sh.slots); {
		if sl := &sh.slots[i]; sl.hash != 0 && sl.expires <= now {
			sh.deleteAt(uint64(i))
			continue // slot i may now hold a shifted key
		}
		i++
	}
	sh.swept = max(sh.swept, now)
}

const evictionSamples = 16

// evict removes, among up to 16 keys found from a random slot on, the one
// closest to expiry, skipping keys in keep. It returns false when it found
// nothing to remove.
func (sh *memShard) evict(keep []Update) bool {
	if sh.n == 0 {
		return false
	}
	mask := uint64(len(sh.slots) - 1)
	start := sh.random() & mask
	victim, found, seen := uint64(0), false, 0
	for step := uint64(0); step <= mask && seen < evictionSamples; step++ {
		i := (start + step) & mask
		sl := &sh.slots[i]
		if sl.hash == 0 || inBatch(sl.key, keep) {
			continue
		}
		seen++
		if !found || sl.expires < sh.slots[victim].expires {
			victim, found = i, true
		}
	}
	if found {
		sh.deleteAt(victim)
	}
	return found
}

func inBatch(key string, batch []Update) bool {
	for i := range batch {
		if batch[i].Key == key {
			return true
		}
	}
	return false
}

// random is xorshift64*.
func (sh *memShard) random() uint64 {
	sh.rng ^= sh.rng >> 12
	sh.rng ^= sh.rng << 25
	sh.rng ^= sh.rng >> 27
	return sh.rng * 2685821657736338717
}
