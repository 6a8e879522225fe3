package keyset

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// gone marks an evicted entry's holds: far enough below zero that
// concurrent Acquires cannot bring it back above.
const gone = math.MinInt32 / 2

// Set maps at most Max keys to values, as the package describes. It is
// safe for concurrent use; create it with New.
type Set[K comparable, V any] struct {
	max     int
	evicted func(K, V)
	m       sync.Map // K -> *entry[K, V]
	period  atomic.Uint32
	full    atomic.Bool // no slot for a new key until the next Tick

	mu      sync.Mutex
	entries []*entry[K, V]
	idle    []*entry[K, V] // eviction candidates found by the last Tick, the most recently used first
}

type entry[K comparable, V any] struct {
	key   K
	value V
	used  atomic.Uint32 // the period it was last acquired in
	holds atomic.Int32  // Acquires not released yet; gone once evicted
	slot  int           // index in Set.entries; guarded by Set.mu
}

// New returns a Set of at most max keys (none when max <= 0). evicted,
// when set, is called with a key's value when the key leaves the set,
// holding the set's lock (it must not call the set) and after every
// Acquire of it was released.
func New[K comparable, V any](max int, evicted func(K, V)) *Set[K, V] {
	return &Set[K, V]{max: max, evicted: evicted}
}

// Ref is a value held in the set: it is not evicted until Release.
type Ref[K comparable, V any] struct{ e *entry[K, V] }

// Value is the value held.
func (r Ref[K, V]) Value() V { return r.e.value }

// Release ends the hold; the Ref must not be used after.
func (r Ref[K, V]) Release() { r.e.holds.Add(-1) }

// Acquire returns key's value, adding key with create's value when it is
// absent (create runs holding the set's lock and must not call the set).
// It reports false, adding nothing, when key is absent and the set has no
// slot for it.
func (s *Set[K, V]) Acquire(key K, create func() V) (Ref[K, V], bool) {
	if v, ok := s.m.Load(key); ok {
		e := v.(*entry[K, V])
		if e.holds.Add(1) > 0 {
			e.touch(s.period.Load())
			return Ref[K, V]{e}, true
		}
		e.holds.Add(-1) // being evicted: add it again, after the eviction
	}
	if s.full.Load() {
		return Ref[K, V]{}, false
	}
	return s.add(key, create)
}

// add is Acquire holding the lock.
func (s *Set[K, V]) add(key K, create func() V) (Ref[K, V], bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.period.Load()
	if v, ok := s.m.Load(key); ok { // added meanwhile; no entry in m is evicted while s.mu is held
		e := v.(*entry[K, V])
		e.holds.Add(1)
		e.touch(p)
		return Ref[K, V]{e}, true
	}
	if len(s.entries) >= s.max && !s.evictIdle(p) {
		s.full.Store(true)
		return Ref[K, V]{}, false
	}
	e := &entry[K, V]{key: key, slot: len(s.entries), value: create()}
	s.entries = append(s.entries, e)
	e.used.Store(p)
	e.holds.Store(1)
	s.m.Store(key, e)
	return Ref[K, V]{e}, true
}

func (e *entry[K, V]) touch(p uint32) {
	if e.used.Load() != p {
		e.used.Store(p)
	}
}

// idleIn reports whether e went unused for the whole period before p.
func (e *entry[K, V]) idleIn(p uint32) bool { return p-e.used.Load() >= 2 }

// evictIdle evicts the least recently used candidate still idle and not
// held, and reports whether it found one.
func (s *Set[K, V]) evictIdle(p uint32) bool {
	for n := len(s.idle); n > 0; n = len(s.idle) {
		e := s.idle[n-1]
		s.idle[n-1] = nil
		s.idle = s.idle[:n-1]
		if !e.idleIn(p) || !e.holds.CompareAndSwap(0, gone) {
			continue
		}
		last := s.entries[len(s.entries)-1]
		s.entries[e.slot], last.slot = last, e.slot
		s.entries[len(s.entries)-1] = nil
		s.entries = s.entries[:len(s.entries)-1]
		s.m.Delete(e.key)
		if s.evicted != nil {
			s.evicted(e.key, e.value)
		}
		return true
	}
	return false
}

// Tick starts a new period: the keys unused during the whole previous one
// become candidates for eviction.
func (s *Set[K, V]) Tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.period.Add(1)
	clear(s.idle)
	s.idle = s.idle[:0]
	for _, e := range s.entries {
		if e.idleIn(p) {
			s.idle = append(s.idle, e)
		}
	}
	// Evicted from the end: the least recently used last.
	slices.SortFunc(s.idle, func(a, b *entry[K, V]) int { return cmp.Compare(p-a.used.Load(), p-b.used.Load()) })
	s.full.Store(len(s.entries) >= s.max && len(s.idle) == 0)
}

// View calls f holding the set's lock, with every key and value: no key is
// added or evicted until f returns.
func (s *Set[K, V]) View(f func(all iter.Seq2[K, V])) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(func(yield func(K, V) bool) {
		for _, e := range s.entries {
			if !yield(e.key, e.value) {
				return
			}
		}
	})
}

// Len returns the number of keys in the set.
func (s *Set[K, V]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
