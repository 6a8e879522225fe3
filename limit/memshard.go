package limit

import (
	"strings"
	"sync"
)

// memShard is one lock's worth of the memory store. States live in the map
// itself, so a decision costs one lookup and one write to the same, now
// cached, map group.
type memShard struct {
	mu        sync.Mutex
	m         map[string]memEntry
	swept     int64 // the latest instant expired keys were removed at, Unix µs
	nextSweep int64
	_         [32]byte // keep shards on separate cache lines
}

type memEntry struct {
	state   State
	expires int64 // Unix µs from which state is as good as fresh
}

// get returns the state stored for key, or the zero State.
func (sh *memShard) get(key string) (State, bool) {
	e, ok := sh.m[key]
	return e.state, ok
}

// put stores s for key until expires, deciding at instant t. A new key
// first sweeps expired keys (at most once per sweep interval); in a full
// shard it then evicts the sampled key closest to expiry that is not in
// keep. put returns false when nothing could be evicted (every key is in
// keep), leaving the key unstored: the shard never exceeds capacity.
func (sh *memShard) put(key string, s State, expires, t int64, capacity int, sweepEvery int64, keep []Update) bool {
	if _, ok := sh.m[key]; ok {
		sh.m[key] = memEntry{s, expires}
		return true
	}
	if t >= sh.nextSweep {
		sh.sweep(t)
		sh.nextSweep = t + sweepEvery
	}
	if len(sh.m) >= capacity && !sh.evict(keep) {
		return false
	}
	sh.m[strings.Clone(key)] = memEntry{s, expires} // never alias a caller's buffer
	return true
}

// sweep removes every key that expired at or before now, and remembers now
// so that no key is created again before it (see MemoryStore).
func (sh *memShard) sweep(now int64) {
	for k, e := range sh.m {
		if e.expires <= now {
			delete(sh.m, k)
		}
	}
	sh.swept = max(sh.swept, now)
}

const evictionSamples = 16

// evict removes, among the first keys of a map iteration (which starts at a
// random place), the one closest to expiry, skipping keys in keep. It
// returns false when it found nothing to remove.
func (sh *memShard) evict(keep []Update) bool {
	var victim string
	var soonest int64
	found, seen := false, 0
	for k, e := range sh.m {
		if inBatch(k, keep) {
			continue
		}
		if !found || e.expires < soonest {
			victim, soonest, found = k, e.expires, true
		}
		if seen++; seen == evictionSamples {
			break
		}
	}
	if found {
		delete(sh.m, victim)
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
