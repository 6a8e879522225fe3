package limit

import (
	"strings"
	"sync"
)

// memShard is one lock's worth of the memory store: an index from key to a
// slot in a slab, so the hot path is one map lookup and an in-place write.
type memShard struct {
	mu        sync.Mutex
	index     map[string]uint32
	slots     []memSlot
	free      []uint32
	latest    int64 // the latest instant decided at, Unix µs
	nextSweep int64
	rng       uint64
	_         [40]byte // keep shards on separate cache lines
}

type memSlot struct {
	key     string
	state   State
	expires int64 // Unix µs after which state is as good as fresh
	live    bool
}

// get returns the state stored for key, or the zero State, and its slot.
func (sh *memShard) get(key string) (State, uint32, bool) {
	i, ok := sh.index[key]
	if !ok {
		return State{}, 0, false
	}
	return sh.slots[i].state, i, true
}

// put stores s for key until expires. A state that is already fresh
// (expires <= now) is dropped instead. When the shard is full it first
// sweeps expired keys (at most once per sweep interval), then evicts the
// sampled key closest to expiry that is not in keep. It returns false when
// nothing could be evicted (every candidate is in keep), leaving the key
// unstored: the shard never exceeds capacity.
func (sh *memShard) put(key string, s State, expires, now int64, capacity int, sweepEvery int64, keep []Update) bool {
	if i, ok := sh.index[key]; ok {
		if expires <= now {
			sh.remove(i)
			return true
		}
		sh.slots[i].state = s
		sh.slots[i].expires = expires
		return true
	}
	if expires <= now {
		return true
	}
	if now >= sh.nextSweep {
		sh.sweep(now)
		sh.nextSweep = now + sweepEvery
	}
	if len(sh.index) >= capacity && !sh.evict(keep) {
		return false
	}
	key = strings.Clone(key) // never alias a caller's buffer
	var i uint32
	if n := len(sh.free); n > 0 {
		i = sh.free[n-1]
		sh.free = sh.free[:n-1]
	} else {
		i = uint32(len(sh.slots))
		sh.slots = append(sh.slots, memSlot{})
	}
	sh.slots[i] = memSlot{key: key, state: s, expires: expires, live: true}
	sh.index[key] = i
	return true
}

func (sh *memShard) remove(i uint32) {
	delete(sh.index, sh.slots[i].key)
	sh.slots[i] = memSlot{}
	sh.free = append(sh.free, i)
}

// sweep removes every key that expired at or before now.
func (sh *memShard) sweep(now int64) {
	for i := range sh.slots {
		if sl := &sh.slots[i]; sl.live && sl.expires <= now {
			sh.remove(uint32(i))
		}
	}
}

const evictionSamples = 16

// evict removes the live key closest to expiry among a random sample,
// skipping keys in keep. It returns false when it found nothing to remove.
func (sh *memShard) evict(keep []Update) bool {
	best, found := uint32(0), false
	n := uint64(len(sh.slots))
	for range evictionSamples {
		i := uint32(sh.random() % n)
		sl := &sh.slots[i]
		if !sl.live || inBatch(sl.key, keep) {
			continue
		}
		if !found || sl.expires < sh.slots[best].expires {
			best, found = i, true
		}
	}
	if !found {
		// Unlucky sample: take the first candidate.
		for i := range sh.slots {
			if sl := &sh.slots[i]; sl.live && !inBatch(sl.key, keep) {
				best, found = uint32(i), true
				break
			}
		}
	}
	if found {
		sh.remove(best)
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
