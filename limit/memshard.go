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
	m         map[string]*memEntry
	swept     int64 // the latest instant expired keys were removed at, Unix µs
	nextSweep int64
	free      []*memEntry // entries of deleted keys, for reuse
	chunk     []memEntry  // entries not handed out yet
}

const memChunk = 128

// alloc returns an unused entry; entries come in chunks so that a million
// counters are a few thousand objects.
func (sh *memShard) alloc() *memEntry {
	if n := len(sh.free); n > 0 {
		e := sh.free[n-1]
		sh.free = sh.free[:n-1]
		return e
	}
	if len(sh.chunk) == 0 {
		sh.chunk = make([]memEntry, memChunk)
	}
	e := &sh.chunk[0]
	sh.chunk = sh.chunk[1:]
	return e
}

func (sh *memShard) remove(key string, e *memEntry) {
	delete(sh.m, key)
	*e = memEntry{}
	sh.free = append(sh.free, e)
}

// memEntry is a State packed into 24 bytes (counts never exceed
// MaxPolicyValue) with its expiry.
type memEntry struct {
	time    int64
	count   uint32
	prev    uint32
	expires int64 // Unix µs from which the state is as good as fresh
}

func entry(s State, expires int64) memEntry {
	return memEntry{time: s.Time, count: uint32(min(s.Count, MaxPolicyValue)), prev: uint32(min(s.Prev, MaxPolicyValue)), expires: expires}
}

// get returns the entry stored for key, or nil, and its state.
func (sh *memShard) get(key string) (*memEntry, State) {
	e := sh.m[key]
	if e == nil {
		return nil, State{}
	}
	return e, State{Time: e.time, Count: uint64(e.count), Prev: uint64(e.prev)}
}

// put stores s for key until expires, deciding at instant t. A new key
// first sweeps expired keys (at most once per sweep interval); in a full
// shard it then evicts the sampled key closest to expiry that is not in
// keep. put returns false when nothing could be evicted (every key is in
// keep), leaving the key unstored: the shard never exceeds capacity.
func (sh *memShard) put(key string, s State, expires, t int64, capacity int, sweepEvery int64, keep []Update) bool {
	if e := sh.m[key]; e != nil {
		*e = entry(s, expires)
		return true
	}
	if t >= sh.nextSweep {
		sh.sweep(t)
		sh.nextSweep = t + sweepEvery
	}
	if len(sh.m) >= capacity && !sh.evict(keep) {
		return false
	}
	e := sh.alloc()
	*e = entry(s, expires)
	sh.m[strings.Clone(key)] = e // never alias a caller's buffer
	return true
}

// sweep removes every key that expired at or before now, and remembers now
// so that no key is created again before it (see MemoryStore).
func (sh *memShard) sweep(now int64) {
	for k, e := range sh.m {
		if e.expires <= now {
			sh.remove(k, e)
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
	var victimEntry *memEntry
	var soonest int64
	found, seen := false, 0
	for k, e := range sh.m {
		if inBatch(k, keep) {
			continue
		}
		if !found || e.expires < soonest {
			victim, victimEntry, soonest, found = k, e, e.expires, true
		}
		if seen++; seen == evictionSamples {
			break
		}
	}
	if found {
		sh.remove(victim, victimEntry)
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
